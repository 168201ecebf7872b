#include "collective/allreduceupdate.h"

#include "train/keepgoing.h"

#include <algorithm>
#include <iterator>

namespace hwl {

namespace {

/// Whether `g` is one segment over all `total` parameters (an MLP's).
bool isDense(const Gradient<float>& g, std::int64_t total) {
    return g.segments.size() == 1 && g.segments[0].offset == 0 && g.segments[0].length == total &&
           g.segments[0].valueIndex == 0;
}

/// The union of every rank's (offset, length) segment pairs, sorted by
/// offset: the same list on every rank.
std::vector<std::pair<std::int64_t, std::int64_t>>
unionOfSegments(const std::vector<std::vector<std::int64_t>>& all) {
    // Each rank's list is sorted already: merge them one after the other.
    std::vector<std::pair<std::int64_t, std::int64_t>> segments, next, theirs;
    for (const auto& pairs : all) {
        theirs.clear();
        for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
            theirs.emplace_back(pairs[i], pairs[i + 1]);
        next.clear();
        std::merge(segments.begin(), segments.end(), theirs.begin(), theirs.end(),
                   std::back_inserter(next));
        std::swap(segments, next);
    }
    segments.erase(std::unique(segments.begin(), segments.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; }),
                   segments.end());
    return segments;
}

class AllreduceUpdate final : public UpdateRule {
public:
    AllreduceUpdate(std::unique_ptr<Collective> collective, AllreduceSettings settings,
                    Telemetry& telemetry, std::uint32_t rank)
        : c_(std::move(collective)), s_(std::move(settings)), t_(telemetry),
          status_(telemetry.worker(rank)), total_(s_.layout->total()),
          measureEvery_(std::uint64_t(divergenceInterval(s_.syncEvery, total_))) {}

    bool start(float* params, KeepGoing& keepGoing) override;
    bool apply(StepKernel& kernel, float* params, KeepGoing& keepGoing) override;
    bool endEpoch(float* params, KeepGoing& keepGoing) override;
    void finish() override {
        // The kernel outlives this rule's use of it, not the collective's
        // memory its gradient goes to.
        if (bound_)
            bound_->gradientInto(nullptr);
        bound_ = nullptr;
        c_->close();
    }
    float divergence() const override { return divergence_; }
    bool agreesCommands() const override { return true; }
    RunCommand agreedCommand() const override { return RunCommand(agreed_); }

private:
    /// Times the collective calls in `body` into the status block.
    template <class Body>
    bool communicate(Body&& body) {
        const std::int64_t begin = Telemetry::nowNs(), waited = c_->waitedNs();
        const bool ok = body();
        status_.commNs.fetch_add(Telemetry::nowNs() - begin, std::memory_order_relaxed);
        status_.commWaitNs.fetch_add(c_->waitedNs() - waited, std::memory_order_relaxed);
        return ok;
    }
    void countBytes(std::int64_t floats) {
        status_.bytesReduced.fetch_add(std::uint64_t(floats) * sizeof(float),
                                       std::memory_order_relaxed);
    }
    bool averageParameters(float* params, KeepGoing& keepGoing, std::uint32_t* vote);
    bool averageDense(StepKernel& kernel, float* params, KeepGoing& keepGoing, std::uint32_t& vote);
    bool averageSparse(StepKernel& kernel, float* params, KeepGoing& keepGoing,
                       std::uint32_t& vote);
    bool measure(const float* params, KeepGoing& keepGoing);
    /// The first dense step: the kernel's next gradients go straight into
    /// the collective's slot, when both can (this step's is copied there).
    void bindGradient(StepKernel& kernel);

    std::unique_ptr<Collective> c_;
    AllreduceSettings s_;
    Telemetry& t_;
    WorkerStatus& status_;
    std::int64_t total_;
    std::uint64_t measureEvery_;
    std::uint64_t steps_ = 0;
    std::uint32_t agreed_ = std::uint32_t(RunCommand::Run);
    float divergence_ = 0.0f;
    AlignedVector<float> compact_; ///< sparse: this rank's values on the union of segments
    bool triedBinding_ = false;
    StepKernel* bound_ = nullptr; ///< the kernel writing its gradient into slot_
    float* slot_ = nullptr;       ///< this rank's gradient slot in the collective
};

bool AllreduceUpdate::start(float* params, KeepGoing& keepGoing) {
    keepGoing.whileWaiting([this] { c_->idle(); });
    // Meeting the peers and the broadcast of rank 0's model wait for every
    // rank to start: that is start-up (each worker's own figure), before any
    // rank's first step, not communication time in the training loop. Were it
    // counted, a short run of spawned ranks reported 1887% of its loop in
    // collectives.
    if (!c_->open(keepGoing))
        return false;
    return [&] {
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
    }();
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
        ok = isDense(kernel.gradient(), total_) ? averageDense(kernel, params, keepGoing, vote)
                                                : averageSparse(kernel, params, keepGoing, vote);
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

void AllreduceUpdate::bindGradient(StepKernel& kernel) {
    triedBinding_ = true;
    float* slot = c_->gradientSlot(total_);
    if (!slot)
        return;
    // This step's gradient is in the kernel's own storage: it is copied this
    // once, and gradientInto() empties that storage.
    std::copy_n(kernel.gradient().values.data(), total_, slot);
    if (!kernel.gradientInto(slot))
        return;
    bound_ = &kernel;
    slot_ = slot;
}

bool AllreduceUpdate::averageDense(StepKernel& kernel, float* params, KeepGoing& keepGoing,
                                   std::uint32_t& vote) {
    // Bucket by bucket: the mean stays in the collective's memory and the
    // replica's SGD step reads it from there. With a slot, the gradient was
    // computed there: nothing is copied.
    if (!triedBinding_)
        bindGradient(kernel);
    const Gradient<float>& g = kernel.gradient();
    bool first = true;
    for (const Bucket& b : s_.buckets) {
        const float* mean = nullptr;
        if (!communicate([&] {
                countBytes(b.length);
                std::uint32_t* v = first ? &vote : nullptr;
                mean = slot_ ? c_->reduceSlot(b.offset, b.length, keepGoing, v)
                             : c_->reduceMean(g.values.data() + b.offset, b.length, keepGoing, v);
                return mean != nullptr;
            }))
            return false;
        kernel.updateRange(params, mean, b.offset, b.length);
        first = false;
    }
    return true;
}

bool AllreduceUpdate::averageSparse(StepKernel& kernel, float* params, KeepGoing& keepGoing,
                                    std::uint32_t& vote) {
    // The embedding bag's gradient touches fc and the table rows its batch
    // used: the ranks average only the rows some rank touched (the union of
    // their segments, in offset order), as serial training with the ranks'
    // batches together would update exactly those.
    const Gradient<float>& g = kernel.gradient();
    std::vector<std::pair<std::int64_t, std::int64_t>> own;
    for (const auto& seg : g.segments)
        own.emplace_back(seg.offset, seg.length);
    std::sort(own.begin(), own.end());
    std::vector<std::int64_t> mine;
    for (const auto& [offset, length] : own) {
        mine.push_back(offset);
        mine.push_back(length);
    }
    std::vector<std::vector<std::int64_t>> all;
    if (!communicate([&] { return c_->allgather(mine, all, keepGoing); }))
        return false;
    const auto segments = unionOfSegments(all);
    std::int64_t size = 0;
    for (const auto& seg : segments)
        size += seg.second;
    std::vector<std::int64_t> starts; // each union segment's place in the compact vector
    starts.reserve(segments.size());
    for (std::int64_t pos = 0; const auto& seg : segments) {
        starts.push_back(pos);
        pos += seg.second;
    }
    compact_.assign(std::size_t(size), 0.0f);
    for (const auto& seg : g.segments) {
        const auto at = std::lower_bound(segments.begin(), segments.end(),
                                         std::make_pair(seg.offset, std::int64_t(0)));
        std::copy_n(g.values.data() + seg.valueIndex, seg.length,
                    compact_.data() + starts[std::size_t(at - segments.begin())]);
    }
    countBytes(size);
    if (!communicate([&] { return c_->allreduceMean(compact_.data(), size, keepGoing, &vote); }))
        return false;
    std::int64_t pos = 0;
    for (const auto& seg : segments) {
        kernel.updateRange(params, compact_.data() + pos, seg.first, seg.second);
        pos += seg.second;
    }
    return true;
}

bool AllreduceUpdate::endEpoch(float* params, KeepGoing& keepGoing) {
    // K = 1: a measurement at each epoch's end, so the last divergence a run
    // reports was taken after its last step. K > 1: the averaging makes the
    // replicas one model again (divergence exactly 0).
    return communicate([&] {
        return s_.syncEvery == 1 ? measure(params, keepGoing)
                                 : averageParameters(params, keepGoing, nullptr);
    });
}

} // namespace

int divergenceInterval(int syncEvery, std::int64_t parameterCount) {
    // A measurement costs as much as averaging the parameters once: for
    // K > 1 about 4 per averaging period, never more than one every 4 steps;
    // for K = 1 (the replicas are bit-identical by construction: this checks
    // it) rarely enough to stay a small share of a step on any model (one
    // every 32 steps was 2% of the blog MLP's time under perf; each epoch's
    // end measures too).
    if (syncEvery > 1)
        return std::max(4, syncEvery / 4);
    return int(std::max<std::int64_t>(128, parameterCount / 4096));
}

std::unique_ptr<UpdateRule> makeAllreduceUpdate(std::unique_ptr<Collective> collective,
                                                AllreduceSettings settings, Telemetry& telemetry,
                                                std::uint32_t rank) {
    return std::make_unique<AllreduceUpdate>(std::move(collective), std::move(settings), telemetry,
                                             rank);
}

} // namespace hwl
