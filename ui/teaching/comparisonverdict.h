#pragma once
// The verdict at the end of a comparison (a comparison preset's runs, made
// one after another): a table with a row per run (samples/s, final test
// accuracy, training seconds and the figure the preset compares) and one
// sentence saying which run won on that figure, and by how much; or, where
// the gap is within the spread (samples/s or divergence within 10%,
// start-up ranges that overlap, runs that differ only in their seed), that
// none did. The
// headless monitor prints the same table in its words (app/cli/report.cpp).
#include "teaching/verdict.h"

#include "io/targetrace.h" // kAboutEqual
#include "preset/presets.h"
#include "run/run.h"

#include <QList>
#include <QString>

#include <vector>

namespace hwl {
class MetricsLog;
} // namespace hwl

namespace hwl::ui {

/// One run of a comparison, as its row of the table.
struct ComparedRow {
    QString label; ///< what the preset calls the run ("locked")
    RunSummary summary;
    bool processes = false; ///< its workers are processes (start-up is theirs)
    /// The median of its step samples' divergence (all workers): robust to
    /// the few large ones early in a run; -1: none.
    double divergence = -1;
};

/// A comparison being made (MainWindow): what it is, what it compares, the
/// run going and the rows of those that ended.
struct ComparisonRecord {
    QString title; ///< the preset's name, or "Comparison"
    hwl::ComparedFigure figure = hwl::ComparedFigure::None;
    int planned = 0;
    QString current; ///< the label of the run going
    QList<ComparedRow> rows;
    /// The runs differ only in their seed (a sweep over seeds): their
    /// differences are the spread between repeats, never a win.
    bool seedOnly = false;
};

/// "fork, spawn and forkserver": every run's label ("fork" alone for one;
/// at least one).
QString runNames(const QList<const ComparedRow*>& rows);

/// The median of a log's step samples' divergence (the finite ones); -1: none.
double medianDivergence(const MetricsLog& log);

/// The comparison's verdict: title, the sentence on its figure, the table.
Verdict comparisonVerdict(const ComparisonRecord& record);

/// The active preset (`activeId`) when `runs` are its comparison's runs,
/// else null: what a comparison started from the window compares.
const hwl::Preset* comparingPreset(const std::vector<hwl::Preset>& presets, const QString& activeId,
                                   const std::vector<hwl::PresetRun>& runs);

} // namespace hwl::ui
