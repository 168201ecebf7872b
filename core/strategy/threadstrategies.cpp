// The modes whose workers are threads of the run's process, updating one
// copy of the parameters on the heap: serial (one worker, the reference),
// Hogwild (no lock) and locked (one mutex around each update).
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"

#include <mutex>

namespace hwl {

namespace {

/// Threads that train one shared store. Hogwild (Locked false): every
/// worker updates it without a lock (serial is the case of one worker, who
/// has nobody to race with). Locked: one mutex around every update.
template <bool Locked>
class SharedStoreThreads final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        const std::int64_t total = env.model.layout().total();
        auto rule =
            Locked ? makeLockedUpdate(lock_, total, config_.workers > 1, countedUpdates(env, rank),
                                      &env.telemetry.worker(rank).waitNs)
                   : makeHogwildUpdate(total, config_.workers > 1, countedUpdates(env, rank));
        return hostSetup(env, rank, std::move(rule));
    }
    void explain(RunSummary& summary) const override {
        explainOptimizerState(summary, config_, host_.stores().run());
        explainLostUpdates(summary, config_,
                           Locked ? "; under the lock one worker writes at a time, so none is lost"
                                  : "");
    }

private:
    mutable std::mutex lock_; ///< Locked: around every update of every worker
};

using HogwildThreads = SharedStoreThreads<false>;
using LockedThreads = SharedStoreThreads<true>;

/// The entry of a mode of N threads on one store (Hogwild, locked): they
/// differ in their names and their update only.
StrategyEntry threadsEntry(const char* name, const char* label, const char* help,
                           StrategyFactory make) {
    StrategyTraits t;
    t.name = name;
    t.label = label;
    t.help = help;
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::LostUpdates) |
                 unsigned(StrategySetting::Split) | unsigned(StrategySetting::Resume) |
                 unsigned(StrategySetting::SharedState) | unsigned(StrategySetting::EvalEvery);
    t.divergence = DivergenceKind::Staleness;
    return {t, std::move(make), {}};
}

} // namespace

StrategyEntry serialStrategy() {
    StrategyTraits t;
    t.name = modes::serial;
    t.label = "serial";
    t.help = "one worker, plain SGD: the reference every other mode is compared with";
    t.exactWorkers = 1;
    // replicate walks the order a replicate run's first worker walks, so one
    // Hogwild worker and serial agree bit for bit under either split.
    t.settings = unsigned(StrategySetting::Split) | unsigned(StrategySetting::Resume) |
                 unsigned(StrategySetting::EvalEvery);
    t.divergence = DivergenceKind::None;
    // One worker has nobody to race with: the Hogwild strategy is plain SGD.
    return {t, factoryOf<HogwildThreads>(), {}};
}

StrategyEntry hogwildThreadsStrategy() {
    return threadsEntry(modes::threads, "threads (Hogwild)",
                        "N threads update one shared copy of the parameters without locks "
                        "(Hogwild)",
                        factoryOf<HogwildThreads>());
}

StrategyEntry lockedThreadsStrategy() {
    return threadsEntry(modes::threadsLocked, "threads (locked)",
                        "N threads, one mutex around each update: the baseline Hogwild beats",
                        factoryOf<LockedThreads>());
}

} // namespace hwl
