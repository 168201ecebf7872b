#pragma once
// The modes as config sees them: the built-in modes' names (the --mode
// values) and the settings a mode may take. The modes themselves are the
// registered strategies, a layer above config (docs/architecture.md,
// "Layers"): config keeps only their names, so that the default experiment,
// the strategies that register under them and the monitors name a mode with
// one spelling, and the settings, so that the field table says which
// setting each field belongs to (Field::setting). Which mode takes which
// setting is the strategy catalog's (strategy/catalog.h), and an
// experiment's mode is validated there (strategy/validation.h).

namespace hwl {

/// Experiment fields a strategy may take besides the ones every mode takes.
enum class StrategySetting : unsigned {
    Workers = 1u << 0,           ///< a worker count (else exactWorkers)
    StartMethod = 1u << 1,       ///< fork / spawn / forkserver
    Share = 1u << 2,             ///< share true / false picks between two variants
    FailurePolicy = 1u << 3,     ///< what happens when a worker dies
    Transport = 1u << 4,         ///< threads / processes / mpi; processes take the start method
    Replicas = 1u << 5,          ///< data-parallel options: sync-every, bucket-mb, drop-last
    Device = 1u << 6,            ///< --device picks between a CPU and a CUDA variant of the name
    GpuReplicas = 1u << 7,       ///< replicas-per-gpu
    GpuBlocks = 1u << 8,         ///< blocks and update (gpu-hogwild)
    LostUpdates = 1u << 9,       ///< lost-updates (CPU Hogwild, locked as the contrast)
    SpawnBeforeShare = 1u << 10, ///< the pitfall of workers started before the share
    Split = 1u << 11,            ///< split: shard or replicate the rows among Hogwild workers
    Resume = 1u << 12,           ///< --out saves the optimizer's state; resume continues it
    SharedState = 1u << 13,      ///< optimizer-state shared: one state beside shared parameters
    /// eval-every: evaluations inside an epoch too (the CPU modes; the GPU
    /// modes evaluate on the device at each epoch's end)
    EvalEvery = 1u << 14,
};

namespace modes {

extern const char* const serial;
extern const char* const threads;
extern const char* const threadsLocked;
extern const char* const processes;
extern const char* const dataParallel;
extern const char* const gpuHogwild;

} // namespace modes

} // namespace hwl
