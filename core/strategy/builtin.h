#pragma once
// The built-in strategies, one function each (defined in the strategy's own
// file); strategy/registry.cpp registers them in this order.
#include "strategy/registry.h"

namespace hwl {

StrategyEntry serialStrategy();
StrategyEntry hogwildThreadsStrategy();
StrategyEntry lockedThreadsStrategy();
StrategyEntry hogwildProcessesStrategy();
StrategyEntry unsharedReplicasStrategy();
StrategyEntry dataParallelStrategy();
/// The GPU modes of builds without a CUDA backend: listed, not runnable.
StrategyEntry gpuDataParallelStrategy();
StrategyEntry gpuHogwildStrategy();

/// The settings every mode with process workers takes.
unsigned processSettings();

} // namespace hwl
