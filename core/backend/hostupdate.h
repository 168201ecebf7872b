#pragma once
// A step kernel's SGD update on parameters in host memory, from a gradient
// the host holds: the momentum buffer, the race-free rule, the Hogwild
// entry point and the counted update (optim/). The CPU kernel and the CUDA
// backend's kernel (whose gradient comes back from the device) both derive
// from HostUpdateKernel, so the rule and its entry points are written once.
#include "backend/backend.h"
#include "backend/cpu/workspace.h"
#include "optim/gradientsum.h"

#include <stdexcept>

namespace hwl {

class HostUpdate {
public:
    HostUpdate(std::int64_t total, const SgdSettings& sgd, std::uint32_t rank,
               std::uint32_t workers)
        : sgd_(sgd), rank_(rank), workers_(workers),
          velocity_(sgd.momentum > 0 ? std::size_t(total) : 0, 0.0f) {}

    void update(float* params, const Gradient<float>& grad, UpdateAccess access) {
        if (access == UpdateAccess::Shared)
            hogwild::applyUpdate(params, grad, velocity(), sgd_, rank_, workers_);
        else
            applySgd(params, grad, velocity(), sgd_, rank_, workers_);
    }
    void counted(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                 hogwild::UpdateTally& tally) {
        hogwild::applyCountedUpdate(params, versions, grad, velocity(), sgd_, tally, rank_,
                                    workers_);
    }
    void setLearningRate(float lr) { sgd_.lr = lr; }
    std::span<float> momentum() { return {velocity_.data(), velocity_.size()}; }
    void range(float* params, const float* gradient, std::int64_t offset, std::int64_t length) {
        detail::sgdRange(params + offset, gradient,
                         velocity_.empty() ? nullptr : velocity_.data() + offset, length, sgd_);
    }

private:
    float* velocity() { return velocity_.empty() ? nullptr : velocity_.data(); }

    SgdSettings sgd_;
    std::uint32_t rank_, workers_;
    AlignedVector<float> velocity_; ///< the momentum buffer (empty without momentum)
};

/// A StepKernel whose gradient lands in `ws_.grad` on the host: the update
/// entry points are this class's; a kernel adds lossAndGradient and evaluate.
class HostUpdateKernel : public StepKernel {
public:
    const Gradient<float>& gradient() const override { return ws_.grad; }
    void update(float* params, UpdateAccess access) override {
        ownGradient();
        update_.update(params, ws_.grad, access);
    }
    void countedUpdate(float* params, std::uint32_t* versions,
                       hogwild::UpdateTally& tally) override {
        ownGradient();
        update_.counted(params, versions, ws_.grad, tally);
    }
    void updateRange(float* params, const float* gradient, std::int64_t offset,
                     std::int64_t length) override {
        update_.range(params, gradient, offset, length);
    }
    void setLearningRate(float lr) override { update_.setLearningRate(lr); }
    std::span<float> momentumBuffer() override { return update_.momentum(); }
    void accumulateGradient() override { sum_.add(ws_.grad, ws_.gradientBuffer); }
    void finishAccumulation(int count) override {
        sum_.finish(ws_.grad, ws_.gradientBuffer, count);
    }

protected:
    HostUpdateKernel(std::int64_t total, const SgdSettings& sgd, std::uint32_t rank,
                     std::uint32_t workers)
        : update_(total, sgd, rank, workers), sum_(total) {}

    Workspace<float> ws_; ///< the gradient and the host arithmetic's scratch

private:
    /// update() reads ws_.grad's values: not while gradientInto() put them elsewhere.
    void ownGradient() const {
        if (ws_.gradientBuffer)
            throw std::logic_error("update() of a gradient written into another buffer "
                                   "(gradientInto): apply it with updateRange()");
    }

    HostUpdate update_;
    GradientSum sum_; ///< --accumulate's running sum (empty until used)
};

} // namespace hwl
