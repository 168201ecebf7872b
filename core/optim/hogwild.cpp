#include "optim/hogwild.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace hwl::hogwild {

void applyUpdate(float* params, const Gradient<float>& grad, float* velocity,
                 const SgdSettings& sgd, std::uint32_t rank, std::uint32_t workers) {
    hwl::detail::sgdSegments(params, grad, velocity, sgd, rank, workers);
}

void applyUpdate(float* params, const Gradient<float>& grad, OptimizerState state,
                 const OptimizerSpec& spec, const StepFactors& f, std::uint32_t rank,
                 std::uint32_t workers) {
    applyOptimizer(params, grad, state, spec, f, rank, workers);
}

namespace {
/// The gradient's segments block by block, each block's read-modify-write
/// `range(g, offset, length)` between two reads of its version.
template <class Range>
void countedBlocks(std::uint32_t* versions, const Gradient<float>& grad, UpdateTally& tally,
                   std::uint32_t rank, std::uint32_t workers, Range range) {
    for (const auto& seg : grad.segments) {
        if (seg.length <= 0)
            continue;
        const float* g = grad.values.data() + seg.valueIndex;
        const std::int64_t first = seg.offset / kVersionBlock;
        const std::int64_t last = (seg.offset + seg.length - 1) / kVersionBlock;
        const std::int64_t blocks = last - first + 1;
        // Start rank/workers of the way in, as sgdSegments does, so that
        // workers do not walk the same blocks in lockstep.
        const std::int64_t start = blocks * rank / std::max(1u, workers);
        for (std::int64_t k = 0; k < blocks; ++k) {
            const std::int64_t b = first + (start + k) % blocks;
            const std::int64_t lo = std::max(seg.offset, b * kVersionBlock);
            const std::int64_t hi = std::min(seg.offset + seg.length, (b + 1) * kVersionBlock);
            std::atomic_ref<std::uint32_t> v(versions[b]);
            const std::uint32_t before = v.load(std::memory_order_acquire);
            range(g + (lo - seg.offset), lo, hi - lo);
            const std::uint32_t at = v.fetch_add(1, std::memory_order_acq_rel);
            ++tally.writes;
            if (at != before)
                ++tally.lost;
        }
    }
}
} // namespace

void applyCountedUpdate(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                        float* velocity, const SgdSettings& sgd, UpdateTally& tally,
                        std::uint32_t rank, std::uint32_t workers) {
    countedBlocks(versions, grad, tally, rank, workers,
                  [&](const float* g, std::int64_t offset, std::int64_t length) {
                      hwl::detail::sgdRange(params + offset, g,
                                            velocity ? velocity + offset : nullptr, length, sgd);
                  });
}

void applyCountedUpdate(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                        OptimizerState state, const OptimizerSpec& spec, const StepFactors& f,
                        UpdateTally& tally, std::uint32_t rank, std::uint32_t workers) {
    countedBlocks(versions, grad, tally, rank, workers,
                  [&](const float* g, std::int64_t offset, std::int64_t length) {
                      optimizerRange(params, g, state, offset, length, spec, f);
                  });
}

std::uint64_t claimStep(std::uint64_t* steps) {
    return std::atomic_ref<std::uint64_t>(*steps).fetch_add(1, std::memory_order_relaxed) + 1;
}

void snapshot(const float* params, std::int64_t count, float* out) {
    std::memcpy(out, params, std::size_t(count) * sizeof(float));
}

double staleness(const float* params, const float* before, const Gradient<float>& grad) {
    // Eight independent partial sums (combined in a fixed order, so the result
    // is deterministic): one running sum would make each addition wait for the
    // previous one, and this runs on the training path of shared modes.
    constexpr std::int64_t kLanes = 8;
    double lanes[kLanes] = {};
    double tail = 0;
    for (const auto& seg : grad.segments) {
        const float* p = params + seg.offset;
        const float* b = before + seg.offset;
        const std::int64_t whole = seg.length - seg.length % kLanes;
        for (std::int64_t i = 0; i < whole; i += kLanes)
            for (std::int64_t k = 0; k < kLanes; ++k) {
                const double d = double(p[i + k]) - double(b[i + k]);
                lanes[k] += d * d;
            }
        for (std::int64_t i = whole; i < seg.length; ++i) {
            const double d = double(p[i]) - double(b[i]);
            tail += d * d;
        }
    }
    double sum = tail;
    for (double lane : lanes)
        sum += lane;
    return std::sqrt(sum);
}

void replicaDistances(const std::vector<const float*>& replicas, std::int64_t count,
                      std::vector<double>& out) {
    const std::size_t n = replicas.size();
    out.assign(n, 0.0);
    if (n == 0)
        return;
    constexpr std::int64_t kBlock = 4096; // the mean of one block at a time stays in cache
    std::vector<double> mean(static_cast<std::size_t>(kBlock));
    for (std::int64_t begin = 0; begin < count; begin += kBlock) {
        const std::int64_t len = std::min(kBlock, count - begin);
        std::fill(mean.begin(), mean.end(), 0.0);
        for (const float* r : replicas)
            for (std::int64_t i = 0; i < len; ++i)
                mean[std::size_t(i)] += double(r[begin + i]);
        for (auto& m : mean)
            m /= double(n);
        for (std::size_t k = 0; k < n; ++k)
            for (std::int64_t i = 0; i < len; ++i) {
                const double d = double(replicas[k][begin + i]) - mean[std::size_t(i)];
                out[k] += d * d;
            }
    }
    for (auto& o : out)
        o = std::sqrt(o);
}

} // namespace hwl::hogwild
