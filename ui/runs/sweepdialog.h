#pragma once
// SweepDialog (Run > Sweep…): a grid of runs over experiment fields, the
// window's --sweep. Each row is a field (any of experimentFields() but
// `out`) and its values separated by commas, prefilled with the field's
// value in the experiment the dialog was opened with. As the user types,
// each row is judged by the field's own check (parseSweepFlag) and the whole
// grid as the command line judges it (addSweepAxis, sweepRuns, each run's
// implicit worker count, validateSweepRuns); a line under the rows says
// "N runs: first … last" or the first problem, in the form's error red, and
// "Start sweep" is enabled only for a valid grid. GUI thread only.
#include "config/experimentconfig.h"
#include "config/presetrun.h"
#include "strategy/validation.h"

#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace hwl::ui {

class SweepDialog : public QDialog {
    Q_OBJECT

public:
    /// Most lines of a problem the dialog shows (a grid of many refused runs
    /// lists each one; the rest is summed up in one more line).
    static constexpr int kMaxProblemLines = 12;

    /// A sweep of `base`: rows from base.sweep when it has axes, else one
    /// row of `workers`.
    explicit SweepDialog(const hwl::ExperimentConfig& base, QWidget* parent = nullptr);

    /// The runs of the grid, in order (the first row's field varies
    /// slowest); empty while the grid is invalid.
    const std::vector<hwl::PresetRun>& runs() const { return runs_; }
    /// The first problem, as the dialog shows it; empty when the grid is valid.
    QString problem() const { return problem_; }
    /// The line under the rows: the run count and labels, or the problem.
    QString summary() const;
    /// Replaces the rows with (field key, values text) pairs (at least one
    /// row stays; an unknown key leaves its combo box on its first field).
    void setRows(const QList<QPair<QString, QString>>& rows);
    /// The rows as (field key, values text) pairs, for setRows().
    QList<QPair<QString, QString>> rowTexts() const;
    int rowCount() const { return int(rows_.size()); }
    QPushButton* startButton() const { return start_; }

    /// The runs a sweep of `base` over `axes` makes, as the command line
    /// makes them: each run takes a mode's exact worker count (serial: 1)
    /// unless the sweep varies `workers`, and every run is validated.
    /// Throws InputError (the grid's or the first refused runs' problem).
    static std::vector<hwl::PresetRun> plan(hwl::ExperimentConfig base,
                                            std::vector<hwl::SweepAxis> axes);

private:
    struct Row {
        QWidget* box = nullptr;
        QComboBox* field = nullptr;
        QLineEdit* values = nullptr;
        QToolButton* remove = nullptr;
    };

    void addRow(const QString& key, const QString& values);
    void removeRow(QWidget* box);
    /// Names the rows' widgets by position ("sweepField0", "sweepValues0",
    /// "sweepRemove0", ...) and enables removing while more than one is left.
    void renumber();
    /// Judges every row and the grid; updates the line and the button.
    void revalidate();
    void showSummary(const QString& text, bool error);
    /// Grows the dialog to the height its rows and wrapped texts need.
    void fitHeight();

    hwl::ExperimentConfig base_;
    QList<Row> rows_;
    QVBoxLayout* rowsLayout_ = nullptr;
    QLabel* summary_ = nullptr;
    QPushButton* start_ = nullptr;
    std::vector<hwl::PresetRun> runs_;
    QString problem_;
};

} // namespace hwl::ui
