#include "strategy/hostparts.h"

#include "launch/forksafety.h"
#include "launch/workerargs.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstring>

namespace hwl {

void ParameterStores::allocateRun(const RunResources& run, const float* initial, StorePlace place,
                                  StoreExtras extras) {
    const std::int64_t total = run.model.layout().total();
    run_ = run.backend.allocate(total, place, "parameters", extras);
    std::memcpy(run_.data(), initial, std::size_t(total) * sizeof(float));
    float* state = run_.optimizerState();
    if (!state)
        return;
    const std::size_t n = std::size_t(run_.stateBuffers()) * std::size_t(total);
    const SharedStateResume* resumed = run.sharedState;
    if (resumed && resumed->state.size() == n) {
        std::copy(resumed->state.begin(), resumed->state.end(), state);
        *run_.stateSteps() = resumed->steps;
    } else {
        std::fill_n(state, n, optimizerOf(run.config).spec.initialState());
    }
}

ParameterStore& ParameterStores::addWorker(const RunResources& run, StorePlace place,
                                           const std::string& name, const float* initial) {
    const std::int64_t total = run.model.layout().total();
    workers_.push_back(run.backend.allocate(total, place, name, {}));
    if (initial)
        std::memcpy(workers_.back().data(), initial, std::size_t(total) * sizeof(float));
    return workers_.back();
}

void ParameterStores::unlink() {
    run_.unlink();
    for (auto& w : workers_)
        w.unlink();
}

void SharedTrainSet::place(RunResources& run, StorePlace where) {
    if (where == StorePlace::Heap) {
        view_ = run.data.train.view();
        return;
    }
    shared_ = SharedDataset::create(run.data.train);
    view_ = shared_.view();
    // The workers read the shared copy; the heap arrays are no longer needed.
    Dataset metadata;
    metadata.description = run.data.train.description;
    metadata.rows = run.data.train.rows;
    metadata.dim = run.data.train.dim;
    metadata.numClasses = run.data.train.numClasses;
    run.data.train = std::move(metadata);
}

void ExperimentSegment::create(const ExperimentConfig& config) {
    const std::string json = config.toJson();
    segment_ = SharedSegment::create("experiment", sizeof(std::uint64_t) + json.size());
    const std::uint64_t n = json.size();
    std::memcpy(segment_.data(), &n, sizeof n);
    std::memcpy(static_cast<char*>(segment_.data()) + sizeof n, json.data(), json.size());
}

StorePlace HostTraining::place() const {
    return workersAreProcesses(config_) ? StorePlace::SharedMemory : StorePlace::Heap;
}

void HostTraining::placeSharedMemory(const RunResources& run, const SharedNeeds& needs) const {
    // Everything the workers share lives in /dev/shm, or where it is too
    // small in anonymous memory files (store/sharedsegment.h): which, the
    // run says in a note.
    const std::int64_t total = run.model.layout().total();
    const std::size_t needed = ParameterStore::segmentBytes(total, storeExtras(config_)) +
                               std::size_t(total) * sizeof(float) * needs.workerStores +
                               SharedDataset::bytesFor(run.data.train) + needs.otherBytes +
                               (std::size_t(config_.workers) + 1) * 200000;
    if (const std::string note = SharedSegment::choosePlace(needed); !note.empty())
        run.notes.push_back(note);
}

void HostTraining::prepareParameters(RunResources& run, const float* initial,
                                     const SharedNeeds& needs, StorePlace where) {
    if (place() == StorePlace::SharedMemory)
        placeSharedMemory(run, needs);
    stores_.allocateRun(run, initial, where, storeExtras(config_));
}

void HostTraining::placeData(RunResources& run) {
    train_.place(run, place());
    if (place() == StorePlace::SharedMemory && usesStartMethod(config_))
        experiment_.create(run.config);
}

WorkerJob HostTraining::job(const Strategy& strategy, RunResources& run, std::uint32_t rank,
                            const HostWorker& worker) const {
    WorkerJob job;
    const bool processes = workersAreProcesses(config_);
    const WorkerEnvironment env{run.config,
                                run.model,
                                run.backend,
                                run.telemetry,
                                train_.view(),
                                worker.store->data(),
                                worker.collective,
                                worker.store->versions(),
                                !processes && rank < run.resume.size() ? &run.resume[rank]
                                                                       : nullptr,
                                sharedStateOf(*worker.store)};
    const bool forceUnsafeFork = config_.forceUnsafeFork;
    job.body = [&strategy, env, rank, forceUnsafeFork] {
        try {
            // In a child forked after its parent initialised CUDA, on purpose
            // (--cuda-before-fork --force-unsafe-fork): what CUDA does here.
            if (forceUnsafeFork && cudaInitialisedInThisProcess())
                if (const std::string why = cudaInForkedWorker(); !why.empty()) {
                    env.telemetry.failWorker(rank, "worker " + std::to_string(rank) +
                                                       " was forked after its parent "
                                                       "initialised CUDA, and CUDA fails in it: " +
                                                       why);
                    return 1;
                }
            // The worker's backend is decided here, in its own process or
            // thread (a device backend initialises its device when asked).
            strategy.trainWorker(env.on(strategy.backend(BackendRole::Worker)), rank);
        } catch (const std::exception& e) {
            env.telemetry.failWorker(rank, "worker " + std::to_string(rank) +
                                               " could not start: " + e.what());
        }
        return workerExitCode(env.telemetry, rank);
    };
    if (processes) {
        WorkerProcessSpec spec;
        spec.telemetry = run.telemetry.name();
        spec.parameters =
            worker.parametersName.empty() ? worker.store->segmentName() : worker.parametersName;
        spec.data = train_.name();
        spec.rank = rank;
        spec.collective = worker.collective;
        if (experiment_.exists()) // this machine's workers
            spec.experimentSegment = experiment_.name();
        else // MPI ranks, maybe on other hosts
            spec.experiment = run.config.toJson();
        job.roleArgs = spec.toArgs();
    }
    return job;
}

void HostTraining::finish() {
    stores_.unlink();
    train_.unlink();
    experiment_.unlink();
}

StoreExtras storeExtras(const ExperimentConfig& config) {
    StoreExtras extras;
    extras.versions = config.lostUpdates;
    if (config.optimizerState == StateSharing::Shared)
        extras.stateBuffers = std::int64_t(optimizerOf(config).spec.stateNames().size());
    return extras;
}

SharedOptimizerState sharedStateOf(ParameterStore& store) {
    return {store.optimizerState(), store.stateSteps()};
}

SharedStateResume copySharedState(const ParameterStore& store) {
    SharedStateResume copy;
    if (const float* state = store.optimizerState()) {
        copy.state.assign(state, state + store.stateBuffers() * store.size());
        copy.steps = *store.stateSteps(); // the workers are gone: nobody adds to it now
    }
    return copy;
}

WorkerSetup hostWorkerSetup(const WorkerEnvironment& env, std::uint32_t rank,
                            std::unique_ptr<UpdateRule> rule, std::shared_ptr<const EpochPlan> plan,
                            bool watchPeers) {
    const OptimizerSettings optimizer = optimizerOf(env.config);
    WorkerSetup setup;
    setup.rank = rank;
    setup.epochs = env.config.epochs;
    setup.batch = env.config.batch;
    setup.telemetry = &env.telemetry;
    setup.params = env.params;
    setup.kernel = env.backend.makeKernel(env.model, env.train, optimizer.spec, rank,
                                          std::uint32_t(env.config.workers));
    if (env.sharedState && !setup.kernel->shareOptimizerState(env.sharedState))
        throw RunError(std::string("--optimizer-state shared: the ") + env.backend.name() +
                       " backend's kernels keep their optimizer state where other workers "
                       "cannot share it");
    setup.rule = std::move(rule);
    setup.plan = std::move(plan);
    setup.schedule = optimizer.schedule;
    setup.accumulate = env.config.accumulate;
    setup.watchPeers = watchPeers;
    return setup;
}

UpdateCounting countedUpdates(const WorkerEnvironment& env, std::uint32_t rank) {
    if (!env.versions)
        return {};
    return {env.versions, &env.telemetry.worker(rank)};
}

void explainOptimizerState(RunSummary& summary, const ExperimentConfig& config,
                           const ParameterStore& store) {
    const std::string kind = toString(config.optimizer);
    const bool adam =
        config.optimizer == OptimizerKind::Adam || config.optimizer == OptimizerKind::AdamW;
    if (summary.workerSteps.size() < 2)
        return;
    std::string each;
    for (const std::uint64_t steps : summary.workerSteps)
        each += (each.empty() ? "" : ", ") + std::to_string(steps);
    const SharedStateResume shared = copySharedState(store);
    if (!shared.state.empty()) {
        summary.remarks.push_back(
            "optimizer steps: shared " + std::to_string(shared.steps) + " (--optimizer-state " +
            "shared: one " + kind + " step count for the " +
            std::to_string(summary.workerSteps.size()) + " workers' updates, theirs " + each +
            ", counted atomically so none is lost; its state beside the parameters, updated " +
            "without a lock like them" +
            (config.lostUpdates ? ", in the same counted blocks" : "") + ")");
        return;
    }
    // Per worker, the counts matter where the update depends on them.
    if (!adam && config.optimizer != OptimizerKind::Adagrad)
        return;
    summary.remarks.push_back("optimizer steps: per worker " + each +
                              " (--optimizer-state per-worker: each worker's " + kind +
                              " counted its own updates and kept its own state, of its own "
                              "gradients only; its " +
                              (adam ? "bias correction" : "rate decay") +
                              " went by its own count)");
}

void explainLostUpdates(RunSummary& summary, const ExperimentConfig& config,
                        const std::string& note) {
    if (!config.lostUpdates)
        return;
    summary.remarks.push_back(
        "lost updates: each step writes its parameters in blocks of 32; a block's write "
        "counts as lost when another worker wrote the same block between this worker's "
        "read of it and its own write, so that one of the two writes may have replaced the "
        "other's unseen (an upper bound per value: two overlapping writes can miss each "
        "other element by element)" +
        std::string(
            config.optimizerState == StateSharing::Shared
                ? "; with --optimizer-state shared a block's write is also the write of its "
                  "parameters' shared moments, so a lost block may have lost those as well"
                : "") +
        note);
}

} // namespace hwl
