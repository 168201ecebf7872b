// The GPU modes in a build without the CUDA backend: registered so that
// every surface lists them and says why they cannot run ("not built: no CUDA
// compiler was found": the form shows it at the mode and the device; --mode
// and --device refuse them with it), never as a mode that silently does
// something else.
#include "launch/devices.h"
#include "strategy/builtin.h"
#include "util/errors.h"

namespace hwl {

namespace {
StrategyEntry notBuilt(const char* name, const char* label, const char* help, unsigned settings) {
    StrategyTraits t;
    t.name = name;
    t.label = label;
    t.cuda = true;
    t.help = std::string(help) + " (" + cudaNotBuiltReason() + ")";
    t.settings = unsigned(StrategySetting::Workers) | settings;
    t.unavailable = cudaNotBuiltReason();
    return {t,
            [](const StrategyTraits& traits, const ExperimentConfig&) -> std::unique_ptr<Strategy> {
                throw InputError("mode: " + traits.name + " cannot run: " + traits.unavailable);
            },
            {}};
}
} // namespace

StrategyEntry gpuDataParallelStrategy() {
    return notBuilt(modes::dataParallel, "data-parallel (DDP)",
                    "on --device cuda: replicas per GPU reduced on the device, NCCL across GPUs",
                    unsigned(StrategySetting::Device) | unsigned(StrategySetting::GpuReplicas));
}

StrategyEntry gpuHogwildStrategy() {
    return notBuilt(modes::gpuHogwild, "GPU Hogwild (CUDA blocks)",
                    "thousands of CUDA blocks update one copy without locks (race demo)",
                    unsigned(StrategySetting::GpuBlocks));
}

} // namespace hwl
