#pragma once
// A step kernel's update on parameters in host memory, from a gradient the
// host holds: the optimizer's state (SGD's momentum buffer, Adam's moments,
// ...: the worker's own, or with --optimizer-state shared the run's, beside
// its parameters: StepKernel::shareOptimizerState), the race-free rule, the
// Hogwild entry point and the counted update (optim/). Plain SGD runs the
// SIMD kernels; the other rules optim/optimizerrule.h. The CPU kernel and
// the CUDA backend's kernel (whose gradient comes back from the device) both
// derive from HostUpdateKernel, so the rule and its entry points are written
// once.
#include "backend/backend.h"
#include "backend/cpu/workspace.h"
#include "optim/gradientsum.h"

#include <stdexcept>

namespace hwl {

class HostUpdate {
public:
    HostUpdate(std::int64_t total, const OptimizerSpec& optimizer, std::uint32_t rank,
               std::uint32_t workers)
        : spec_(optimizer), rank_(rank), workers_(workers), total_(total),
          state_(std::size_t(total) * optimizer.stateNames().size(), optimizer.initialState()) {
        refactor();
    }

    void update(float* params, const Gradient<float>& grad, UpdateAccess access) {
        takeSharedStep();
        if (!spec_.usesSgdKernels()) {
            if (access == UpdateAccess::Shared)
                hogwild::applyUpdate(params, grad, state(), spec_, factors_, rank_, workers_);
            else
                applyOptimizer(params, grad, state(), spec_, factors_, rank_, workers_);
        } else if (access == UpdateAccess::Shared) {
            hogwild::applyUpdate(params, grad, velocity(), spec_.sgd, rank_, workers_);
        } else {
            applySgd(params, grad, velocity(), spec_.sgd, rank_, workers_);
        }
    }
    void counted(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                 hogwild::UpdateTally& tally) {
        takeSharedStep();
        if (spec_.usesSgdKernels())
            hogwild::applyCountedUpdate(params, versions, grad, velocity(), spec_.sgd, tally, rank_,
                                        workers_);
        else
            hogwild::applyCountedUpdate(params, versions, grad, state(), spec_, factors_, tally,
                                        rank_, workers_);
    }
    void setLearningRate(float lr) {
        spec_.sgd.lr = lr;
        refactor();
    }
    void setStepCount(std::uint64_t done) {
        if (shared_.steps || done + 1 == step_)
            return;
        step_ = done + 1;
        refactor();
    }
    std::span<float> optimizerState() { return {state_.data(), state_.size()}; }
    /// --optimizer-state shared (StepKernel::shareOptimizerState): this
    /// worker's own buffers go; update() and counted() number each update
    /// from the shared step count. (range(), data-parallel's, never shares.)
    void share(SharedOptimizerState shared) {
        shared_ = shared;
        state_ = {};
    }
    void range(float* params, const float* gradient, std::int64_t offset, std::int64_t length) {
        if (spec_.usesSgdKernels())
            detail::sgdRange(params + offset, gradient, velocity() ? velocity() + offset : nullptr,
                             length, spec_.sgd);
        else
            optimizerRange(params, gradient, state(), offset, length, spec_, factors_);
    }

private:
    float* velocity() {
        return shared_ ? shared_.buffers : state_.empty() ? nullptr : state_.data();
    }
    OptimizerState state() { return {velocity(), total_}; }
    /// The step's factors, from the rate and the update's number.
    void refactor() { factors_ = stepFactors(spec_, spec_.sgd.lr, step_); }
    /// With shared state: this update's number, claimed from the shared count.
    void takeSharedStep() {
        if (!shared_.steps)
            return;
        const std::uint64_t t = hogwild::claimStep(shared_.steps);
        if (t != step_) {
            step_ = t;
            refactor();
        }
    }

    OptimizerSpec spec_;
    std::uint32_t rank_, workers_;
    std::int64_t total_;
    std::uint64_t step_ = 1; ///< the number of the next update (1: the first)
    StepFactors factors_;
    /// The optimizer's state buffers (OptimizerSpec::stateNames(), each
    /// `total_` floats; SGD's momentum buffer; empty for plain SGD).
    AlignedVector<float> state_;
    SharedOptimizerState shared_; ///< --optimizer-state shared, else empty
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
    void setStepCount(std::uint64_t done) override { update_.setStepCount(done); }
    std::span<float> optimizerState() override { return update_.optimizerState(); }
    bool shareOptimizerState(SharedOptimizerState shared) override {
        update_.share(shared);
        return true;
    }
    void accumulateGradient() override { sum_.add(ws_.grad, ws_.gradientBuffer); }
    void finishAccumulation(int count) override {
        sum_.finish(ws_.grad, ws_.gradientBuffer, count);
    }

protected:
    HostUpdateKernel(std::int64_t total, const OptimizerSpec& optimizer, std::uint32_t rank,
                     std::uint32_t workers)
        : update_(total, optimizer, rank, workers), sum_(total) {}

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
