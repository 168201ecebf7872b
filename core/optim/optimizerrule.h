#pragma once
// The update rules of optim/optimizerspec.h other than plain SGD (which the
// SIMD kernels of util/cpukernels.h apply): SGD with Nesterov momentum,
// Adam, AdamW, RMSprop and Adagrad, each as torch.optim 1.13's
// single-tensor code computes it, operation by operation in float (the
// step's scalars in double, as Python computes them). A plain loop over
// each range: these rules keep two buffers' traffic per parameter where
// SGD keeps one, and they are not what the Hogwild benchmarks measure.
#include "optim/gradient.h"
#include "optim/optimizerspec.h"

#include <cstdint>

namespace hwl {

/// The numbers of one update that do not depend on the parameter: its
/// rate and what Adam's bias correction and Adagrad's decay make of it.
struct StepFactors {
    float lr = 0;        ///< the rate (SGD, RMSprop)
    float decay = 1;     ///< AdamW's decoupled decay: p *= 1 - lr * weight_decay
    float stepSize = 0;  ///< Adam, AdamW: lr / (1 - beta1^t); Adagrad: lr / (1 + (t - 1) lr_decay)
    float bias2Root = 1; ///< Adam, AdamW: sqrt(1 - beta2^t)
};

/// The factors of update number `t` (1 for a worker's first) at rate `lr`.
StepFactors stepFactors(const OptimizerSpec& spec, float lr, std::uint64_t t);

/// Where a worker's optimizer state is: spec.stateNames().size() buffers of
/// `stride` floats (the model's total) one after another; buffer k of
/// parameter i is at data[k * stride + i].
struct OptimizerState {
    float* data = nullptr;
    std::int64_t stride = 0;
};

/// --optimizer-state shared: the state every worker of a Hogwild run
/// updates, beside the shared parameters (store/parameterstore.h): its
/// buffers, laid out as OptimizerState says, and the step count the workers
/// share (hogwild::claimStep()). Both null: each worker keeps its own.
struct SharedOptimizerState {
    float* buffers = nullptr;
    std::uint64_t* steps = nullptr;
    explicit operator bool() const { return buffers != nullptr; }
};

/// The rule over parameters [offset, offset + n): `p` and `state` address
/// the whole flat buffer, `g` holds the n gradient values.
void optimizerRange(float* p, const float* g, OptimizerState state, std::int64_t offset,
                    std::int64_t n, const OptimizerSpec& spec, const StepFactors& f);

/// The rule over every segment of `grad`, each started rank/workers of the
/// way in (as detail::sgdSegments does; the arithmetic per element is the
/// same for any rank). Race-free callers only: the Hogwild entry point is
/// hogwild::applyUpdate().
void applyOptimizer(float* params, const Gradient<float>& grad, OptimizerState state,
                    const OptimizerSpec& spec, const StepFactors& f, std::uint32_t rank = 0,
                    std::uint32_t workers = 1);

} // namespace hwl
