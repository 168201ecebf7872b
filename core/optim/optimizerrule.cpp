#include "optim/optimizerrule.h"

#include <cmath>

namespace hwl {

namespace {
// Each loop below is torch.optim 1.13's _single_tensor_<name>() for one
// parameter: every tensor operation rounds to float where torch's does, and
// its scalar operands are cast to float as ATen casts them.

void nesterovRange(float* p, const float* g, float* buf, std::int64_t n, const SgdSettings& s) {
    const float wd = s.weightDecay, mu = s.momentum, minusLr = -s.lr;
    for (std::int64_t i = 0; i < n; ++i) {
        const float d = wd != 0.0f ? g[i] + wd * p[i] : g[i];
        buf[i] = buf[i] * mu + d; // the first step's buffer: 0 * mu + d == d, torch's clone
        p[i] = p[i] + minusLr * (d + mu * buf[i]);
    }
}

void adamRange(float* p, const float* g, float* m, float* v, std::int64_t n, const OptimizerSpec& s,
               const StepFactors& f) {
    const auto beta1 = float(s.beta1), beta2 = float(s.beta2);
    const auto rest1 = float(1.0 - s.beta1), rest2 = float(1.0 - s.beta2);
    const float wd = s.kind == OptimizerKind::Adam ? s.sgd.weightDecay : 0.0f;
    const bool decoupled = s.kind == OptimizerKind::AdamW && s.sgd.weightDecay != 0.0f;
    const float minusStep = -f.stepSize;
    for (std::int64_t i = 0; i < n; ++i) {
        if (decoupled)
            p[i] = p[i] * f.decay;
        const float d = wd != 0.0f ? g[i] + wd * p[i] : g[i];
        m[i] = m[i] * beta1 + rest1 * d;
        v[i] = v[i] * beta2 + rest2 * d * d;
        const float denom = std::sqrt(v[i]) / f.bias2Root + s.eps;
        p[i] = p[i] + minusStep * m[i] / denom;
    }
}

void rmspropRange(float* p, const float* g, float* squareAvg, std::int64_t n,
                  const OptimizerSpec& s, const StepFactors& f) {
    const auto alpha = float(s.alpha), rest = float(1.0 - s.alpha);
    const float wd = s.sgd.weightDecay;
    const float minusLr = -f.lr;
    for (std::int64_t i = 0; i < n; ++i) {
        const float d = wd != 0.0f ? g[i] + wd * p[i] : g[i];
        squareAvg[i] = squareAvg[i] * alpha + rest * d * d;
        const float avg = std::sqrt(squareAvg[i]) + s.eps;
        p[i] = p[i] + minusLr * d / avg;
    }
}

void adagradRange(float* p, const float* g, float* sum, std::int64_t n, const OptimizerSpec& s,
                  const StepFactors& f) {
    const float wd = s.sgd.weightDecay, minusClr = -f.stepSize;
    for (std::int64_t i = 0; i < n; ++i) {
        const float d = wd != 0.0f ? g[i] + wd * p[i] : g[i];
        sum[i] = sum[i] + 1.0f * d * d;
        const float std = std::sqrt(sum[i]) + s.eps;
        p[i] = p[i] + minusClr * d / std;
    }
}
} // namespace

StepFactors stepFactors(const OptimizerSpec& spec, float lr, std::uint64_t t) {
    StepFactors f;
    f.lr = lr;
    const double rate = lr, step = double(t);
    switch (spec.kind) {
    case OptimizerKind::Sgd:
    case OptimizerKind::RmsProp:
        break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
        f.decay = float(1.0 - rate * double(spec.sgd.weightDecay));
        f.stepSize = float(rate / (1.0 - std::pow(spec.beta1, step)));
        f.bias2Root = float(std::sqrt(1.0 - std::pow(spec.beta2, step)));
        break;
    case OptimizerKind::Adagrad:
        f.stepSize = float(rate / (1.0 + (step - 1.0) * spec.lrDecay));
        break;
    }
    return f;
}

void optimizerRange(float* p, const float* g, OptimizerState state, std::int64_t offset,
                    std::int64_t n, const OptimizerSpec& spec, const StepFactors& f) {
    float* first = state.data ? state.data + offset : nullptr;
    float* second = state.data ? first + state.stride : nullptr;
    p += offset;
    switch (spec.kind) {
    case OptimizerKind::Sgd:
        if (spec.usesSgdKernels() || !first) {
            detail::sgdRange(p, g, first, n, {f.lr, spec.sgd.momentum, spec.sgd.weightDecay});
            return;
        }
        nesterovRange(p, g, first, n, {f.lr, spec.sgd.momentum, spec.sgd.weightDecay});
        return;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
        adamRange(p, g, first, second, n, spec, f);
        return;
    case OptimizerKind::RmsProp:
        rmspropRange(p, g, first, n, spec, f);
        return;
    case OptimizerKind::Adagrad:
        adagradRange(p, g, first, n, spec, f);
        return;
    }
}

void applyOptimizer(float* params, const Gradient<float>& grad, OptimizerState state,
                    const OptimizerSpec& spec, const StepFactors& f, std::uint32_t rank,
                    std::uint32_t workers) {
    for (const auto& seg : grad.segments) {
        const float* g = grad.values.data() + seg.valueIndex;
        // Start on a cache-line boundary rank/workers of the way in.
        const std::int64_t split =
            (seg.length * rank / (workers > 0 ? workers : 1u)) & ~std::int64_t(15);
        optimizerRange(params, g + split, state, seg.offset + split, seg.length - split, spec, f);
        optimizerRange(params, g, state, seg.offset, split, spec, f);
    }
}

} // namespace hwl
