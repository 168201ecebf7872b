#include "runcontroller.h"

#include "launch/forkserver.h"
#include "util/errors.h"

#include <QMetaObject>
#include <QPointer>

#include <system_error>

namespace hwl::ui {

RunController::RunController(std::shared_ptr<ForkServer> forkServer, QObject* parent)
    : QObject(parent), forkServer_(std::move(forkServer)) {
    qRegisterMetaType<hwl::ui::WorkerRow>();
    qRegisterMetaType<hwl::RunSummary>();
    timer_.setInterval(kRefreshMs);
    connect(&timer_, &QTimer::timeout, this, &RunController::tick);
}

RunController::~RunController() {
    if (preparer_.joinable())
        preparer_.join();
    if (run_) {
        run_->stop();
        run_->wait();
    }
}

bool RunController::start(const ExperimentConfig& config) {
    if (busy())
        return false;
    if (preparer_.joinable())
        preparer_.join();
    metrics_ = MetricsLog();
    spillWarned_ = false;
    reportedFailures_.clear();
    paused_ = false;
    try {
        run_ = std::make_unique<Run>(config);
    } catch (const std::exception& e) {
        emit failedToStart(QString::fromStdString(e.what()));
        return true;
    }
    run_->setForkServer(forkServer_);
    preparing_ = true;
    emit preparing(QStringLiteral("loading %1 …").arg(QString::fromStdString(config.dataset)));
    // Loading the data and creating the segments happens off the GUI thread;
    // the result comes back as a queued call.
    QPointer<RunController> self(this);
    Run* run = run_.get();
    auto prepare = [self, run] {
        QString error;
        try {
            run->prepare();
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        if (self)
            QMetaObject::invokeMethod(
                self.data(),
                [self, error] {
                    if (self)
                        self->onPrepared(error);
                },
                Qt::QueuedConnection);
    };
    try {
        preparer_ = std::thread(prepare);
    } catch (const std::system_error& e) {
        preparing_ = false;
        emit failedToStart(QStringLiteral("cannot start the thread that loads the data: ") +
                           QString::fromStdString(startFailureText(e.code().value())));
    }
    return true;
}

void RunController::onPrepared(const QString& error) {
    if (preparer_.joinable())
        preparer_.join();
    preparing_ = false;
    if (error.isEmpty()) {
        try {
            run_->start();
        } catch (const std::exception& e) {
            emit failedToStart(QString::fromStdString(e.what()));
            return;
        }
    } else {
        emit failedToStart(error);
        return;
    }
    QStringList notes;
    for (const auto& n : run_->notes())
        notes << QString::fromStdString(n);
    lastSamples_ = QList<quint64>(run_->config().workers, 0);
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

void RunController::stop() {
    if (run_)
        run_->stop();
}

void RunController::tick() {
    if (!run_)
        return;
    QList<Sample> batch;
    metrics_.drain(run_->telemetry(), [&](const Sample& s) { batch.append(s); });
    if (!batch.isEmpty())
        emit samplesArrived(batch);
    if (!metrics_.spillError().empty() && !spillWarned_) {
        spillWarned_ = true;
        emit event(QStringLiteral("Metrics: ") + QString::fromStdString(metrics_.spillError()) +
                       QStringLiteral(". Memory use now grows with the run's length."),
                   true);
    }
    // The rings are drained at ~30 Hz so they never fill; the worker table is
    // for reading, and 5 updates a second is all a person can read.
    if (++ticks_ % kTicksPerTableUpdate == 0 || run_->finished())
        collectWorkers();
    if (run_->finished()) {
        timer_.stop();
        run_->wait();
        QList<Sample> rest;
        metrics_.drain(run_->telemetry(), [&](const Sample& s) { rest.append(s); });
        if (!rest.isEmpty())
            emit samplesArrived(rest);
        const RunSummary s = run_->summary();
        for (const auto& e : s.explanations)
            emit event(QStringLiteral("Pitfall: ") + QString::fromStdString(e), true);
        paused_ = false;
        running_ = false;
        emit finished(s);
    }
}

void RunController::collectWorkers() {
    Telemetry& t = run_->telemetry();
    const double seconds = std::max(1e-3, sinceLastTick_.restart() / 1000.0);
    QList<WorkerRow> rows;
    const bool processes = run_->config().mode == Mode::Processes;
    for (std::uint32_t r = 0; r < t.workerCount(); ++r) {
        const WorkerStatus& w = t.worker(r);
        WorkerRow row;
        row.rank = int(r);
        row.process = processes;
        row.pid = w.pid.load(std::memory_order_relaxed);
        row.threadId = qint64(w.threadId.load(std::memory_order_relaxed));
        row.state = QString::fromLatin1(toString(WorkerState(w.state.load())));
        row.failure = QString::fromStdString(t.failureText(r));
        row.steps = w.steps.load(std::memory_order_relaxed);
        row.samples = w.samples.load(std::memory_order_relaxed);
        if (int(r) < lastSamples_.size()) {
            row.samplesPerSecond = double(row.samples - lastSamples_[int(r)]) / seconds;
            lastSamples_[int(r)] = row.samples;
        }
        row.lastLoss = w.lastLoss.load(std::memory_order_relaxed);
        row.divergence = w.lastDivergence.load(std::memory_order_relaxed);
        const auto startup = w.startupNs.load(std::memory_order_relaxed);
        row.startupMs = startup >= 0 ? double(startup) / 1e6 : -1;
        if (!row.failure.isEmpty() && !reportedFailures_.contains(row.failure)) {
            reportedFailures_.append(row.failure);
            emit event(QStringLiteral("Worker died: ") + row.failure, true);
        }
        rows.append(row);
    }
    emit workersUpdated(rows);
}

} // namespace hwl::ui
