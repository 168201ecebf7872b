// Process Hogwild: N worker processes (fork, spawn or forkserver) update one
// copy of the parameters in POSIX shared memory without locks, reading one
// shared copy of the training data.
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"

namespace hwl {

unsigned processSettings() {
    return unsigned(StrategySetting::Workers) | unsigned(StrategySetting::StartMethod) |
           unsigned(StrategySetting::Share) | unsigned(StrategySetting::FailurePolicy);
}

StrategyEntry hogwildProcessesStrategy() {
    StrategyTraits t;
    t.name = "processes";
    t.share = true;
    t.label = "processes (Hogwild)";
    t.help = "N processes update one copy in POSIX shared memory without locks (Hogwild)";
    t.settings = processSettings() | unsigned(StrategySetting::LostUpdates);
    t.processes = true;
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<HostStrategy>(), {}};
}

} // namespace hwl
