#pragma once
// The SGD update rule, as torch.optim.SGD applies it (dampening 0, no
// Nesterov): g += wd * p; v = momentum * v + g; p -= lr * v. One rule for
// every mode: applySgd() is the race-free entry point (a worker's private
// copy, or an update under a lock); the Hogwild entry point that runs the
// same rule on shared parameters is optim/hogwild.h.
#include "optim/gradient.h"
#include "util/cpukernels.h"

#include <cstdint>

namespace hwl {

struct SgdSettings {
    float lr = 0.01f;
    float momentum = 0.0f;    ///< 0: plain SGD
    float weightDecay = 0.0f; ///< L2 penalty added to the gradient, as torch.optim.SGD
};

namespace detail {
/// The rule over n contiguous parameters, by the CPU kernels this process
/// runs (util/cpukernels.h: the widest instruction set the processor has).
inline void sgdRange(float* p, const float* g, float* v, std::int64_t n, const SgdSettings& sgd) {
    cpuKernels().sgdRange(p, g, v, n, sgd.lr, sgd.momentum, sgd.weightDecay);
}

/// The rule over every segment of `grad`. Worker `rank` of `workers` starts
/// rank/workers of the way into each segment (on a cache-line boundary) and
/// wraps around, so concurrent updates touch different cache lines instead
/// of fighting over the same ones in lockstep; the arithmetic per element is
/// the same for any rank.
inline void sgdSegments(float* params, const Gradient<float>& grad, float* velocity,
                        const SgdSettings& sgd, std::uint32_t rank, std::uint32_t workers) {
    cpuKernels().sgdSegments(params, grad.values.data(), grad.segments.data(),
                             std::int64_t(grad.segments.size()), velocity, sgd.lr, sgd.momentum,
                             sgd.weightDecay, rank, workers);
}
} // namespace detail

/// params -= lr * (momentum buffer) over the gradient's segments, on
/// parameters no other thread writes meanwhile. `velocity` (layout().total()
/// floats, zero at start) is only touched when momentum > 0 and may be null
/// otherwise.
void applySgd(float* params, const Gradient<float>& grad, float* velocity, const SgdSettings& sgd,
              std::uint32_t rank = 0, std::uint32_t workers = 1);

} // namespace hwl
