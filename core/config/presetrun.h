#pragma once
// One run of a sequence of runs: a comparison preset's (preset/presets.h)
// or a sweep's (config/sweep.h). Both monitors make such a list one run
// after another (run/comparison.h).
#include "config/experimentconfig.h"

#include <string>

namespace hwl {

/// What the run list and the --out folder call the run ("locked",
/// "workers=2") and its experiment.
struct PresetRun {
    std::string label;
    ExperimentConfig config;
};

} // namespace hwl
