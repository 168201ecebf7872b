#pragma once
// The one table the CUDA module (libhwl_cuda.so) exports: the engine's loader
// (core/cuda/loader.cpp) dlopens the module, asks hwl_cuda_api() for this
// table and calls every CUDA entry point of cuda.h through it. Both sides are
// built together (one compiler, one libstdc++), so the table may pass C++
// types; kApiVersion changes whenever the table does, and the loader refuses
// a module of another version.
#include "cuda/cuda.h"

namespace hwl::cuda {

inline constexpr int kApiVersion = 2; // 2: rowsPerReplica, setLearningRate, the CNN

struct Api {
    int version = kApiVersion;
    DeviceReport (*initialise)() = nullptr;
    std::string (*tryCudaInForkedChild)(int timeoutMs) = nullptr;
    std::string (*ncclOneRankCheck)() = nullptr;
    std::string (*ncclStatus)() = nullptr;
    double (*timeReplicaReduce)(std::int64_t params, int replicas, int repeats) = nullptr;
    std::unique_ptr<ReplicaTrainer> (*makeReplicaTrainer)(const ReplicaSettings&,
                                                          const HostData&) = nullptr;
    std::unique_ptr<Evaluator> (*makeEvaluator)(const MlpShape&, const BagShape*,
                                                const HostData&) = nullptr;
    std::unique_ptr<HogwildTrainer> (*makeHogwildTrainer)(const HogwildSettings&,
                                                          const HostData&) = nullptr;
    std::unique_ptr<StepRunner> (*makeStepRunner)(const MlpShape&, const HostData&,
                                                  int maxRows) = nullptr;
};

/// The loader's view (engine side): the module's table, loaded on the first
/// call (thread-safe); null when it cannot load, with the reason in `why`.
const Api* api(std::string* why = nullptr);

} // namespace hwl::cuda

/// The module's one exported symbol.
extern "C" const hwl::cuda::Api* hwl_cuda_api();
#define HWL_CUDA_API_SYMBOL "hwl_cuda_api"
