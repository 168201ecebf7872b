#include "train/updaterule.h"

#include "optim/hogwild.h"

#include <algorithm>
#include <cmath>

namespace hwl {

namespace {

/// Straight into the shared parameters; with `lock`, under it.
class SharedUpdate final : public UpdateRule {
public:
    SharedUpdate(std::int64_t count, bool measure, std::mutex* lock, UpdateCounting counting,
                 std::atomic<std::int64_t>* waitNs = nullptr)
        : count_(count), every_(stalenessInterval(count)), measure_(measure), lock_(lock),
          counting_(counting), waitNs_(waitNs) {}

    void beforeStep(const float* params, std::uint64_t step) override {
        measuring_ = measure_ && step >= next_;
        if (!measuring_)
            return;
        const std::int64_t start = Telemetry::nowNs();
        if (lastStart_ >= 0 && step > lastStep_)
            stepNs_ = double(start - lastStart_) / double(step - lastStep_);
        lastStart_ = start;
        lastStep_ = step;
        before_.resize(std::size_t(count_));
        hogwild::snapshot(params, count_, before_.data());
        costNs_ = Telemetry::nowNs() - start;
    }
    bool apply(StepKernel& kernel, float* params, KeepGoing&) override {
        if (measuring_) {
            const std::int64_t start = Telemetry::nowNs();
            divergence_ = float(hogwild::staleness(params, before_.data(), kernel.gradient()));
            costNs_ += Telemetry::nowNs() - start;
            next_ = lastStep_ + nextMeasurementAfter(every_, double(costNs_), stepNs_);
        }
        if (lock_) {
            // The lock serialises the writers; the readers still race with
            // them, so the write stays the documented racy entry point.
            // The time it is held by another worker is this one's wait
            // (clock reads only then).
            std::unique_lock guard(*lock_, std::try_to_lock);
            if (!guard.owns_lock()) {
                const std::int64_t from = Telemetry::nowNs();
                guard.lock();
                if (waitNs_)
                    waitNs_->fetch_add(Telemetry::nowNs() - from, std::memory_order_relaxed);
            }
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
    std::atomic<std::int64_t>* waitNs_;
    hogwild::UpdateTally tally_;
    bool measuring_ = false;
    std::uint64_t next_ = 0, lastStep_ = 0; ///< the next measurement's step; the last one's
    std::int64_t lastStart_ = -1, costNs_ = 0;
    double stepNs_ = 0; ///< a step's mean time between the last two measurements
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

std::uint64_t nextMeasurementAfter(std::uint64_t every, double costNs, double stepNs) {
    // A sparse model's step touches a few rows of a large table, yet the
    // snapshot copies the whole table: at a fixed interval it cost the
    // embedding bag 10-20% of its steps. Space measurements so their cost
    // stays under kStalenessBudget of the time, capped so a chart still
    // gets a point every few thousand steps.
    constexpr double kStalenessBudget = 0.005;
    constexpr std::uint64_t kMost = 4096;
    if (stepNs <= 0)
        return every;
    const double spaced = std::ceil(costNs / (kStalenessBudget * stepNs));
    return std::clamp<std::uint64_t>(std::uint64_t(std::min(spaced, double(kMost))), every,
                                     std::max(every, kMost));
}

std::unique_ptr<UpdateRule> makeHogwildUpdate(std::int64_t parameterCount, bool measureStaleness,
                                              UpdateCounting counting) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, nullptr, counting);
}

std::unique_ptr<UpdateRule> makeLockedUpdate(std::mutex& lock, std::int64_t parameterCount,
                                             bool measureStaleness, UpdateCounting counting,
                                             std::atomic<std::int64_t>* waitNs) {
    return std::make_unique<SharedUpdate>(parameterCount, measureStaleness, &lock, counting,
                                          waitNs);
}

std::unique_ptr<UpdateRule> makePrivateUpdate(const WorkerStatus& status) {
    return std::make_unique<PrivateUpdate>(status);
}

} // namespace hwl
