#pragma once
// The element-wise activations of the CPU kernels and their backward passes,
// shared by the MLP and the layer list so that mlp: and its net: spelling
// compute the same bits.
#include "model/modelspec.h"

#include <cmath>
#include <cstdint>

namespace hwl {

/// out = act(in), element-wise; in and out may be the same buffer.
template <class T>
void activate(Activation a, const T* in, T* out, std::int64_t size) {
    switch (a) {
    case Activation::Relu:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = in[i] > T(0) ? in[i] : T(0);
        break;
    case Activation::Tanh:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = std::tanh(in[i]);
        break;
    case Activation::Sigmoid:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = T(1) / (T(1) + std::exp(-in[i]));
        break;
    case Activation::Gelu: // PyTorch's exact form: x * Phi(x)
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = T(0.5) * in[i] * (T(1) + std::erf(in[i] * T(M_SQRT1_2)));
        break;
    }
}

/// delta *= act'(pre) where post = act(pre).
template <class T>
void activationBackward(Activation a, const T* pre, const T* post, T* delta, std::int64_t size) {
    switch (a) {
    case Activation::Relu:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] = pre[i] > T(0) ? delta[i] : T(0);
        break;
    case Activation::Tanh:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] *= T(1) - post[i] * post[i];
        break;
    case Activation::Sigmoid:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] *= post[i] * (T(1) - post[i]);
        break;
    case Activation::Gelu: // Phi(x) + x phi(x)
        for (std::int64_t i = 0; i < size; ++i) {
            const T x = pre[i];
            const T cdf = T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)));
            const T pdf = std::exp(T(-0.5) * x * x) * T(0.5 * M_2_SQRTPI * M_SQRT1_2);
            delta[i] *= cdf + x * pdf;
        }
        break;
    }
}

} // namespace hwl
