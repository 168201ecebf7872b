#pragma once
// Every limit on what an experiment may ask for, in one place: the
// validator, the spec parsers, the field table (and so --help) and the
// window's form all read them from here.
#include <cstdint>

namespace hwl::limits {

// Run shape.
constexpr int kMaxWorkers = 256;
constexpr int kMaxEpochs = 100000;
/// The pace (--pace, the window's speed control): steps per second per worker.
constexpr int kMaxPace = 1000000;
constexpr int kMaxBatch = 1 << 20;
constexpr int kMaxSyncEvery = 1 << 20;   ///< steps between parameter averagings
constexpr double kMaxBucketMb = 1024;    ///< a gradient bucket's cap
constexpr int kMaxReplicasPerGpu = 256;  ///< data-parallel on CUDA
constexpr int kMaxBlocks = 1 << 16;      ///< gpu-hogwild's thread blocks
constexpr int kMaxLoaderWorkers = 64;    ///< loader processes per worker (refused above 0)
constexpr int kMaxSweepRuns = 1000;      ///< the runs of one sweep (its grid's size)
constexpr int kMaxWarmupSteps = 1 << 30; ///< --warmup-steps
constexpr int kMaxAccumulate = 1024;     ///< --accumulate: batches per update
constexpr int kMaxEvalEvery = 1 << 30;   ///< --eval-every: steps between evaluations

// Models (--model).
constexpr std::int64_t kMaxWidth = 1 << 24;                    ///< one layer's width, V, D or C
constexpr std::int64_t kMaxParameters = std::int64_t(1) << 31; ///< 8 GiB of floats
/// The most parameters model.onnx holds (io/onnxexport.h): protobuf parses
/// no message of 2 GiB or more; 1 MiB of it is left for the graph.
constexpr std::int64_t kMaxOnnxParameters =
    ((std::int64_t(1) << 31) - (std::int64_t(1) << 20)) / std::int64_t(sizeof(float));

// Synthetic datasets (--dataset random / teacher / sparse-bow).
constexpr std::int64_t kMaxRows = 100'000'000;
constexpr std::int64_t kMaxDim = 10'000'000;                    ///< features, or vocabulary
constexpr std::int64_t kMaxDenseValues = std::int64_t(1) << 31; ///< rows x dim of a dense set
constexpr std::int64_t kMaxClasses = 100'000;
constexpr std::int64_t kMaxHidden = 100'000; ///< the teacher's hidden width
constexpr std::int64_t kMaxTokens = 100'000; ///< tokens per sparse-bow row

/// The most memory one loaded dataset may need (features, indices, values, labels).
constexpr double kMaxDatasetBytes = 8.0 * 1024 * 1024 * 1024;

} // namespace hwl::limits
