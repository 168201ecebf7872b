#include "runs/runcontroller.h"

#include "util/errors.h"

#include <QMetaObject>
#include <QPointer>
#include <filesystem>

#include <algorithm>
#include <system_error>

namespace hwl::ui {

RunController::RunController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<hwl::ui::WorkerRow>();
    qRegisterMetaType<hwl::RunSummary>();
    timer_.setInterval(kRefreshMs);
    connect(&timer_, &QTimer::timeout, this, &RunController::tick);
}

RunController::~RunController() {
    if (run_)
        run_->stop(); // a load still going stops within a fraction of a second
    if (preparer_.joinable())
        preparer_.join();
    if (run_) {
        run_->stop();
        run_->wait();
    }
}

bool RunController::start(const ExperimentConfig& config, bool replaceOut) {
    if (busy())
        return false;
    replaceOut_ = replaceOut;
    if (preparer_.joinable())
        preparer_.join();
    std::unique_ptr<Run> next;
    std::unique_ptr<OutputFolder> claimed;
    try {
        next = std::make_unique<Run>(config);
        if (!config.out.empty()) { // claimed before loading, as headless
            claimed = std::make_unique<OutputFolder>(config.out);
            if (!replaceOut && !runFilesIn(config.out).empty())
                throw InputError("out: \"" + config.out +
                                 "\" already holds a run; choose another folder or replace "
                                 "it when Start asks");
        }
    } catch (const std::exception& e) {
        emit failedToStart(QString::fromStdString(e.what())); // the last run stays as it was
        return true;
    }
    if (claimed && !claimed->cleanup().empty())
        emit eventLogged(QString::fromStdString(claimed->cleanup()), false);
    outputs_ = std::move(claimed);
    previousRun_ = std::move(run_);
    previousMetrics_ = std::move(metrics_);
    run_ = std::move(next);
    run_->setPace(pace_);
    // The Timeline tab draws every run's slices (a step pays three additions
    // for them; its clock read is the telemetry's).
    run_->setTrace(true);
    metrics_ = MetricsLog();
    spillWarned_ = false;
    reportedFailures_.clear();
    paused_ = false;
    preparing_ = true;
    emit preparing(QStringLiteral("loading %1 …").arg(QString::fromStdString(config.dataset)));
    // Loading the data and creating the segments happens off the GUI thread;
    // the result comes back as a queued call.
    QPointer<RunController> self(this);
    Run* run = run_.get();
    auto prepare = [self, run] {
        QString error;
        bool cancelled = false;
        try {
            run->prepare();
        } catch (const Cancelled& e) {
            error = QString::fromStdString(e.what());
            cancelled = true;
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        if (self)
            QMetaObject::invokeMethod(
                self.data(),
                [self, error, cancelled] {
                    if (self)
                        self->onPrepared(error, cancelled);
                },
                Qt::QueuedConnection);
    };
    try {
        preparer_ = std::thread(prepare);
    } catch (const std::system_error& e) {
        preparing_ = false;
        restorePrevious();
        emit failedToStart(QStringLiteral("cannot start the thread that loads the data: ") +
                           QString::fromStdString(startFailureText(e.code().value())));
    }
    return true;
}

void RunController::onPrepared(const QString& error, bool cancelled) {
    if (preparer_.joinable())
        preparer_.join();
    preparing_ = false;
    if (cancelled) {
        restorePrevious();
        emit eventLogged(QStringLiteral("Stopped: ") + error, false);
        emit stoppedWhileLoading();
        return;
    }
    QString failure = error;
    events_.reset();
    if (failure.isEmpty()) {
        try {
            const ExperimentConfig& config = run_->config();
            if (outputs_) { // checked before training, as headless
                outputs_->checkSpace(OutputFolder::bytesNeededFor(*run_));
                outputs_->keepEarlierMetrics(config);
            }
            if (!config.tensorboard.empty()) {
                events_ = std::make_unique<TensorBoardLog>(config.tensorboard, config);
                if (!events_->note().empty())
                    emit eventLogged(QString::fromStdString(events_->note()), false);
            }
            startedAt_ = std::chrono::system_clock::now();
            run_->start();
        } catch (const std::exception& e) {
            failure = QString::fromStdString(e.what());
            events_.reset();
            outputs_.reset();
        }
    }
    if (!failure.isEmpty()) {
        restorePrevious();
        emit failedToStart(failure);
        return;
    }
    previousRun_.reset();
    previousMetrics_ = MetricsLog();
    QStringList notes;
    for (const auto& n : run_->notes())
        notes << QString::fromStdString(n);
    lastSamples_ = QList<quint64>(run_->config().workers, 0);
    lastComm_ = QList<double>(run_->config().workers, 0.0);
    leftSeconds_ = QList<double>(run_->config().workers, -1.0);
    running_ = true;
    sinceLastTick_.start();
    timer_.start();
    emit started(run_->config().workers, notes);
}

void RunController::pause() {
    if (run_ && !run_->finished()) {
        run_->pause();
        paused_ = true;
    }
}

void RunController::resume() {
    if (run_ && !run_->finished()) {
        run_->resume();
        paused_ = false;
    }
}

void RunController::restorePrevious() {
    // A run that does not start gives its place back to the last one, whose
    // weights and metrics can still be exported. Its claim on --out ends.
    outputs_.reset();
    run_ = std::move(previousRun_);
    metrics_ = std::move(previousMetrics_);
    previousMetrics_ = MetricsLog();
}

void RunController::setPace(std::uint32_t stepsPerSecond) {
    pace_ = stepsPerSecond;
    if (run_ && !run_->finished())
        run_->setPace(pace_);
}

void RunController::step() {
    if (canStep())
        run_->step();
}

void RunController::stop() {
    if (run_)
        run_->stop();
}

void RunController::tick() {
    if (!run_)
        return;
    QList<Sample> batch;
    metrics_.drain(run_->telemetry(), [&](const Sample& s) { batch.append(s); });
    if (events_) {
        for (const Sample& s : batch)
            events_->append(s);
        events_->flush();
    }
    if (!batch.isEmpty())
        emit samplesArrived(batch);
    drainTrace();
    if (!metrics_.spillError().empty() && !spillWarned_) {
        spillWarned_ = true;
        emit eventLogged(QStringLiteral("Metrics: ") +
                             QString::fromStdString(metrics_.spillError()) +
                             QStringLiteral(". Memory use now grows with the run's length."),
                         true);
    }
    // The rings are drained at ~30 Hz so they never fill; the worker table is
    // for reading, and 5 updates a second is all a person can read.
    if (++ticks_ % kTicksPerTableUpdate == 0 && !run_->finished())
        collectWorkers();
    if (run_->finished()) {
        timer_.stop();
        run_->wait();
        // After the wait: the last counters (an MPI rank's relayed ones too)
        // are in, so the table's final rows are exact.
        collectWorkers();
        QList<Sample> rest;
        metrics_.drain(run_->telemetry(), [&](const Sample& s) { rest.append(s); });
        if (!rest.isEmpty())
            emit samplesArrived(rest);
        drainTrace();
        const RunSummary s = run_->summary();
        if (outputs_) // first, as headless: summary.json names the TensorBoard run
            writeOutputs(s);
        if (events_)
            finishEvents(rest, s);
        for (const auto& e : s.explanations)
            emit eventLogged(QStringLiteral("Pitfall: ") + QString::fromStdString(e), true);
        for (const auto& r : s.remarks)
            emit eventLogged(QStringLiteral("Run: ") + QString::fromStdString(r), false);
        paused_ = false;
        running_ = false;
        emit finished(s);
    }
}

void RunController::drainTrace() {
    TraceBatch batch;
    TelemetryReader& telemetry = run_->telemetry();
    batch.startNs = telemetry.startNs();
    telemetry.drainTrace(
        [&](std::uint32_t worker, const TraceSlice& s) {
            batch.slices.append({worker, s});
        },
        [&](const TraceSpan& s) { batch.spans.append(s); });
    if (!batch.slices.isEmpty() || !batch.spans.isEmpty())
        emit traceArrived(batch);
}

void RunController::writeOutputs(const RunSummary& summary) {
    std::vector<std::string> failed;
    const std::string tensorboardRun =
        events_ ? std::filesystem::path(events_->runFolder()).filename().string() : std::string();
    const std::string line =
        outputs_->writeRun(*run_, metrics_, summary, startedAt_, failed, tensorboardRun);
    outputs_.reset(); // the folder's lock goes with it
    emit eventLogged(QStringLiteral("Out: ") + QString::fromStdString(line), !failed.empty());
    for (const std::string& f : failed)
        emit eventLogged(QStringLiteral("Out: could not write ") + QString::fromStdString(f), true);
}

void RunController::finishEvents(const QList<Sample>& last, const RunSummary& summary) {
    for (const Sample& s : last)
        events_->append(s);
    events_->finish(summary);
    const QString file = QString::fromStdString(events_->file());
    if (events_->error().empty())
        emit eventLogged(QStringLiteral("TensorBoard: wrote %1 (tensorboard --logdir %2 shows it)")
                             .arg(file, QString::fromStdString(run_->config().tensorboard)),
                         false);
    else
        emit eventLogged(QStringLiteral("TensorBoard: could not write %1: %2; the run itself is "
                                        "complete, its event file stops where the error came")
                             .arg(file, QString::fromStdString(events_->error())),
                         true);
    events_.reset();
}

namespace {
/// Samples per second over a worker's training: from its first step (as the
/// run's summary counts it) to `left`, when it left its loop; -1 when it
/// never started. A worker done within a millisecond still gets its rate
/// (the clock counts nanoseconds), as the run's summary gives it.
double averageSamplesPerSecond(const WorkerSnapshot& w, double left) {
    if (w.launchSeconds < 0 || w.startupSeconds < 0)
        return -1;
    const double seconds = left - (w.launchSeconds + w.startupSeconds);
    return seconds > 0 ? double(w.samples) / seconds : -1;
}
} // namespace

void RunController::collectWorkers() {
    const double seconds = std::max(1e-3, sinceLastTick_.restart() / 1000.0);
    QList<WorkerRow> rows;
    const bool processes = run_->info().processes;
    for (const WorkerSnapshot& w : run_->telemetry().workers()) {
        WorkerRow row;
        row.worker = w;
        row.process = processes;
        const int rank = int(w.rank);
        if (rank < lastSamples_.size()) {
            row.samplesPerSecond = double(w.samples - lastSamples_[rank]) / seconds;
            lastSamples_[rank] = w.samples;
            // Out of its loop, the last interval says 0 (or a stale rate):
            // its average over its whole training says what it did.
            if (hasLeftLoop(w.state)) {
                double& seenGone = leftSeconds_[rank];
                if (seenGone < 0)
                    seenGone = run_->telemetry().elapsed();
                // A worker killed never says when it left: when it was seen gone.
                const double left = w.finishSeconds >= 0 ? w.finishSeconds : seenGone;
                row.samplesPerSecond = averageSamplesPerSecond(w, left);
                row.averageRate = true;
            }
            if (w.bytesReduced > 0)
                row.commShare = std::clamp((w.commSeconds - lastComm_[rank]) / seconds, 0.0, 1.0);
            lastComm_[rank] = w.commSeconds;
        }
        const QString failure = QString::fromStdString(w.failure);
        if (!failure.isEmpty() && !reportedFailures_.contains(failure)) {
            reportedFailures_.append(failure);
            emit eventLogged(QStringLiteral("Worker died: ") + failure, true);
        }
        rows.append(row);
    }
    emit workersUpdated(rows);
}

} // namespace hwl::ui
