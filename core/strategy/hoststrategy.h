#pragma once
// HostStrategy: the one class between Strategy and the modes whose workers
// train host parameters on the CPU (serial, threads, threads-locked,
// processes, the unshared pitfall, data-parallel). It owns their
// HostTraining (strategy/hostparts.h) and forwards to it what each of them
// forwarded alike; a mode overrides what it does differently (its worker
// stores, a pitfall's name) and keeps its own state as members.
#include "strategy/hostparts.h"

#include <memory>
#include <utility>

namespace hwl {

class HostStrategy : public Strategy {
public:
    HostStrategy(const StrategyTraits& traits, ExperimentConfig config)
        : Strategy(traits, std::move(config)), host_(config_) {}

    /// The run's store (heap or /dev/shm, as the traits say), a copy of
    /// `initial`, and the training data where the workers read it.
    void prepare(RunResources& run, const float* initial) override {
        host_.prepareParameters(run, initial);
        host_.placeData(run);
    }
    /// Every worker trains the run's store.
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        return host_.job(*this, run, rank, {&host_.stores().run(), {}, {}});
    }
    const float* hostParameters() const override { return host_.parameters(); }
    SharedStateResume sharedOptimizerState() const override {
        return copySharedState(host_.stores().run());
    }
    void finish() override { host_.finish(); }

protected:
    /// Worker `rank`'s setup on the CPU: the backend's kernel, `rule`, and
    /// this mode's epochPlan() of the training rows.
    WorkerSetup hostSetup(const WorkerEnvironment& env, std::uint32_t rank,
                          std::unique_ptr<UpdateRule> rule, bool watchPeers = false) const {
        return hostWorkerSetup(env, rank, std::move(rule), epochPlan(env.train.rows), watchPeers);
    }

    HostTraining host_;
};

} // namespace hwl
