#include "train/updaterule.h"

#include "optim/hogwild.h"

#include <algorithm>

namespace hwl {

namespace {

/// Straight into the shared parameters; with `lock`, under it.
class SharedUpdate final : public UpdateRule {
public:
    SharedUpdate(std::int64_t count, bool measure, std::mutex* lock)
        : count_(count), every_(stalenessInterval(count)), measure_(measure), lock_(lock) {}

    void beforeStep(const float* params, std::uint64_t step) override {
        measuring_ = measure_ && step % every_ == 0;
        if (!measuring_)
            return;
        before_.resize(std::size_t(count_));
        hogwild::snapshot(params, count_, before_.data());
    }
    bool apply(StepKernel& kernel, float* params, KeepGoing&) override {
        if (measuring_)
            divergence_ = float(hogwild::staleness(params, before_.data(), kernel.gradient()));
        if (lock_) {
            // The lock serialises the writers; the readers still race with
            // them, so the write stays the documented racy entry point.
            std::lock_guard guard(*lock_);
            kernel.update(params, UpdateAccess::Shared);
        } else {
            kernel.update(params, UpdateAccess::Shared);
        }
        return true;
    }
    float divergence() const override { return divergence_; }

private:
    std::int64_t count_;
    std::uint64_t every_;
    bool measure_;
    std::mutex* lock_;
    bool measuring_ = false;
    float divergence_ = 0.0f;
    AlignedVector<float> before_;
};

class PrivateUpdate final : public UpdateRule {
public:
    explicit PrivateUpdate(const WorkerStatus& status) : status_(status) {}
    bool apply(StepKernel& kernel, float* params, KeepGoing&) override {
        kernel.update(params, UpdateAccess::Private);
        return true;
    }
    float divergence() const override {
        return status_.replicaDistance.load(std::memory_order_relaxed);
    }

private:
    const WorkerStatus& status_;
};

} // namespace

std::uint64_t stalenessInterval(std::int64_t parameterCount) {
    return std::max<std::uint64_t>(32, std::uint64_t(parameterCount / 8192));
}

std::unique_ptr<UpdateRule> makeHogwildUpdate(std::int64_t parameterCount, bool measureStaleness) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, nullptr);
}

std::unique_ptr<UpdateRule> makeLockedUpdate(std::mutex& lock, std::int64_t parameterCount,
                                             bool measureStaleness) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, &lock);
}

std::unique_ptr<UpdateRule> makePrivateUpdate(const WorkerStatus& status) {
    return std::make_unique<PrivateUpdate>(status);
}

} // namespace hwl
