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
    /// A comparison's repeats of one of its runs share it (that run's
    /// label); empty elsewhere.
    std::string group = {};
};

} // namespace hwl
