#include "run.h"

#include "errors.h"
#include "parallel.h"
#include "weightsio.h"
#include "workerloop.h"


namespace hwl {

Run::Run(ExperimentConfig config) : config_(std::move(config)) { config_.validateOrThrow(); }

Run::~Run() {
    if (coordinator_.joinable()) {
        stop();
        coordinator_.join();
    }
}

void Run::prepare() {
    if (prepared_)
        return;
    SharedSegment::cleanupStaleSegments();
    const ModelSpec modelSpec = config_.modelSpec();
    data_ = loadDataset(config_.datasetSpec(), config_.testFraction, config_.seed);
    if (data_.train.rows == 0)
        throw InputError("dataset: \"" + config_.dataset + "\" has no training rows");
    model_ = makeModel(modelSpec);
    if (const auto why = model_->incompatibility(data_.train.view()); !why.empty())
        throw InputError("model: " + config_.model + " does not fit dataset " + config_.dataset +
                         ": " + why);
    params_.assign(std::size_t(model_->layout().total()), 0.0f);
    if (config_.init.empty())
        model_->initialize(params_.data(), config_.seed);
    else
        loadWeights(config_.init, model_->layout(), params_.data());
    telemetry_ = Telemetry::create(std::uint32_t(config_.workers), std::uint32_t(config_.epochs));
    prepared_ = true;
}

void Run::start() {
    prepare();
    if (coordinator_.joinable() || done_)
        throw RunError("this run was already started; create a new Run to train again");
    const auto workers = std::uint32_t(config_.workers);
    WorkerPlan base;
    base.model = model_.get();
    base.params = params_.data();
    base.train = data_.train.view();
    base.telemetry = &telemetry_;
    base.workers = workers;
    base.epochs = config_.epochs;
    base.batch = config_.batch;
    base.split = config_.split;
    base.shuffle = config_.shuffle;
    base.seed = config_.seed;
    base.sgd = {float(config_.lr), float(config_.momentum), float(config_.weightDecay)};
    base.updateLock = config_.mode == Mode::ThreadsLocked ? &updateLock_ : nullptr;
    base.measureStaleness = workers > 1;
    telemetry_.header().startNs = Telemetry::nowNs();
    telemetry_.setRunState(RunState::Running);
    for (std::uint32_t rank = 0; rank < workers; ++rank) {
        WorkerPlan plan = base;
        plan.rank = rank;
        telemetry_.worker(rank).launchNs.store(Telemetry::nowNs());
        workers_.emplace_back([plan] { runWorker(plan); });
    }
    coordinator_ = std::thread([this] { coordinate(); });
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

void Run::coordinate() {
    const auto workers = telemetry_.workerCount();
    auto& header = telemetry_.header();
    auto anyFailed = [&] {
        for (std::uint32_t r = 0; r < workers; ++r)
            if (telemetry_.worker(r).state.load(std::memory_order_acquire) ==
                std::uint32_t(WorkerState::Failed))
                return true;
        return false;
    };
    for (std::uint32_t epoch = 1; epoch <= std::uint32_t(config_.epochs); ++epoch) {
        bool arrived = false;
        while (true) {
            const auto a = header.arrivals.load(std::memory_order_acquire);
            if (a >= workers * epoch) {
                arrived = true;
                break;
            }
            if (telemetry_.command() == RunCommand::Stop || anyFailed())
                break;
            futexWait(header.arrivals, a, 50);
        }
        if (!arrived)
            break;
        evaluate(epoch);
        header.released.store(epoch, std::memory_order_release);
        futexWakeAll(header.released);
    }
    for (auto& w : workers_)
        w.join();

    RunSummary s = summary();
    s.wallSeconds = telemetry_.elapsed();
    s.trainSeconds = std::max(1e-9, s.wallSeconds - evalSeconds_);
    double lastLossSum = 0;
    for (std::uint32_t r = 0; r < workers; ++r) {
        const auto& w = telemetry_.worker(r);
        s.steps += w.steps.load();
        s.samples += w.samples.load();
        s.droppedSamples += w.ring.dropped.load();
        const auto startup = w.startupNs.load();
        s.startupSeconds.push_back(startup >= 0 ? double(startup) * 1e-9 : -1.0);
        if (s.failure.empty())
            s.failure = telemetry_.failureText(r);
        lastLossSum += w.lastEpochLoss.load();
    }
    s.trainLoss = lastLossSum / double(workers);
    s.samplesPerSecond = double(s.samples) / s.trainSeconds;
    if (!s.failure.empty())
        s.state = RunState::Failed;
    else if (s.epochsCompleted < config_.epochs)
        s.state = RunState::Stopped;
    else
        s.state = RunState::Finished;
    {
        std::lock_guard lock(summaryMutex_);
        summary_ = s;
    }
    telemetry_.setRunState(s.state);
    done_.store(true, std::memory_order_release);
}

} // namespace hwl
