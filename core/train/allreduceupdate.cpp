#include "train/allreduceupdate.h"

#include "train/keepgoing.h"

#include <algorithm>

namespace hwl {

namespace {

/// Makes `g` one dense segment over all `total` parameters (the embedding
/// bag's gradient touches a few table rows; the replicas average all of it).
void densify(Gradient<float>& g, std::int64_t total, AlignedVector<float>& scratch) {
    if (g.segments.size() == 1 && g.segments[0].offset == 0 && g.segments[0].length == total &&
        g.segments[0].valueIndex == 0)
        return;
    scratch.assign(std::size_t(total), 0.0f);
    for (const auto& seg : g.segments)
        for (std::int64_t i = 0; i < seg.length; ++i)
            scratch[std::size_t(seg.offset + i)] += g.values[std::size_t(seg.valueIndex + i)];
    std::swap(g.values, scratch);
    g.segments.assign(1, {0, total, 0});
}

class AllreduceUpdate final : public UpdateRule {
public:
    AllreduceUpdate(std::unique_ptr<Collective> collective, AllreduceSettings settings,
                    Telemetry& telemetry, std::uint32_t rank)
        : c_(std::move(collective)), s_(std::move(settings)), t_(telemetry),
          status_(telemetry.worker(rank)), total_(s_.layout->total()),
          measureEvery_(std::uint64_t(divergenceInterval(s_.syncEvery))) {}

    bool start(float* params, KeepGoing& keepGoing) override;
    bool apply(StepKernel& kernel, float* params, KeepGoing& keepGoing) override;
    bool endEpoch(float* params, KeepGoing& keepGoing) override;
    float divergence() const override { return divergence_; }
    bool agreesCommands() const override { return true; }
    RunCommand agreedCommand() const override { return RunCommand(agreed_); }

private:
    /// Times the collective calls in `body` into the status block.
    template <class Body>
    bool communicate(Body&& body) {
        const std::int64_t begin = Telemetry::nowNs();
        const bool ok = body();
        status_.commNs.fetch_add(Telemetry::nowNs() - begin, std::memory_order_relaxed);
        return ok;
    }
    void countBytes(std::int64_t floats) {
        status_.bytesReduced.fetch_add(std::uint64_t(floats) * sizeof(float),
                                       std::memory_order_relaxed);
    }
    bool averageParameters(float* params, KeepGoing& keepGoing, std::uint32_t* vote);
    bool measure(const float* params, KeepGoing& keepGoing);

    std::unique_ptr<Collective> c_;
    AllreduceSettings s_;
    Telemetry& t_;
    WorkerStatus& status_;
    std::int64_t total_;
    std::uint64_t measureEvery_;
    std::uint64_t steps_ = 0;
    std::uint32_t agreed_ = std::uint32_t(RunCommand::Run);
    float divergence_ = 0.0f;
    AlignedVector<float> dense_;
};

bool AllreduceUpdate::start(float* params, KeepGoing& keepGoing) {
    return communicate([&] {
        std::string rank0 = layoutSignature(*s_.layout);
        if (!c_->broadcastText(rank0, 0, keepGoing))
            return false;
        const std::string differs = layoutDifference(*s_.layout, rank0);
        std::uint32_t mismatch = differs.empty() ? 0 : 1;
        if (!c_->agree(mismatch, keepGoing))
            return false;
        if (mismatch) {
            keepGoing.fail(differs.empty()
                               ? "another rank's model differs from rank 0's: see its message"
                               : "rank " + std::to_string(c_->rank()) +
                                     "'s model differs from rank 0's: " + differs);
            return false;
        }
        countBytes(total_);
        return c_->broadcast(params, total_, 0, keepGoing);
    });
}

bool AllreduceUpdate::averageParameters(float* params, KeepGoing& keepGoing, std::uint32_t* vote) {
    countBytes(total_);
    if (!c_->allreduceMean(params, total_, keepGoing, vote))
        return false;
    divergence_ = 0.0f; // every replica now holds the same bits
    return true;
}

bool AllreduceUpdate::measure(const float* params, KeepGoing& keepGoing) {
    double distance = 0;
    if (!c_->distanceFromMean(params, total_, distance, keepGoing))
        return false;
    divergence_ = float(distance);
    return true;
}

bool AllreduceUpdate::apply(StepKernel& kernel, float* params, KeepGoing& keepGoing) {
    std::uint32_t vote = t_.header().command.load(std::memory_order_acquire);
    ++steps_;
    bool ok = true;
    if (s_.syncEvery == 1) {
        Gradient<float>& g = kernel.editableGradient();
        densify(g, total_, dense_);
        // Bucket by bucket: the mean stays in the collective's memory and the
        // replica's SGD step reads it from there.
        bool first = true;
        for (const Bucket& b : s_.buckets) {
            const float* mean = nullptr;
            ok = communicate([&] {
                countBytes(b.length);
                mean = c_->reduceMean(g.values.data() + b.offset, b.length, keepGoing,
                                      first ? &vote : nullptr);
                return mean != nullptr;
            });
            if (!ok)
                break;
            kernel.updateRange(params, mean, b.offset, b.length);
            first = false;
        }
    } else {
        kernel.update(params, UpdateAccess::Private);
        ok = communicate([&] {
            return steps_ % std::uint64_t(s_.syncEvery) == 0
                       ? averageParameters(params, keepGoing, &vote)
                       : c_->agree(vote, keepGoing);
        });
    }
    agreed_ = vote;
    if (ok && steps_ % measureEvery_ == 0 &&
        (s_.syncEvery == 1 || steps_ % std::uint64_t(s_.syncEvery) != 0))
        ok = communicate([&] { return measure(params, keepGoing); });
    return ok;
}

bool AllreduceUpdate::endEpoch(float* params, KeepGoing& keepGoing) {
    if (s_.syncEvery == 1)
        return true;
    return communicate([&] { return averageParameters(params, keepGoing, nullptr); });
}

} // namespace

int divergenceInterval(int syncEvery) {
    return syncEvery == 1 ? 32 : std::max(1, syncEvery / 8);
}

std::unique_ptr<UpdateRule> makeAllreduceUpdate(std::unique_ptr<Collective> collective,
                                                AllreduceSettings settings, Telemetry& telemetry,
                                                std::uint32_t rank) {
    return std::make_unique<AllreduceUpdate>(std::move(collective), std::move(settings), telemetry,
                                             rank);
}

} // namespace hwl
