#include "strategy/hoststrategy.h"

#include "launch/forksafety.h"
#include "launch/workerargs.h"
#include "store/sharedsegment.h"
#include "train/epochplan.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <cstring>

namespace hwl {

std::shared_ptr<const EpochPlan> Strategy::epochPlan(std::int64_t trainRows) const {
    return std::make_shared<SliceEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                            config_.split, config_.shuffle, config_.seed);
}

float Strategy::finalDivergence(const Telemetry& telemetry, std::uint32_t rank) const {
    return telemetry.worker(rank).lastDivergence.load();
}

void Strategy::trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const {
    WorkerSetup setup = setupWorker(env, rank);
    runWorker(setup);
}

SgdSettings sgdSettings(const ExperimentConfig& config) {
    return {float(config.lr), float(config.momentum), float(config.weightDecay)};
}

void HostStrategy::checkSharedMemory(const RunResources& run) const {
    // Everything the workers share lives in /dev/shm: say up front when it does not fit.
    const std::int64_t total = run.model.layout().total();
    const std::size_t needed = ParameterStore::segmentBytes(total, config_.lostUpdates) +
                               std::size_t(total) * sizeof(float) * extraStores() +
                               SharedDataset::bytesFor(run.data.train) + extraSharedBytes() +
                               (std::size_t(config_.workers) + 1) * 200000;
    const long long available = SharedSegment::freeBytes();
    if (available >= 0 && (long long)needed > available)
        throw RunError("shared memory: this run needs about " + mebibytes((long long)needed) +
                       " in /dev/shm (parameters, training data, telemetry) but only " +
                       mebibytesDown(available) +
                       " is free; free space there, enlarge it (mount -o remount,size=... "
                       "/dev/shm), or use a smaller model or dataset");
}

void HostStrategy::prepare(RunResources& run, const float* initial) {
    const std::int64_t total = run.model.layout().total();
    if (place() == StorePlace::SharedMemory)
        checkSharedMemory(run);
    // The scene-2 pitfall: the parameters stay in this process's private
    // memory, and the workers are started all the same.
    const bool neverShared = config_.spawnBeforeShare && place() == StorePlace::SharedMemory;
    params_ = run.backend.allocate(total, neverShared ? StorePlace::Heap : place(), "parameters",
                                   config_.lostUpdates);
    if (neverShared)
        neverShared_ = SharedSegment::unusedName("parameters");
    std::memcpy(params_.data(), initial, std::size_t(total) * sizeof(float));
    prepareWorkerStores(run, initial);
    if (place() == StorePlace::Heap) {
        trainView_ = run.data.train.view();
        return;
    }
    sharedTrain_ = SharedDataset::create(run.data.train);
    trainView_ = sharedTrain_.view();
    if (config_.transport != Transport::Mpi) {
        const std::string json = run.config.toJson();
        experiment_ = SharedSegment::create("experiment", sizeof(std::uint64_t) + json.size());
        const std::uint64_t n = json.size();
        std::memcpy(experiment_.data(), &n, sizeof n);
        std::memcpy(static_cast<char*>(experiment_.data()) + sizeof n, json.data(), json.size());
    }
    // The workers read the shared copy; the heap arrays are no longer needed.
    Dataset metadata;
    metadata.description = run.data.train.description;
    metadata.rows = run.data.train.rows;
    metadata.dim = run.data.train.dim;
    metadata.numClasses = run.data.train.numClasses;
    run.data.train = std::move(metadata);
}

WorkerJob HostStrategy::job(RunResources& run, std::uint32_t rank) {
    WorkerJob job;
    const WorkerEnvironment env{run.config,       run.model,
                                run.backend,      run.telemetry,
                                trainView_,       workerStore(rank).data(),
                                collectiveName(), workerStore(rank).versions()};
    job.body = [this, env, rank] {
        try {
            // In a child forked after its parent initialised CUDA, on purpose
            // (--cuda-before-fork --force-unsafe-fork): what CUDA does here.
            if (config_.forceUnsafeFork && cudaInitialisedInThisProcess())
                if (const std::string why = cudaInForkedWorker(); !why.empty()) {
                    env.telemetry.failWorker(rank, "worker " + std::to_string(rank) +
                                                       " was forked after its parent "
                                                       "initialised CUDA, and CUDA fails in it: " +
                                                       why);
                    return 1;
                }
            trainWorker(env, rank);
        } catch (const std::exception& e) {
            env.telemetry.failWorker(rank, "worker " + std::to_string(rank) +
                                               " could not start: " + e.what());
        }
        return workerExitCode(env.telemetry, rank);
    };
    if (workersAreProcesses(config_)) {
        WorkerProcessSpec spec;
        spec.telemetry = run.telemetry.name();
        spec.parameters = neverShared_.empty() ? workerStore(rank).segmentName() : neverShared_;
        spec.data = sharedTrain_.name();
        spec.rank = rank;
        spec.collective = collectiveName();
        if (experiment_.data()) // this machine's workers
            spec.experimentSegment = experiment_.name();
        else // MPI ranks, maybe on other hosts
            spec.experiment = run.config.toJson();
        job.roleArgs = spec.toArgs();
    }
    return job;
}

WorkerSetup HostStrategy::setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const {
    WorkerSetup setup;
    setup.rank = rank;
    setup.epochs = env.config.epochs;
    setup.batch = env.config.batch;
    setup.telemetry = &env.telemetry;
    setup.params = env.params;
    setup.kernel = env.backend.makeKernel(env.model, env.train, sgdSettings(env.config), rank,
                                          std::uint32_t(env.config.workers));
    setup.rule = makeRule(env, rank);
    setup.plan = epochPlan(env.train.rows);
    setup.watchPeers = watchesPeers();
    return setup;
}

std::unique_ptr<UpdateRule> HostStrategy::makeRule(const WorkerEnvironment& env,
                                                   std::uint32_t rank) const {
    return makeHogwildUpdate(env.model.layout().total(), measureStaleness(),
                             countedUpdates(env, rank));
}

void HostStrategy::explain(RunSummary& summary) const {
    if (!neverShared_.empty())
        summary.explanations.push_back(
            "Unable to open shared memory (the blog's scene 2): the parameters were never put "
            "in a shared-memory segment before the workers started (--spawn-before-share; in "
            "PyTorch, model.share_memory() not called before mp.spawn). A spawned or "
            "fork-server worker is a fresh process: it shares nothing with the parent but what "
            "it opens by name, so it could not open " +
            neverShared_ +
            " and stopped before its first step. (PyTorch's own message: \"RuntimeError: "
            "Unable to open shared memory\"; there passing a model to mp.spawn usually moves "
            "it into shared memory by itself, and the error comes when the segment is gone "
            "by the time the child opens it.) Fix: share the parameters before starting the "
            "workers: drop --spawn-before-share (in the window, untick the pitfall).");
    if (!config_.lostUpdates)
        return;
    summary.remarks.push_back(
        "lost updates: each step writes its parameters in blocks of 32; a block's write "
        "counts as lost when another worker wrote the same block between this worker's "
        "read of it and its own write, so that one of the two writes may have replaced the "
        "other's unseen (an upper bound per value: two overlapping writes can miss each "
        "other element by element)" +
        lostUpdatesNote());
}

UpdateCounting HostStrategy::countedUpdates(const WorkerEnvironment& env, std::uint32_t rank) {
    if (!env.versions)
        return {};
    return {env.versions, &env.telemetry.worker(rank)};
}

void HostStrategy::finish() {
    params_.unlink();
    sharedTrain_.unlink();
    experiment_.unlink();
}

} // namespace hwl
