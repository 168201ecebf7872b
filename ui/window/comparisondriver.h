#pragma once
// A comparison (a preset's runs, or a sweep's) made one after another: the
// engine's sequence (run/comparison.h), the rows of its table as its runs
// end, "Run 1 of 2: locked" in the status bar while it goes, and its verdict
// once it is over. It starts nothing itself: it says when the next run is
// due (nextRunDue), and the window starts it. GUI thread only.
#include "teaching/comparisonverdict.h"

#include "run/comparison.h"

#include <QObject>

#include <memory>
#include <optional>

class QLabel;

namespace hwl::ui {

class ComparisonDriver : public QObject {
    Q_OBJECT

public:
    /// The pause between a run's end and the next one's start: for the eye,
    /// and for the workers to be gone.
    static constexpr int kPauseMs = 300;

    explicit ComparisonDriver(QObject* parent = nullptr);
    ~ComparisonDriver() override;

    /// Where the comparison is, for the status bar (hidden while none goes);
    /// the caller adds it to a layout, which then owns it.
    QLabel* statusLabel() const { return status_; }

    /// Starts a comparison of `runs` (not empty) titled `title` (its table's
    /// title), comparing `figure`. current() is its first run.
    void begin(std::vector<hwl::PresetRun> runs, const QString& title, hwl::ComparedFigure figure);
    /// The run to make now; null when no comparison goes or it is over.
    const hwl::PresetRun* current() const;
    /// The run going, 0-based; -1 when none.
    int runIndex() const { return sequence_ ? int(sequence_->index()) : -1; }
    /// The table being kept (also between the last run's end and end()); null: none.
    const ComparisonRecord* record() const { return record_.get(); }
    /// Its table's title (a sweep is titled "Sweep").
    void setTitle(const QString& title);

    /// A run starts. Of the comparison: the status and the event log say
    /// which, and true. Else the comparison ends (end()): false.
    bool runStarting();
    /// The run going ended with `summary`: its row of the table.
    void recordRun(const hwl::RunSummary& summary, bool processes, double divergence);
    /// After recordRun(): nextRunDue() after kPauseMs, or the sequence is
    /// over (all made, or the user stopped a run) and the event log says so.
    void runEnded(const hwl::RunSummary& summary);
    /// No further run (Stop, a run that could not start, the window closing);
    /// the table stays until end().
    void stop();
    /// Over: its verdict (verdictReady) when a run of it ended, then no
    /// table and no status.
    void end();

Q_SIGNALS:
    void nextRunDue();
    void verdictReady(const hwl::ui::Verdict& verdict);
    void eventLogged(const QString& text, bool warning);

private:
    std::optional<hwl::Comparison> sequence_;
    std::unique_ptr<ComparisonRecord> record_;
    QLabel* status_;
};

} // namespace hwl::ui
