#pragma once
// HostStrategy: the machinery the CPU modes share. One parameter store the
// run trains and exports (on the heap for thread workers, in shared memory
// for process workers, together with one shared copy of the training data),
// workers started as threads or processes as the traits say, each running
// the worker loop with the backend's kernel and an update rule (makeRule).
// As it is, it is Hogwild: every worker updates the shared store without a
// lock (serial is the case of one worker, who has nobody to race with).
// Strategies with another rule override makeRule; those that train private
// copies override the worker stores too.
#include "data/shareddataset.h"
#include "store/sharedsegment.h"
#include "strategy/strategy.h"

namespace hwl {

class HostStrategy : public Strategy {
public:
    using Strategy::Strategy;

    void prepare(RunResources& run, const float* initial) override;
    WorkerJob job(RunResources& run, std::uint32_t rank) override;
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override;
    const float* hostParameters() const override { return params_.data(); }
    /// With --lost-updates: what the count means.
    void explain(RunSummary& summary) const override;
    void finish() override;

protected:
    /// Worker `rank`'s update rule: Hogwild, measuring staleness when there
    /// is more than one worker.
    virtual std::unique_ptr<UpdateRule> makeRule(const WorkerEnvironment& env,
                                                 std::uint32_t rank) const;
    /// The store worker `rank` trains (by default the one every worker shares).
    virtual ParameterStore& workerStore(std::uint32_t /*rank*/) { return params_; }
    /// Stores beyond params_ that prepareWorkerStores() will allocate (for
    /// the /dev/shm check made before anything is allocated).
    virtual std::size_t extraStores() const { return 0; }
    /// Allocates the worker stores beyond params_, filled with `initial`.
    virtual void prepareWorkerStores(RunResources& /*run*/, const float* /*initial*/) {}
    /// With --lost-updates: what the mode adds to the count's explanation.
    virtual std::string lostUpdatesNote() const { return {}; }
    /// Data-parallel: the collective's segment name (else empty).
    virtual std::string collectiveName() const { return {}; }
    /// Whether a worker stops when a peer leaves (collectives wait on peers).
    virtual bool watchesPeers() const { return false; }
    /// Bytes in /dev/shm beyond the stores and the data (for the check).
    virtual std::size_t extraSharedBytes() const { return 0; }
    StorePlace place() const {
        return workersAreProcesses(config_) ? StorePlace::SharedMemory : StorePlace::Heap;
    }
    /// Whether workers of this run measure staleness (shared, more than one).
    bool measureStaleness() const { return config_.workers > 1; }
    /// --lost-updates: what worker `rank`'s rule counts with (else empty).
    static UpdateCounting countedUpdates(const WorkerEnvironment& env, std::uint32_t rank);

    ParameterStore params_; ///< what the run evaluates and exports
    SharedDataset sharedTrain_;
    /// The experiment's JSON for process workers of this machine (length,
    /// then the bytes), so that it is not on their command line.
    SharedSegment experiment_;
    DatasetView trainView_;
    /// --spawn-before-share: the name the workers are told their parameters
    /// are under, where no segment was ever made (params_ stays on the heap).
    std::string neverShared_;

private:
    void checkSharedMemory(const RunResources& run) const;
};

} // namespace hwl
