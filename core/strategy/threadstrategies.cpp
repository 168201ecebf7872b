// The modes whose workers are threads of the run's process, updating one
// copy of the parameters on the heap: serial (one worker, the reference),
// Hogwild (no lock) and locked (one mutex around each update).
#include "strategy/builtin.h"
#include "strategy/hostparts.h"

#include <mutex>

namespace hwl {

namespace {

/// Threads that train one shared store. Hogwild (Locked false): every
/// worker updates it without a lock (serial is the case of one worker, who
/// has nobody to race with). Locked: one mutex around every update.
template <bool Locked>
class SharedStoreThreads final : public Strategy {
public:
    SharedStoreThreads(const StrategyTraits& traits, ExperimentConfig config)
        : Strategy(traits, std::move(config)), host_(config_) {}

    void prepare(RunResources& run, const float* initial) override {
        host_.prepareParameters(run, initial);
        host_.placeData(run);
    }
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        return host_.job(*this, run, rank, {&host_.stores().run(), {}, {}});
    }
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        const std::int64_t total = env.model.layout().total();
        auto rule =
            Locked ? makeLockedUpdate(lock_, total, config_.workers > 1, countedUpdates(env, rank))
                   : makeHogwildUpdate(total, config_.workers > 1, countedUpdates(env, rank));
        return hostWorkerSetup(env, rank, std::move(rule), epochPlan(env.train.rows));
    }
    const float* hostParameters() const override { return host_.parameters(); }
    void explain(RunSummary& summary) const override {
        explainLostUpdates(summary, config_,
                           Locked ? "; under the lock one worker writes at a time, so none is lost"
                                  : "");
    }
    void finish() override { host_.finish(); }

private:
    HostTraining host_;
    mutable std::mutex lock_; ///< Locked: around every update of every worker
};

using HogwildThreads = SharedStoreThreads<false>;
using LockedThreads = SharedStoreThreads<true>;

} // namespace

StrategyEntry serialStrategy() {
    StrategyTraits t;
    t.name = modes::serial;
    t.label = "serial";
    t.help = "one worker, plain SGD: the reference every other mode is compared with";
    t.exactWorkers = 1;
    // replicate walks the order a replicate run's first worker walks, so one
    // Hogwild worker and serial agree bit for bit under either split.
    t.settings = unsigned(StrategySetting::Split) | unsigned(StrategySetting::Resume);
    t.divergence = DivergenceKind::None;
    // One worker has nobody to race with: the Hogwild strategy is plain SGD.
    return {t, factoryOf<HogwildThreads>(), {}};
}

StrategyEntry hogwildThreadsStrategy() {
    StrategyTraits t;
    t.name = modes::threads;
    t.label = "threads (Hogwild)";
    t.help = "N threads update one shared copy of the parameters without locks (Hogwild)";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::LostUpdates) |
                 unsigned(StrategySetting::Split) | unsigned(StrategySetting::Resume);
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<HogwildThreads>(), {}};
}

StrategyEntry lockedThreadsStrategy() {
    StrategyTraits t;
    t.name = modes::threadsLocked;
    t.label = "threads (locked)";
    t.help = "N threads, one mutex around each update: the baseline Hogwild beats";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::LostUpdates) |
                 unsigned(StrategySetting::Split) | unsigned(StrategySetting::Resume);
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<LockedThreads>(), {}};
}

} // namespace hwl
