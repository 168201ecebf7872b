#pragma once
// The window's six training charts and what feeds them: which a run shows
// (its settings, and the View menu's ticks, kept in QSettings), the
// telemetry's samples and worker rows turned into points and marks, and the
// paced redraw (at most every 40 ms, at least every 100 ms, aiming at a tenth
// of a core). It lays nothing out: the window places the charts. GUI thread
// only.
#include "runs/workertablemodel.h"
#include "teaching/comparisonverdict.h"

#include "telemetry/sample.h"

#include <QList>
#include <QObject>
#include <QSet>

class QTimer;

namespace hwl::ui {

class TrainingChart;

class RunCharts : public QObject {
    Q_OBJECT

public:
    static constexpr double kCpuBudget = 0.10; ///< share of one core the charts aim at
    /// 25 Hz at most; 10 Hz at least, whatever a redraw costs, so that the
    /// curves move smoothly under any load.
    static constexpr int kMinRedrawMs = 40, kMaxRedrawMs = 100;
    /// While the run's workers take every core, the charts take a share of
    /// their time: then 4 to 10 Hz, aiming at a fifth of that budget.
    /// bench/gui_overhead, 2 workers on the 2-core EPYC VM, a shown window
    /// against a headless run: 10.3% (the blog's MLP) and 8.8% (the default
    /// Fashion-MNIST experiment) fewer samples/s at kCpuBudget, its GUI
    /// thread 14-16% of a core; 6.5% and 3.7% fewer at this, 9% of a core
    /// for the blog's MLP (medians of 5 runs each).
    static constexpr double kSharedCpuBudget = 0.02;
    static constexpr int kSharedMaxRedrawMs = 250;

    /// Makes the charts (parentless: the window's layout takes them).
    explicit RunCharts(QObject* parent = nullptr);

    TrainingChart* loss() const { return loss_; }
    TrainingChart* divergence() const { return divergence_; }
    TrainingChart* lostUpdates() const { return lost_; }  ///< % of block writes
    TrainingChart* learningRate() const { return lr_; }   ///< with a schedule or warm-up
    TrainingChart* accuracy() const { return accuracy_; } ///< test accuracy, %
    TrainingChart* rate() const { return rate_; }         ///< samples/s per worker
    /// All six: loss, accuracy, divergence, rate, lost updates, learning rate.
    QList<TrainingChart*> all() const;

    /// Empties the charts for a run of `config`: its series, which
    /// divergence it shows (none with one worker), the lost-update and
    /// learning-rate charts when it has them. `compared`: the comparison it
    /// is a run of (its figure's chart fits every run of it), or null.
    void prepare(const hwl::ExperimentConfig& config, const ComparisonRecord* compared);
    /// Whether the run's workers take every core (kSharedCpuBudget then).
    void setCoresShared(bool shared);
    /// The wait before the next redraw after one that cost `costMs`: its cost
    /// over the budget, within the bounds (kCpuBudget, or kSharedCpuBudget
    /// when the cores are shared).
    static int redrawIntervalMs(double costMs, bool coresShared);
    bool coresShared() const { return coresShared_; }
    /// Shows `chart` when it has something to show (`relevant`) and the
    /// View menu has it ticked; layoutChanged() follows.
    void show(TrainingChart* chart, bool relevant);
    /// Whether the View menu shows `chart` (kept in QSettings).
    static bool ticked(const TrainingChart* chart);
    static void setTicked(const TrainingChart* chart, bool on);

    /// A batch of telemetry of a run of `epochs` epochs and `workers`
    /// workers (`testSet`: it evaluates one): loss, divergence and learning
    /// rate per worker, the test loss and accuracy per worker's step, epoch
    /// ends marked and logged (about 50 a run at most). Redraws soon.
    void addSamples(const QList<hwl::Sample>& samples, int epochs, int workers, bool testSet);
    /// The workers' rows at `now` seconds: throughput, lost updates, and a
    /// death marked once where its curve ends.
    void addWorkerRows(const QList<WorkerRow>& rows, double now);
    /// Redraws the shown charts now (`paint`: painted too) and sets the
    /// next redraw's delay from what this one cost.
    void refresh(bool paint);

Q_SIGNALS:
    void eventLogged(const QString& text, bool warning);
    /// A chart was shown or hidden: the window fits its rows again.
    void layoutChanged();
    /// The paced redraw is due (the window calls refresh()).
    void redrawDue();

private:
    void scheduleRedraw();

    TrainingChart* loss_ = nullptr;
    TrainingChart* divergence_ = nullptr;
    TrainingChart* lr_ = nullptr;
    TrainingChart* lost_ = nullptr;
    TrainingChart* accuracy_ = nullptr;
    TrainingChart* rate_ = nullptr;
    QTimer* redrawTimer_ = nullptr;
    bool coresShared_ = false;
    QSet<int> deathsMarked_; ///< ranks whose death the loss chart marks
    /// --eval-every: evaluations inside epochs, each logged with its samples,
    /// at most kInsideLines of them a run (the rest are in metrics.csv).
    bool evalInside_ = false;
    int insideLines_ = 0;
    static constexpr int kInsideLines = 200;
};

} // namespace hwl::ui
