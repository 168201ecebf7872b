#pragma once
// The module's definitions behind cuda/api.h's table (private to core/cuda):
// the engine's loader (loader.cpp) defines cuda.h's functions and factories
// and calls these through the table, so the module defines none of cuda.h's
// names. module.cu fills the table.
#include "cuda/cuda.h"

#include <cstdint>
#include <memory>
#include <string>

namespace hwl::cuda::module {

// runtime.cu
DeviceReport initialise();
std::string tryCudaInForkedChild(int timeoutMs);
std::string ncclOneRankCheck();
// nccl.cu: ncclStatus() (cuda/nccl.h)

// replicas.cu, steprunner.cu
double timeReplicaReduce(std::int64_t params, int replicas, int repeats);
std::unique_ptr<ReplicaTrainer> makeReplicaTrainer(const ReplicaSettings& settings,
                                                   const HostData& train);
std::unique_ptr<StepRunner> makeStepRunner(const MlpShape& mlp, const HostData& train, int maxRows);
// evaluate.cu
std::unique_ptr<Evaluator> makeEvaluator(const MlpShape& mlp, const BagShape* bag,
                                         const HostData& test);
// hogwild.cu
std::unique_ptr<HogwildTrainer> makeHogwildTrainer(const HogwildSettings& settings,
                                                   const HostData& train);

} // namespace hwl::cuda::module
