#pragma once
// The parts a mode owns when its workers train parameters in host memory
// (every mode: the GPU modes' device process copies them in and out). A mode
// HAS these (through HostStrategy, strategy/hoststrategy.h, or DeviceStrategy)
// instead of inheriting their state:
//   ParameterStores   the store the run trains, evaluates and exports (on the
//                     heap for thread workers, in /dev/shm for process
//                     workers, as the traits say), plus the mode's own
//                     worker stores (private replicas);
//   SharedTrainSet    the training data where the workers read it (one
//                     shared copy for process workers);
//   ExperimentSegment the experiment's JSON for process workers of this
//                     machine (not on their command line);
//   HostTraining      the three together, the choice of /dev/shm or memory
//                     files before anything is allocated, and each worker's
//                     job (a thread, or a process told the segments' names).
// And free functions for a worker's setup and the --lost-updates remark.
// What a pitfall needs (a name never shared, a lock) belongs to its mode.
#include "data/shareddataset.h"
#include "store/sharedsegment.h"
#include "strategy/strategy.h"

#include <string>
#include <vector>

namespace hwl {

/// The run's parameter store and the mode's worker stores.
class ParameterStores {
public:
    /// Allocates the run's store on `place` with `extras` (storeExtras()), a
    /// copy of `initial`; its shared optimizer state, if any, is the run's
    /// resumed one or the optimizer's start (Adagrad's initial accumulator).
    void allocateRun(const RunResources& run, const float* initial, StorePlace place,
                     StoreExtras extras);
    /// Adds a worker store `name` on `place`: a copy of `initial`, or (null)
    /// left for its worker to fill.
    ParameterStore& addWorker(const RunResources& run, StorePlace place, const std::string& name,
                              const float* initial);
    ParameterStore& run() { return run_; }
    const ParameterStore& run() const { return run_; }
    ParameterStore& worker(std::size_t i) { return workers_[i]; }
    const std::vector<ParameterStore>& workers() const { return workers_; }
    /// Removes every segment's name (the mappings stay valid).
    void unlink();

private:
    ParameterStore run_; ///< what the run evaluates and exports
    std::vector<ParameterStore> workers_;
};

/// The training data as the workers read it.
class SharedTrainSet {
public:
    /// Thread workers read the run's rows; process workers one shared copy,
    /// after which the run keeps only the rows' description.
    void place(RunResources& run, StorePlace where);
    DatasetView view() const { return view_; }
    /// The shared copy's segment (empty for thread workers).
    const std::string& name() const { return shared_.name(); }
    void unlink() { shared_.unlink(); }

private:
    SharedDataset shared_;
    DatasetView view_;
};

/// The experiment's JSON in a segment (its length, then the bytes), for the
/// process workers of this machine.
class ExperimentSegment {
public:
    void create(const ExperimentConfig& config);
    bool exists() const { return segment_.data() != nullptr; }
    const std::string& name() const { return segment_.name(); }
    void unlink() { segment_.unlink(); }

private:
    SharedSegment segment_;
};

/// What the /dev/shm check counts beyond the run's store and the data.
struct SharedNeeds {
    std::size_t workerStores = 0; ///< stores of the parameters' size
    std::size_t otherBytes = 0;   ///< e.g. a collective, the device link
};

/// What one worker's job is told: the store it trains and the names a
/// process worker opens.
struct HostWorker {
    ParameterStore* store = nullptr;
    std::string collective; ///< WorkerEnvironment::collective
    /// Non-empty: the parameters' segment name a process worker is told,
    /// instead of the store's (a pitfall's name that was never made).
    std::string parametersName;
};

/// The stores, the data and the experiment of a mode with host parameters.
class HostTraining {
public:
    explicit HostTraining(const ExperimentConfig& config) : config_(config) {}
    /// Where the stores go: /dev/shm when the workers are processes.
    StorePlace place() const;
    /// For process workers, places the shared segments in /dev/shm, or in
    /// memory files where it lacks room (a note says so); then allocates the
    /// run's store on `where`, a copy of `initial`.
    void prepareParameters(RunResources& run, const float* initial, const SharedNeeds& needs,
                           StorePlace where);
    void prepareParameters(RunResources& run, const float* initial, const SharedNeeds& needs = {}) {
        prepareParameters(run, initial, needs, place());
    }
    /// Places the training data, and the experiment for process workers of
    /// this machine that the app starts by the start method (not for MPI
    /// ranks, which are told it on their command line).
    void placeData(RunResources& run);
    ParameterStores& stores() { return stores_; }
    const ParameterStores& stores() const { return stores_; }
    const float* parameters() const { return stores_.run().data(); }
    DatasetView train() const { return train_.view(); }
    /// Worker `rank`'s job: `strategy.trainWorker()` on `worker`'s store, in
    /// a thread, or in a process told the segments' names.
    WorkerJob job(const Strategy& strategy, RunResources& run, std::uint32_t rank,
                  const HostWorker& worker) const;
    /// Removes the segments' names.
    void finish();

private:
    void placeSharedMemory(const RunResources& run, const SharedNeeds& needs) const;

    const ExperimentConfig& config_; ///< the owning strategy's
    ParameterStores stores_;
    SharedTrainSet train_;
    ExperimentSegment experiment_;
};

/// What the run's store holds beside the parameters for `config`: the
/// block versions with --lost-updates, the optimizer's state buffers with
/// --optimizer-state shared. A spawned worker opens the store with the same.
StoreExtras storeExtras(const ExperimentConfig& config);
/// The shared optimizer state in `store` (empty when it holds none).
SharedOptimizerState sharedStateOf(ParameterStore& store);
/// A copy of it, to save or report once the workers are gone (empty when
/// the store holds none).
SharedStateResume copySharedState(const ParameterStore& store);

/// Worker `rank`'s setup on the CPU: the backend's kernel, `rule`, `plan`.
WorkerSetup hostWorkerSetup(const WorkerEnvironment& env, std::uint32_t rank,
                            std::unique_ptr<UpdateRule> rule, std::shared_ptr<const EpochPlan> plan,
                            bool watchPeers = false);
/// --lost-updates: what worker `rank`'s rule counts with (else empty).
UpdateCounting countedUpdates(const WorkerEnvironment& env, std::uint32_t rank);
/// With more than one worker, the optimizer's step counts: "optimizer
/// steps: shared N (...)" from `store` with --optimizer-state shared, else
/// for Adam, AdamW and Adagrad (whose updates depend on the count)
/// "optimizer steps: per worker a, b, ... (...)".
void explainOptimizerState(RunSummary& summary, const ExperimentConfig& config,
                           const ParameterStore& store);
/// With --lost-updates: what the count means, and `note` (what the mode adds).
void explainLostUpdates(RunSummary& summary, const ExperimentConfig& config,
                        const std::string& note = {});

} // namespace hwl
