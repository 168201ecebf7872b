#pragma once
// The CPU backend: ModelKernel arithmetic (Eigen) in float, a StepKernel per
// worker owning its Workspace and momentum buffer, stores on the heap or in
// POSIX shared memory, and evaluation split over oneTBB in fixed chunks (so
// its result does not depend on the thread count).
#include "backend/backend.h"

namespace hwl {

class CpuBackend final : public Backend {
public:
    const char* name() const override { return "cpu"; }
    std::unique_ptr<StepKernel> makeKernel(const Model& model, const DatasetView& train,
                                           const OptimizerSpec& optimizer, std::uint32_t rank,
                                           std::uint32_t workers) const override;
    ParameterStore allocate(std::int64_t count, StorePlace place, const std::string& purpose,
                            StoreExtras extras) const override;
    EvalResult evaluate(const Model& model, const float* params,
                        const DatasetView& data) const override;
};

} // namespace hwl
