#pragma once
// RunController: the GUI's side of the run API. It prepares a run off the
// GUI thread (loading a dataset can take a second), starts it, and drains its
// telemetry through the run's read-only reader on a ~30 Hz timer, handing
// the GUI coalesced batches of samples and a snapshot of every worker. Workers never touch
// widgets; everything this class emits is emitted on the GUI thread.
#include "io/metricslog.h"
#include "io/tensorboardlog.h"
#include "run/outputfolder.h"
#include "run/run.h"
#include "telemetry/telemetryreader.h"
#include "telemetry/trace.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPair>
#include <QStringList>
#include <QTimer>

#include <chrono>
#include <memory>
#include <thread>

namespace hwl::ui {

/// One row of the worker table: a worker's snapshot as the telemetry
/// reader hands it out (typed: the state is a WorkerState, put into words
/// only where it is shown), and what the controller measured of it.
struct WorkerRow {
    WorkerSnapshot worker;
    bool process = false; ///< a worker process (else a thread of this process)
    /// Over the last refresh interval while the worker trains; once it left
    /// its loop (finished, stopped, failed) its average from its first step
    /// to then (`averageRate`); -1: it took no step.
    double samplesPerSecond = 0;
    bool averageRate = false; ///< samplesPerSecond is the worker's whole-run average
    double commShare = -1; ///< data-parallel: share of the last interval in collectives; -1: none
};

/// Time slices and coordinator spans drained since the last tick, for the
/// Timeline (core/telemetry/trace.h).
struct TraceBatch {
    QList<QPair<std::uint32_t, TraceSlice>> slices; ///< (worker, slice), in ring order per worker
    QList<TraceSpan> spans;
    std::int64_t startNs = 0; ///< the run's start on the monotonic clock (the spans')
};

class RunController : public QObject {
    Q_OBJECT

public:
    /// Process runs with the forkserver start method use the fork server
    /// main() started (hwl::startForkServer()).
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override; ///< stops a run still going and waits for it

    /// Starts a run of `config` (validated by the caller). Returns false when
    /// one is already preparing or running. Emits preparing(), then
    /// started() or failedToStart(). With config.tensorboard the run writes
    /// its TensorBoard event file into that folder as it goes (a folder
    /// that cannot be made is failedToStart()); the event log says where.
    /// With config.out the run's files (core/run/outputfolder.h) go into
    /// that folder when it ends, as a headless run's do; a folder that
    /// holds another run is replaced only with `replaceOut` (the window
    /// asks first), else failedToStart() says so.
    bool start(const ExperimentConfig& config, bool replaceOut = false);
    void pause();
    void resume();
    /// Steps per second per worker (0: full speed), for this run and the
    /// next ones; only the timing changes.
    void setPace(std::uint32_t stepsPerSecond);
    std::uint32_t pace() const { return pace_; }
    /// While paused: every worker takes one step and pauses again.
    void step();
    /// Whether step() can work now: paused, and not MPI ranks.
    bool canStep() const { return running_ && paused_ && run_ && run_->canStep(); }
    /// Asks the workers to stop after their current step; finished() follows.
    void stop();

    /// True from start() until finished() or failedToStart() was emitted.
    bool busy() const { return preparing_ || running_; }
    bool paused() const { return paused_; }
    /// The current or last run (null before the first); its parameters are
    /// what "Export weights" writes.
    const Run* run() const { return run_.get(); }
    const MetricsLog& metrics() const { return metrics_; }
    /// Seconds on the current run's clock (the telemetry's), 0 before one.
    double elapsed() const { return run_ && running_ ? run_->telemetry().elapsed() : 0.0; }
    /// Milliseconds between telemetry drains.
    static constexpr int kRefreshMs = 33;
    /// Drains per worker-table update (about 5 per second).
    static constexpr int kTicksPerTableUpdate = 6;

signals:
    void preparing(const QString& description);
    void started(int workers, const QStringList& notes);
    void failedToStart(const QString& message);
    /// Stop (or quit) while the data was loading: nothing was started (the
    /// event log has said so).
    void stoppedWhileLoading();
    /// Samples drained since the last tick, in ring order per worker.
    void samplesArrived(const QList<hwl::Sample>& samples);
    void workersUpdated(const QList<hwl::ui::WorkerRow>& rows);
    /// Every run is traced in slices of Run::kTraceSliceNs for the Timeline.
    void traceArrived(const hwl::ui::TraceBatch& batch);
    void finished(const hwl::RunSummary& summary);
    /// A line for the event log: warnings, worker deaths, pitfalls.
    void eventLogged(const QString& text, bool warning);

private:
    void onPrepared(const QString& error, bool cancelled);
    void restorePrevious();
    void tick();
    void collectWorkers();
    void drainTrace(); ///< emits traceArrived when anything came
    /// The end of the event file: the last samples, the summary; says in
    /// the event log where it is, or why it could not be written.
    void finishEvents(const QList<Sample>& last, const RunSummary& summary);
    void writeOutputs(const RunSummary& summary); ///< into outputs_, said in the event log

    std::unique_ptr<Run> run_;
    std::thread preparer_;
    MetricsLog metrics_;
    /// The run's TensorBoard event file (config.tensorboard), null without.
    std::unique_ptr<TensorBoardLog> events_;
    std::unique_ptr<OutputFolder> outputs_; ///< config.out, held from the start to the end
    bool replaceOut_ = false;
    std::chrono::system_clock::time_point startedAt_;
    /// The last run and its metrics while the next one prepares: back in
    /// place when it cannot start, so nothing of it is lost.
    std::unique_ptr<Run> previousRun_;
    MetricsLog previousMetrics_;
    std::uint32_t pace_ = 0;
    bool spillWarned_ = false; // metrics_.spillError() already reported
    QTimer timer_;
    QElapsedTimer sinceLastTick_;
    QList<quint64> lastSamples_;
    QList<double> lastComm_;
    /// Per worker, seconds on the run's clock when it was first seen out of
    /// its loop (-1: not yet); its own finish time wins when it has one.
    QList<double> leftSeconds_;
    QList<QString> reportedFailures_;
    std::uint64_t ticks_ = 0;
    bool preparing_ = false;
    bool running_ = false; ///< started and finished() not yet emitted
    bool paused_ = false;
};

} // namespace hwl::ui

Q_DECLARE_METATYPE(hwl::ui::WorkerRow)
Q_DECLARE_METATYPE(hwl::RunSummary)
