// The GPU modes in a build without a CUDA backend: registered so that every
// surface lists them and says why they cannot run (the form shows them
// disabled with the reason; --mode refuses them with it), never as a mode
// that silently does something else.
#include "strategy/builtin.h"
#include "util/errors.h"

namespace hwl {

namespace {
constexpr const char* kNotBuilt = "not built: this build has no CUDA backend";

StrategyEntry notBuilt(const char* name, const char* label, const char* help) {
    StrategyTraits t;
    t.name = name;
    t.label = label;
    t.help = std::string(help) + " (" + kNotBuilt + ")";
    t.settings = unsigned(StrategySetting::Workers);
    t.unavailable = kNotBuilt;
    return {t,
            [](const StrategyTraits& traits, const ExperimentConfig&) -> std::unique_ptr<Strategy> {
                throw InputError("mode: " + traits.name + " cannot run: " + traits.unavailable);
            },
            {}};
}
} // namespace

StrategyEntry gpuDataParallelStrategy() {
    return notBuilt("gpu-data-parallel", "data-parallel (GPU, NCCL)",
                    "replicas per GPU reduced on the device, NCCL across GPUs");
}

StrategyEntry gpuHogwildStrategy() {
    return notBuilt("gpu-hogwild", "GPU Hogwild (CUDA blocks)",
                    "thousands of CUDA blocks update one copy without locks (race demo)");
}

} // namespace hwl
