#include "run/run.h"

#include "config/fields.h"
#include "io/optimizerstate.h"
#include "io/runmanifest.h"
#include "io/weightsio.h"
#include "launch/devices.h"
#include "launch/forksafety.h"
#include "launch/forkserver.h"
#include "run/runimpl.h"
#include "run/trainingdata.h"
#include "run/workerrole.h"
#include "store/sharedsegment.h"
#include "strategy/devicestrategy.h"
#include "strategy/registry.h"
#include "strategy/replicatransport.h"
#include "strategy/validation.h"
#include "util/alignedvector.h"
#include "util/cancel.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <system_error>
#include <thread>

namespace hwl {

namespace {
/// The start-method checks for modes with process workers: refused (fork
/// after CUDA) before anything is loaded; warnings (fork with threads) noted.
void checkStartMethodNow(const Run::Impl& run, int extraThreads,
                         std::vector<std::string>* warnings) {
    if (!usesStartMethod(run.config))
        return;
    // --cuda-before-fork in a process that never initialises CUDA (the
    // window's) is checked as if it had.
    const bool cuda = cudaInitialisedInThisProcess() || run.config.cudaBeforeFork;
    const auto check =
        checkStartMethod(run.config.startMethod, cuda, currentThreadCount() + extraThreads);
    if (!check.error.empty() && run.config.forceUnsafeFork && warnings) {
        warnings->push_back("--force-unsafe-fork: " + check.error +
                            " (forking anyway, as asked: each worker tries CUDA first and "
                            "reports what it gets)");
        return;
    }
    if (!check.error.empty() && !run.config.forceUnsafeFork)
        throw InputError("start-method: " + check.error);
    if (warnings)
        warnings->insert(warnings->end(), check.warnings.begin(), check.warnings.end());
}

/// --loader-workers K > 0: refused, saying what nested processes would cost
/// here (the blog's pitfall 3), as Python refuses a daemonic process children of
/// its own.
/// Refused when the run is prepared, not by validate(): the preset that
/// shows it is a valid experiment that this app will not run.
std::string nestedWorkersRefusal(const ExperimentConfig& c) {
    const StrategyTraits* s = findStrategy(c);
    const std::string k = std::to_string(c.loaderWorkers);
    if (!workersAreProcesses(c))
        return "loader-workers " + k + " refused: the workers of mode " + (s ? s->name : c.mode) +
               " are threads of this process, reading their batches straight from the "
               "training data in memory; there are no loader processes to start (use 0)";
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const long long workers = c.workers, loaders = workers * c.loaderWorkers;
    const long long all = workers + loaders;
    return "loader-workers " + k +
           " refused: nested processes (workers that start workers; "
           "PyTorch: a DataLoader with num_workers > 0 inside a worker process). Each of the " +
           std::to_string(workers) + " worker processes would start " + k +
           " loader processes of its own: " + std::to_string(all) + " processes (" +
           std::to_string(workers) + " workers + " + std::to_string(loaders) + " loaders) on " +
           std::to_string(cores) + " core" + (cores == 1 ? "" : "s") + ", about " +
           std::to_string((all + cores - 1) / cores) +
           " to a core, all copying batches that the workers can read themselves from the "
           "one shared copy of the data; and a worker that dies or is killed leaves its "
           "loaders orphaned (Python refuses outright: \"daemonic processes are not allowed "
           "to have children\"). Use --loader-workers 0 (PyTorch: num_workers=0 in the "
           "workers): this app's workers read their batches from shared memory themselves";
}

/// Why the GPU modes of `config` cannot run on this machine (no device, too
/// few GPUs), or empty. Probes the devices in a child process (once).
std::string deviceShortfall(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    if (!t || !t->cuda || !t->unavailable.empty())
        return {};
    const DeviceList list = listDevices();
    if (list.devices.empty())
        return list.unavailable;
    const int gpus = t->takes(StrategySetting::GpuReplicas) ? gpusFor(config) : 1;
    if (int(list.devices.size()) < gpus)
        return std::to_string(config.workers) + " replicas at " +
               std::to_string(config.replicasPerGpu) + " per GPU need " + std::to_string(gpus) +
               " GPUs, and this machine has " + std::to_string(list.devices.size()) +
               ": raise --replicas-per-gpu or lower --workers";
    return {};
}

} // namespace

void Run::Impl::prepare(const std::function<bool()>& stopWhen) {
    if (prepared)
        return;
    const CancelScope cancel([this, &stopWhen] {
        return stopBeforeStart.load(std::memory_order_relaxed) || (stopWhen && stopWhen());
    });
    throwIfCancelled();
    SharedSegment::cleanupStaleSegments();
    if (config.loaderWorkers > 0)
        throw InputError("loader-workers: " + nestedWorkersRefusal(config));
    const ModelSpec modelSpec = config.modelSpec();
    strategy = createStrategy(config);
    backend = &strategy->backend(BackendRole::Host);
    if (const std::string why = deviceShortfall(config); !why.empty())
        throw InputError("device: " + why);
    if (config.forceUnsafeFork && cudaForbiddenHere())
        throw InputError("force-unsafe-fork: the window's process never initialises CUDA, so "
                         "its workers cannot show what CUDA does after a fork; run it from the "
                         "command line: hogwild-lab --headless --mode processes --start-method "
                         "fork --cuda-before-fork --force-unsafe-fork");
    if (config.cudaBeforeFork)
        notes.push_back(initialiseCudaOnPurpose());
    checkStartMethodNow(*this, 0, nullptr);
    data = loadTrainingData(config, info.normalization);
    throwIfCancelled();
    model = makeModel(modelSpec);
    checkModelFits(*model, data, config);
    const std::int64_t total = model->layout().total();
    AlignedVector<float> initial(std::size_t(total), 0.0f);
    initialParameters(initial.data());
    measureStart(initial.data());
    checkTarget(initial.data());
    checkEvalEvery();

    info.mode = describeMode(config);
    info.trainDescription = data.train.description;
    info.testDescription = data.test.description;
    info.trainRows = data.train.rows;
    info.testRows = data.test.rows;
    info.parameters = total;
    info.processes = workersAreProcesses(config);
    info.divergence = strategy->traits().divergence;
    info.samplesPerEpoch = strategy->epochPlan(data.train.rows)->samplesPerEpoch();

    resources = std::make_unique<RunResources>(
        RunResources{config, *model, *backend, telemetry, data, notes, resume, &sharedResume});
    strategy->prepare(*resources, initial.data());
    telemetry = Telemetry::create(std::uint32_t(config.workers), std::uint32_t(config.epochs));
    checkStartMethodNow(*this, 1 /* the coordinator */, &notes);
    prepared = true;
    telemetry.setPace(pace.load()); // after `prepared`: a setPace() meanwhile is not lost
}

void Run::Impl::initialParameters(float* initial) {
    if (strategy->traits().takes(StrategySetting::Resume))
        resume.assign(std::size_t(config.workers), WorkerResume{});
    if (config.resume.empty()) {
        if (config.init.empty())
            model->initialize(initial, config.seed);
        else
            loadWeights(config.init, model->layout(), initial);
        return;
    }
    const std::filesystem::path dir(config.resume);
    if (const FolderCheck check = checkRunFolder(dir, true);
        check.trust == FolderTrust::Broken || check.trust == FolderTrust::Interrupted)
        throw InputError("resume: " + trustText(dir, check) +
                         (check.trust == FolderTrust::Broken
                              ? "; continue another run, or start this one again"
                              : "; --resume " + dir.string() +
                                    " without --out continues it in its own folder, which "
                                    "completes it first"));
    for (const char* name : {"weights.safetensors", "optimizer.safetensors"}) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(dir / name, ec))
            throw InputError("resume: " + quoted(dir) + " holds no " + name +
                             ": name the --out folder of a run of mode " +
                             listChoices(modesTaking(StrategySetting::Resume), false));
    }
    loadWeights(dir / "weights.safetensors", model->layout(), initial, "resume");
    resume =
        readOptimizerState(dir / "optimizer.safetensors", model->layout(), config, &sharedResume);
    summary.epochsCompleted =
        int(std::min_element(resume.begin(), resume.end(), [](auto& a, auto& b) {
                return a.epochsDone < b.epochsDone;
            })->epochsDone);
}

void Run::Impl::start() {
    prepare({});
    if (coordinator.joinable() || done)
        throw RunError("this run was already started; create a new Run to train again");
    launcher = chooseLauncher();
    if (strategy->traits().cuda)
        launcher = makeDeviceLauncher(std::move(launcher));
    telemetry.header().startNs = Telemetry::nowNs();
    telemetry.header().epochGate = data.test.rows > 0 ? 1 : 0;
    telemetry.header().evalEvery = std::uint32_t(config.evalEvery);
    telemetry.header().traceSliceNs = traceSliceNs;
    telemetry.setRunState(RunState::Running);
    // A Stop that came while the data loaded, after loading last looked
    // (Run::stop() saw the run not yet prepared): the workers stop at once.
    if (stopBeforeStart.load())
        telemetry.setCommand(RunCommand::Stop);
    launchWorkers();
    try {
        coordinator = std::thread([this] { coordinate(); });
        started.store(true, std::memory_order_release);
    } catch (const std::system_error& e) {
        // Nobody would supervise the workers: stop them and end the run here.
        telemetry.setCommand(RunCommand::Stop);
        endRun();
        throw RunError("cannot start the run's coordinator thread: " +
                       startFailureText(e.code().value()));
    }
}

std::unique_ptr<Launcher> Run::Impl::chooseLauncher() {
    if (auto own = strategy->makeLauncher(*resources))
        return own;
    if (!usesStartMethod(config))
        return makeThreadLauncher();
    if (config.startMethod == StartMethod::Forkserver) {
        forkServer = processForkServer();
        if (!forkServer) {
            notes.push_back("the fork server was started late, by a process that already runs " +
                            std::to_string(currentThreadCount()) +
                            " threads; start it first thing (as hogwild-lab does) to get the "
                            "clean state forkserver promises");
            forkServer = ForkServer::start(&workerProcessMain);
        }
    }
    return makeProcessLauncher(config.startMethod, forkServer);
}

void Run::Impl::launchWorkers() {
    for (std::uint32_t rank = 0; rank < std::uint32_t(config.workers); ++rank) {
        auto& status = telemetry.worker(rank);
        status.launchNs.store(Telemetry::nowNs());
        try {
            const pid_t pid = launcher->launch(rank, strategy->job(*resources, rank));
            // 0: not known here (an MPI rank's comes with its greeting,
            // which rank 0's worker may already have stored: kept).
            if (launcher->processes() && pid > 0)
                status.pid.store(pid);
        } catch (const std::exception& e) {
            // As a worker that died at once: the failure policy decides.
            telemetry.failWorker(rank, strategy->traits().workerNoun + " " + std::to_string(rank) +
                                           " could not be started: " + e.what());
        }
    }
}

Run::Run(ExperimentConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {
    validateExperimentOrThrow(impl_->config);
}

Run::~Run() {
    if (impl_->coordinator.joinable()) {
        stop();
        impl_->coordinator.join();
    }
}

void Run::prepare(const std::function<bool()>& stopWhen) {
    impl_->prepare(stopWhen);
}

void Run::start() {
    impl_->start();
}

void Run::pause() {
    if (!impl_->prepared || impl_->done)
        return;
    impl_->telemetry.setCommand(RunCommand::Pause);
    impl_->telemetry.setRunState(RunState::Paused);
}

void Run::resume() {
    if (!impl_->prepared || impl_->done || impl_->telemetry.command() != RunCommand::Pause)
        return;
    impl_->telemetry.setCommand(RunCommand::Run);
    impl_->telemetry.setRunState(RunState::Running);
}

void Run::setPace(std::uint32_t stepsPerSecond) {
    impl_->pace.store(stepsPerSecond);
    if (impl_->prepared)
        impl_->telemetry.setPace(impl_->pace.load());
}

void Run::setTrace(bool on) {
    if (impl_->started.load(std::memory_order_acquire))
        throw RunError("setTrace: the run has started; trace it from its start");
    impl_->traceSliceNs = on ? kTraceSliceNs : 0;
}

void Run::step() {
    if (!canStep())
        return;
    if (impl_->prepared && !impl_->done && impl_->telemetry.command() == RunCommand::Pause)
        impl_->telemetry.grantStep();
}

bool Run::canStep() const {
    // Remote ranks (MPI's) have a telemetry segment of their own on their host.
    const StrategyTraits* t = findStrategy(impl_->config);
    return !(t && t->takes(StrategySetting::Transport) &&
             transportEntry(impl_->config.transport).remoteRanks);
}

void Run::stop() {
    impl_->stopBeforeStart.store(true);
    if (impl_->prepared)
        impl_->telemetry.setCommand(RunCommand::Stop);
}

bool Run::wait(std::chrono::milliseconds timeout) {
    const auto deadline = timeout == std::chrono::milliseconds::max()
                              ? std::chrono::steady_clock::time_point::max()
                              : std::chrono::steady_clock::now() + timeout;
    // A run never started (its data still loading elsewhere, or its start
    // failed) has nothing to wait for: without this, quitting the window
    // after a failed start waited forever.
    if (!impl_->started.load(std::memory_order_acquire))
        return true;
    while (!impl_->done.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (impl_->coordinator.joinable())
        impl_->coordinator.join();
    return true;
}

bool Run::finished() const {
    return impl_->done.load(std::memory_order_acquire);
}

const ExperimentConfig& Run::config() const {
    return impl_->config;
}

const RunInfo& Run::info() const {
    return impl_->info;
}

bool Run::hasParameters() const {
    return impl_->prepared;
}

std::vector<float> Run::parameters() const {
    if (!impl_->prepared)
        return {};
    const float* p = impl_->strategy->hostParameters();
    return {p, p + impl_->info.parameters};
}

TelemetryReader& Run::telemetry() {
    return impl_->reader;
}

RunSummary Run::summary() const {
    std::lock_guard lock(impl_->summaryMutex);
    return impl_->summary;
}

const std::vector<std::string>& Run::notes() const {
    return impl_->notes;
}

} // namespace hwl
