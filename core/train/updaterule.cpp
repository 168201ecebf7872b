#include "train/updaterule.h"

#include "optim/hogwild.h"

#include <algorithm>

namespace hwl {

namespace {

/// Straight into the shared parameters; with `lock`, under it.
class SharedUpdate final : public UpdateRule {
public:
    SharedUpdate(std::int64_t count, bool measure, std::mutex* lock, UpdateCounting counting)
        : count_(count), every_(stalenessInterval(count)), measure_(measure), lock_(lock),
          counting_(counting) {}

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
            write(kernel, params);
        } else {
            write(kernel, params);
        }
        return true;
    }
    float divergence() const override { return divergence_; }

private:
    void write(StepKernel& kernel, float* params) {
        if (!counting_.versions) {
            kernel.update(params, UpdateAccess::Shared);
            return;
        }
        kernel.countedUpdate(params, counting_.versions, tally_);
        // Only this worker writes its counters: plain relaxed stores.
        counting_.status->updateWrites.store(tally_.writes, std::memory_order_relaxed);
        counting_.status->lostUpdates.store(tally_.lost, std::memory_order_relaxed);
    }

    std::int64_t count_;
    std::uint64_t every_;
    bool measure_;
    std::mutex* lock_;
    UpdateCounting counting_;
    hogwild::UpdateTally tally_;
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

std::unique_ptr<UpdateRule> makeHogwildUpdate(std::int64_t parameterCount, bool measureStaleness,
                                              UpdateCounting counting) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, nullptr, counting);
}

std::unique_ptr<UpdateRule> makeLockedUpdate(std::mutex& lock, std::int64_t parameterCount,
                                             bool measureStaleness, UpdateCounting counting) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, &lock, counting);
}

std::unique_ptr<UpdateRule> makePrivateUpdate(const WorkerStatus& status) {
    return std::make_unique<PrivateUpdate>(status);
}

} // namespace hwl
