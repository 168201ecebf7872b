#pragma once
// Helpers shared by the window's tests: the form's problems as text, and a
// worker table as large as a classroom run makes it.
#include "form/experimentform.h"
#include "runs/workertablemodel.h"
#include "widgets/fieldnote.h"

#include <QLabel>
#include <QList>
#include <QString>
#include <QStringList>

namespace hwl::test {

/// Whether the form gives a field's message: a typed field's FieldNote
/// holding it (shown under its field while that is in use), or a choice's
/// row shown with it.
inline bool messageGiven(const QLabel* label, const QWidget* form) {
    if (qobject_cast<const hwl::ui::FieldNote*>(label))
        return !label->text().isEmpty();
    return label->isVisibleTo(form) && !label->text().isEmpty();
}

/// Every problem the form reports, "field: message" a line (for QVERIFY2).
inline QString problemText(const hwl::ui::ExperimentForm& form) {
    QStringList lines;
    const auto problems = form.problems();
    for (auto it = problems.begin(); it != problems.end(); ++it)
        lines << it.key() + ": " + it.value();
    return lines.join('\n');
}

/// 16 workers of a long GPU Hogwild run: every number as large as a
/// classroom run makes them.
inline QList<hwl::ui::WorkerRow> largeRows() {
    QList<hwl::ui::WorkerRow> rows;
    for (int r = 0; r < 16; ++r) {
        hwl::ui::WorkerRow row;
        row.process = true;
        row.worker.rank = std::uint32_t(r);
        row.worker.pid = 4'194'000 + r; // pid_max's order of magnitude
        row.worker.state = hwl::WorkerState::Running;
        row.worker.steps = 123'456'789;
        row.worker.samples = 987'654'321;
        row.worker.lastLoss = 12.3456f;
        row.worker.lastDivergence = 1234.5f;
        row.worker.startupSeconds = 0.01234;
        row.worker.updateWrites = 198'375'000;
        row.worker.lostUpdates = 4'223'805;
        row.samplesPerSecond = 1'475'729;
        row.commShare = 0.123;
        rows << row;
    }
    return rows;
}

} // namespace hwl::test
