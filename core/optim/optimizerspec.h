#pragma once
// Which optimizer a worker applies and its hyper-parameters, as
// torch.optim 1.13 names them and with its defaults: SGD (momentum, weight
// decay, Nesterov), Adam, AdamW (decoupled weight decay), RMSprop (not
// centered, no momentum) and Adagrad (lr_decay, initial_accumulator_value).
// The state each keeps is per worker (PyTorch's mnist_hogwild builds the
// optimizer inside each worker): stateNames() buffers of the model's total
// floats each, under torch's state keys, and the worker's update count for
// Adam's bias correction and Adagrad's rate decay.
#include "optim/optimizerkind.h"
#include "optim/sgd.h"

#include <vector>

namespace hwl {

struct OptimizerSpec {
    OptimizerSpec() = default;
    /// Plain SGD with `sgd`, as SgdSettings{lr, momentum, weight decay} says
    /// (implicit: a kernel made for SGD takes its settings as they are).
    OptimizerSpec(const SgdSettings& sgdSettings) : sgd(sgdSettings) {}
    OptimizerSpec(float lr, float momentum, float weightDecay) : sgd{lr, momentum, weightDecay} {}

    OptimizerKind kind = OptimizerKind::Sgd;
    /// The rate (the schedule's, set step by step), SGD's momentum and every
    /// optimizer's weight decay (an L2 term added to the gradient; AdamW's
    /// is decoupled: p *= 1 - lr * weight_decay).
    SgdSettings sgd;
    bool nesterov = false; ///< SGD only, with momentum > 0
    // In double where torch computes with them as Python floats (powers,
    // 1 - beta); cast to float where a tensor operation takes them.
    double beta1 = 0.9, beta2 = 0.999; ///< Adam, AdamW: betas
    float eps = 1e-8f;                 ///< Adam, AdamW, RMSprop (1e-8); Adagrad (1e-10)
    double alpha = 0.99;               ///< RMSprop's smoothing constant
    double lrDecay = 0.0;              ///< Adagrad's lr_decay
    float initialAccumulator = 0.0f;   ///< Adagrad's initial_accumulator_value

    /// Plain SGD (with or without momentum): the SIMD kernels of
    /// util/cpukernels.h apply it; every other rule is optim/optimizerrule.h's.
    bool usesSgdKernels() const { return kind == OptimizerKind::Sgd && !nesterov; }
    /// The state buffers, as torch's state_dict names them:
    /// "momentum_buffer" (SGD with momentum), "exp_avg" and "exp_avg_sq"
    /// (Adam, AdamW), "square_avg" (RMSprop), "sum" (Adagrad). None for
    /// SGD without momentum.
    std::vector<const char*> stateNames() const;
    /// The value every state buffer starts at (Adagrad's
    /// initial_accumulator_value; zero otherwise).
    float initialState() const { return kind == OptimizerKind::Adagrad ? initialAccumulator : 0; }
};

} // namespace hwl
