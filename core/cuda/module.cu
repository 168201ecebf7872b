// The module's one exported symbol (cuda/api.h): its table of entry points.
// Everything else in libhwl_cuda.so is hidden (-fvisibility=hidden).
#include "cuda/api.h"
#include "cuda/module.h"
#include "cuda/nccl.h"

namespace {

constexpr hwl::cuda::Api kApi{
    .version = hwl::cuda::kApiVersion,
    .initialise = &hwl::cuda::module::initialise,
    .tryCudaInForkedChild = &hwl::cuda::module::tryCudaInForkedChild,
    .ncclOneRankCheck = &hwl::cuda::module::ncclOneRankCheck,
    .ncclStatus = &hwl::cuda::module::ncclStatus,
    .timeReplicaReduce = &hwl::cuda::module::timeReplicaReduce,
    .makeReplicaTrainer = &hwl::cuda::module::makeReplicaTrainer,
    .makeEvaluator = &hwl::cuda::module::makeEvaluator,
    .makeHogwildTrainer = &hwl::cuda::module::makeHogwildTrainer,
    .makeStepRunner = &hwl::cuda::module::makeStepRunner,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const hwl::cuda::Api* hwl_cuda_api() {
    return &kApi;
}
