// The modes whose workers are threads of the run's process, updating one
// copy of the parameters on the heap: serial (one worker, the reference),
// Hogwild (no lock) and locked (one mutex around each update).
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"

#include <mutex>

namespace hwl {

namespace {

class LockedThreads final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

protected:
    std::unique_ptr<UpdateRule> makeRule(const WorkerEnvironment& env,
                                         std::uint32_t rank) const override {
        return makeLockedUpdate(lock_, env.model.layout().total(), measureStaleness(),
                                countedUpdates(env, rank));
    }

    std::string lostUpdatesNote() const override {
        return "; under the lock one worker writes at a time, so none is lost";
    }

private:
    mutable std::mutex lock_; ///< around every update of every worker
};

} // namespace

StrategyEntry serialStrategy() {
    StrategyTraits t;
    t.name = "serial";
    t.label = "serial";
    t.help = "one worker, plain SGD: the reference every other mode is compared with";
    t.exactWorkers = 1;
    t.divergence = DivergenceKind::None;
    // One worker has nobody to race with: the Hogwild strategy is plain SGD.
    return {t, factoryOf<HostStrategy>(), {}};
}

StrategyEntry hogwildThreadsStrategy() {
    StrategyTraits t;
    t.name = "threads";
    t.label = "threads (Hogwild)";
    t.help = "N threads update one shared copy of the parameters without locks (Hogwild)";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::LostUpdates);
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<HostStrategy>(), {}};
}

StrategyEntry lockedThreadsStrategy() {
    StrategyTraits t;
    t.name = "threads-locked";
    t.label = "threads (locked)";
    t.help = "N threads, one mutex around each update: the baseline Hogwild beats";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::LostUpdates);
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<LockedThreads>(), {}};
}

} // namespace hwl
