#include "run/run.h"

#include "data/datasources.h"
#include "io/tensorfile.h"
#include "io/weightsio.h"
#include "launch/forksafety.h"
#include "launch/forkserver.h"
#include "launch/processlauncher.h"
#include "launch/workerprocess.h"
#include "optim/hogwild.h"
#include "train/workerloop.h"
#include "util/errors.h"
#include "util/parallel.h"
#include "util/textutil.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <system_error>

#include <sys/wait.h>

namespace hwl {

namespace {
bool isProcessMode(const ExperimentConfig& c) {
    return c.mode == Mode::Processes;
}
} // namespace

Run::Run(ExperimentConfig config) : config_(std::move(config)) {
    config_.validateOrThrow();
}

Run::~Run() {
    if (coordinator_.joinable()) {
        stop();
        coordinator_.join();
    }
}

void Run::setForkServer(std::shared_ptr<ForkServer> server) {
    forkServer_ = std::move(server);
}

void Run::prepare() {
    if (prepared_)
        return;
    SharedSegment::cleanupStaleSegments();
    const ModelSpec modelSpec = config_.modelSpec();
    if (isProcessMode(config_)) {
        const auto check = checkStartMethod(config_.startMethod, cudaInitialisedInThisProcess(),
                                            currentThreadCount());
        if (!check.error.empty())
            throw InputError("start-method: " + check.error);
    }
    data_ = loadDataset(config_.datasetSpec(), config_.testFraction, config_.seed);
    if (data_.train.rows == 0)
        throw InputError("dataset: \"" + config_.dataset + "\" has no training rows");
    model_ = makeModel(modelSpec);
    if (const auto why = model_->incompatibility(data_.train.view()); !why.empty())
        throw InputError("model: " + config_.model + " does not fit dataset " + config_.dataset +
                         ": " + why);
    const std::int64_t total = model_->layout().total();

    if (!isProcessMode(config_)) {
        params_ = ParameterStore::onHeap(total);
        trainView_ = data_.train.view();
    } else {
        // Everything the workers share lives in /dev/shm: say up front when it does not fit.
        const std::size_t paramBytes = std::size_t(total) * sizeof(float);
        const std::size_t needed =
            paramBytes * (config_.share ? 1 : std::size_t(config_.workers) + 1) +
            SharedDataset::bytesFor(data_.train) + (std::size_t(config_.workers) + 1) * 200000;
        const long long available = SharedSegment::freeBytes();
        if (available >= 0 && (long long)needed > available)
            throw RunError("shared memory: this run needs about " + mebibytes((long long)needed) +
                           " in /dev/shm (parameters, training data, telemetry) but only " +
                           mebibytes(available) +
                           " is free; free space there, enlarge it (mount -o remount,size=... "
                           "/dev/shm), or use a smaller model or dataset");
        params_ = ParameterStore::inSharedMemory(total, "parameters");
        sharedTrain_ = SharedDataset::create(data_.train);
        trainView_ = sharedTrain_.view();
        // The workers read the shared copy; the heap arrays are no longer needed.
        Dataset metadata;
        metadata.description = data_.train.description;
        metadata.rows = data_.train.rows;
        metadata.dim = data_.train.dim;
        metadata.numClasses = data_.train.numClasses;
        data_.train = std::move(metadata);
    }
    if (config_.init.empty())
        model_->initialize(params_.data(), config_.seed);
    else
        loadWeights(config_.init, model_->layout(), params_.data());
    if (isProcessMode(config_) && !config_.share) {
        initialParams_.assign(params_.data(), params_.data() + total);
        for (int r = 0; r < config_.workers; ++r) {
            replicas_.push_back(
                ParameterStore::inSharedMemory(total, "replica" + std::to_string(r)));
            std::memcpy(replicas_.back().data(), params_.data(),
                        std::size_t(total) * sizeof(float));
        }
    }
    telemetry_ = Telemetry::create(std::uint32_t(config_.workers), std::uint32_t(config_.epochs));
    if (isProcessMode(config_)) {
        const auto check = checkStartMethod(config_.startMethod, cudaInitialisedInThisProcess(),
                                            currentThreadCount() + 1 /* the coordinator */);
        notes_.insert(notes_.end(), check.warnings.begin(), check.warnings.end());
    }
    prepared_ = true;
}

void Run::start() {
    prepare();
    if (coordinator_.joinable() || done_)
        throw RunError("this run was already started; create a new Run to train again");
    WorkerPlan base = makeWorkerPlan(config_, *model_, params_.data(), trainView_, telemetry_);
    base.updateLock = config_.mode == Mode::ThreadsLocked ? &updateLock_ : nullptr;
    if (isProcessMode(config_) && config_.startMethod == StartMethod::Forkserver && !forkServer_) {
        notes_.push_back("the fork server was started late, by a process that already runs " +
                         std::to_string(currentThreadCount()) +
                         " threads; start it first thing (as hogwild-lab does) to get the clean "
                         "state forkserver promises");
        forkServer_ = ForkServer::start(&workerProcessMain);
    }
    telemetry_.header().startNs = Telemetry::nowNs();
    telemetry_.header().epochGate = data_.test.rows > 0 ? 1 : 0;
    telemetry_.setRunState(RunState::Running);
    if (isProcessMode(config_))
        launchProcesses(base);
    else
        launchThreads(base);
    try {
        coordinator_ = std::thread([this] { coordinate(); });
    } catch (const std::system_error& e) {
        // Nobody would supervise the workers: stop them and end the run here.
        telemetry_.setCommand(RunCommand::Stop);
        endRun();
        throw RunError("cannot start the run's coordinator thread: " +
                       startFailureText(e.code().value()));
    }
}

void Run::launchThreads(const WorkerPlan& base) {
    for (std::uint32_t rank = 0; rank < base.workers; ++rank) {
        WorkerPlan plan = base;
        plan.rank = rank;
        telemetry_.worker(rank).launchNs.store(Telemetry::nowNs());
        try {
            workers_.emplace_back([plan] { runWorker(plan); });
        } catch (const std::system_error& e) {
            // As a process that cannot be started: the failure policy decides.
            telemetry_.failWorker(rank, "worker " + std::to_string(rank) +
                                            " could not be started: cannot create its thread: " +
                                            startFailureText(e.code().value()));
        }
    }
}

void Run::launchProcesses(const WorkerPlan& base) {
    launcher_ = std::make_unique<ProcessLauncher>(config_.startMethod, forkServer_);
    const std::string experiment = config_.toJson();
    for (std::uint32_t rank = 0; rank < base.workers; ++rank) {
        WorkerPlan plan = base;
        plan.rank = rank;
        ParameterStore& store = config_.share ? params_ : replicas_[rank];
        plan.params = store.data();
        WorkerProcessSpec spec{telemetry_.name(), store.segmentName(), sharedTrain_.name(),
                               experiment, rank};
        auto& status = telemetry_.worker(rank);
        status.launchNs.store(Telemetry::nowNs());
        try {
            const pid_t pid = launcher_->launch(
                rank,
                [plan] {
                    runWorker(plan);
                    return plan.telemetry->worker(plan.rank).state.load() ==
                                   std::uint32_t(WorkerState::Failed)
                               ? 1
                               : 0;
                },
                spec.toArgs());
            status.pid.store(pid);
        } catch (const std::exception& e) {
            telemetry_.failWorker(rank, "worker " + std::to_string(rank) +
                                            " could not be started: " + e.what());
        }
    }
}

bool Run::gateReached(std::uint32_t epoch) const {
    // Workers that died never arrive; the others must all have finished `epoch`.
    bool anyAlive = false;
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r) {
        const auto& w = telemetry_.worker(r);
        if (w.state.load(std::memory_order_acquire) == std::uint32_t(WorkerState::Failed))
            continue;
        anyAlive = true;
        if (w.epoch.load(std::memory_order_acquire) < epoch)
            return false;
    }
    return anyAlive;
}

bool Run::allWorkersDown() const {
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r)
        if (telemetry_.worker(r).state.load() != std::uint32_t(WorkerState::Failed))
            return false;
    return true;
}

void Run::superviseWorkers() {
    if (launcher_) {
        for (const auto& exit : launcher_->reap()) {
            auto& w = telemetry_.worker(exit.rank);
            const auto state = WorkerState(w.state.load(std::memory_order_acquire));
            const bool clean = WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0 &&
                               (state == WorkerState::Finished || state == WorkerState::Stopped);
            if (clean)
                continue;
            std::string why = "worker " + std::to_string(exit.rank) + " (pid " +
                              std::to_string(exit.pid) + ") " +
                              ProcessLauncher::describe(exit.status) + " after " +
                              std::to_string(w.steps.load()) + " steps";
            if (state == WorkerState::Failed && !telemetry_.failureText(exit.rank).empty())
                why += ": " + telemetry_.failureText(exit.rank);
            telemetry_.failWorker(exit.rank, why);
        }
    }
    // Report each failure once and apply the policy.
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r) {
        const std::string text = telemetry_.failureText(r);
        if (text.empty() || std::find(workerFailures_.begin(), workerFailures_.end(), text) !=
                                workerFailures_.end())
            continue;
        workerFailures_.push_back(text);
        if (config_.onWorkerFailure == FailurePolicy::Stop)
            telemetry_.setCommand(RunCommand::Stop);
    }
}

void Run::updateReplicaDistances() {
    if (replicas_.empty())
        return;
    std::vector<const float*> views;
    for (const auto& r : replicas_)
        views.push_back(r.data());
    std::vector<double> distances;
    hogwild::replicaDistances(views, params_.size(), distances);
    for (std::uint32_t r = 0; r < distances.size(); ++r)
        telemetry_.worker(r).replicaDistance.store(float(distances[r]));
}

void Run::coordinate() {
    auto& header = telemetry_.header();
    auto lastDistances = Telemetry::nowNs();
    for (std::uint32_t epoch = 1; epoch <= std::uint32_t(config_.epochs); ++epoch) {
        bool arrived = false;
        while (true) {
            const auto a = header.arrivals.load(std::memory_order_acquire);
            superviseWorkers();
            if (gateReached(epoch)) {
                arrived = true;
                break;
            }
            if (telemetry_.command() == RunCommand::Stop || allWorkersDown())
                break;
            if (Telemetry::nowNs() - lastDistances > 100'000'000) {
                updateReplicaDistances();
                lastDistances = Telemetry::nowNs();
            }
            futexWait(header.arrivals, a, 50);
        }
        if (!arrived)
            break;
        updateReplicaDistances();
        evaluate(epoch);
        header.released.store(epoch, std::memory_order_release);
        futexWakeAll(header.released);
    }
    endRun();
}

void Run::endRun() {
    finishWorkers();
    // Every worker is gone: the segments' names go now (the parent's mappings
    // stay valid, so the summary, the monitor and exports still read them).
    telemetry_.unlink();
    params_.unlink();
    sharedTrain_.unlink();
    for (auto& r : replicas_)
        r.unlink();
    summarise();
}

void Run::finishWorkers() {
    for (auto& w : workers_)
        w.join();
    if (!launcher_)
        return;
    // Every worker leaves after its current step once told to stop; one that
    // does not within 10 s is killed, so the parent never hangs.
    if (launcher_->running() > 0 && telemetry_.command() != RunCommand::Stop &&
        telemetry_.header().released.load() < std::uint32_t(config_.epochs))
        telemetry_.setCommand(RunCommand::Stop);
    const auto deadline = Telemetry::nowNs() + 10'000'000'000ll;
    while (launcher_->running() > 0) {
        superviseWorkers();
        if (Telemetry::nowNs() > deadline)
            launcher_->killAll();
        // Workers are exiting (a few ms at most): poll finely so the wall
        // time does not carry the polling period.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    superviseWorkers();
}

void Run::pause() {
    if (!prepared_ || done_)
        return;
    telemetry_.setCommand(RunCommand::Pause);
    telemetry_.setRunState(RunState::Paused);
}

void Run::resume() {
    if (!prepared_ || done_ || telemetry_.command() != RunCommand::Pause)
        return;
    telemetry_.setCommand(RunCommand::Run);
    telemetry_.setRunState(RunState::Running);
}

void Run::stop() {
    if (prepared_)
        telemetry_.setCommand(RunCommand::Stop);
}

bool Run::wait(std::chrono::milliseconds timeout) {
    const auto deadline = timeout == std::chrono::milliseconds::max()
                              ? std::chrono::steady_clock::time_point::max()
                              : std::chrono::steady_clock::now() + timeout;
    while (!done_.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (coordinator_.joinable())
        coordinator_.join();
    return true;
}

void Run::writeWeights(const std::filesystem::path& file) const {
    const auto refs = tensorRefs(model_->layout(), params_.data());
    std::string suffix = file.extension().string();
    for (auto& c : suffix)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (suffix == ".npz") {
        writeNpz(file, refs);
        return;
    }
    writeSafetensors(file, refs,
                     {{"format", "pt"},
                      {"producer", std::string("hogwild-lab ") + HWL_VERSION},
                      {"model", config_.model},
                      {"dataset", config_.dataset},
                      {"epochs_completed", std::to_string(summary().epochsCompleted)}});
}

RunSummary Run::summary() const {
    std::lock_guard lock(summaryMutex_);
    return summary_;
}

void Run::evaluate(std::uint32_t epoch) {
    const auto start = Telemetry::nowNs();
    const DatasetView test = data_.test.view();
    Sample s;
    s.kind = Sample::Eval;
    s.worker = -1;
    s.epoch = epoch;
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r) {
        s.step += telemetry_.worker(r).steps.load();
        s.samples += telemetry_.worker(r).samples.load();
    }
    if (test.rows > 0) {
        const EvalResult total = parallelReduce<EvalResult>(
            test.rows, 1024,
            [&](std::int64_t begin, std::int64_t end) {
                Workspace<float> scratch;
                return model_->evaluate(params_.data(), test, begin, end, scratch);
            },
            [](EvalResult& a, const EvalResult& b) {
                a.lossSum += b.lossSum;
                a.correct += b.correct;
                a.count += b.count;
            });
        s.loss = float(total.meanLoss());
        s.accuracy = float(total.accuracy());
        std::lock_guard lock(summaryMutex_);
        summary_.evaluated = true;
        summary_.testLoss = total.meanLoss();
        summary_.testAccuracy = total.accuracy();
    }
    s.time = telemetry_.elapsed();
    telemetry_.header().evalRing.push(s);
    evalSeconds_ += double(Telemetry::nowNs() - start) * 1e-9;
    std::lock_guard lock(summaryMutex_);
    summary_.epochsCompleted = int(epoch);
}

void Run::summarise() {
    const auto workers = telemetry_.workerCount();
    RunSummary s = summary();
    const std::int64_t nowNs = Telemetry::nowNs();
    s.wallSeconds = double(nowNs - telemetry_.header().startNs) * 1e-9;
    // Training time runs from the first step any worker took (start-up is
    // reported on its own) to the moment the last worker left its training
    // loop (tearing processes down is not training), less the test
    // evaluations. A worker killed mid-run never leaves its loop: when no
    // worker did, the window runs to now.
    std::int64_t firstStepNs = -1, lastFinishNs = -1;
    for (std::uint32_t r = 0; r < workers; ++r) {
        const auto& w = telemetry_.worker(r);
        if (w.startupNs.load() >= 0) {
            const auto at = w.launchNs.load() + w.startupNs.load();
            firstStepNs = firstStepNs < 0 ? at : std::min(firstStepNs, at);
        }
        lastFinishNs = std::max(lastFinishNs, w.finishNs.load(std::memory_order_acquire));
    }
    if (firstStepNs < 0)
        firstStepNs = telemetry_.header().startNs;
    if (lastFinishNs < 0)
        lastFinishNs = nowNs;
    s.trainSeconds = std::max(1e-9, double(lastFinishNs - firstStepNs) * 1e-9 - evalSeconds_);
    double lastLossSum = 0;
    updateReplicaDistances();
    for (std::uint32_t r = 0; r < workers; ++r) {
        const auto& w = telemetry_.worker(r);
        s.steps += w.steps.load();
        s.samples += w.samples.load();
        s.droppedSamples += w.ring.dropped.load();
        const auto startup = w.startupNs.load();
        s.startupSeconds.push_back(startup >= 0 ? double(startup) * 1e-9 : -1.0);
        lastLossSum += w.lastEpochLoss.load();
        s.divergence.push_back(replicas_.empty() ? w.lastDivergence.load()
                                                 : w.replicaDistance.load());
    }
    s.workerFailures = workerFailures_;
    if (!workerFailures_.empty())
        s.failure = workerFailures_.front();
    s.trainLoss = lastLossSum / double(workers);
    s.samplesPerSecond = double(s.samples) / s.trainSeconds;
    const bool failedOut = !workerFailures_.empty() &&
                           (config_.onWorkerFailure == FailurePolicy::Stop || allWorkersDown());
    if (failedOut)
        s.state = RunState::Failed;
    else if (s.epochsCompleted < config_.epochs)
        s.state = RunState::Stopped;
    else
        s.state = RunState::Finished;

    // The not-shared pitfall, detected from the parameters themselves.
    if (!replicas_.empty()) {
        const bool untouched = std::memcmp(initialParams_.data(), params_.data(),
                                           initialParams_.size() * sizeof(float)) == 0;
        bool replicasTrained = false;
        for (const auto& r : replicas_)
            replicasTrained =
                replicasTrained || std::memcmp(r.data(), initialParams_.data(),
                                               initialParams_.size() * sizeof(float)) != 0;
        if (untouched && replicasTrained) {
            std::string distances;
            for (std::size_t r = 0; r < s.divergence.size(); ++r)
                distances +=
                    (r ? ", " : "") + std::to_string(r) + ": " + std::to_string(s.divergence[r]);
            s.explanations.push_back(
                "parameters were not shared: each of the " + std::to_string(workers) +
                " workers trained its own copy; the exported model is the untouched initial "
                "model. The workers' copies drifted apart (L2 distance from their mean: " +
                distances +
                "). This is the blog's \"scene 3\" (model.share_memory() not called): PyTorch "
                "with fork loses the training silently, with spawn it moves the parameters to "
                "shared memory anyway. Fix: drop --no-share.");
        }
    }
    {
        std::lock_guard lock(summaryMutex_);
        summary_ = s;
    }
    telemetry_.setRunState(s.state);
    done_.store(true, std::memory_order_release);
}

} // namespace hwl
