// The catalog's queries that need no registry internals (the rest are in
// registry.cpp).
#include "strategy/catalog.h"

namespace hwl {

bool locksEachUpdate(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    return t && t->name == "threads-locked";
}

} // namespace hwl
