#include "hogwild.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hwl::hogwild {

void applyUpdate(float* params, const Gradient<float>& grad, float* velocity,
                 const SgdSettings& sgd) {
    const float lr = sgd.lr, mu = sgd.momentum, wd = sgd.weightDecay;
    for (const auto& seg : grad.segments) {
        float* __restrict p = params + seg.offset;
        const float* __restrict g = grad.values.data() + seg.valueIndex;
        const std::int64_t n = seg.length;
        if (mu == 0.0f && wd == 0.0f) {
            for (std::int64_t i = 0; i < n; ++i)
                p[i] -= lr * g[i];
        } else if (mu == 0.0f) {
            for (std::int64_t i = 0; i < n; ++i)
                p[i] -= lr * (g[i] + wd * p[i]);
        } else {
            float* __restrict v = velocity + seg.offset;
            for (std::int64_t i = 0; i < n; ++i) {
                v[i] = mu * v[i] + (g[i] + wd * p[i]);
                p[i] -= lr * v[i];
            }
        }
    }
}

void snapshot(const float* params, std::int64_t count, float* out) {
    std::memcpy(out, params, std::size_t(count) * sizeof(float));
}

double staleness(const float* params, const float* before, const Gradient<float>& grad) {
    double sum = 0;
    for (const auto& seg : grad.segments)
        for (std::int64_t i = seg.offset; i < seg.offset + seg.length; ++i) {
            const double d = double(params[i]) - double(before[i]);
            sum += d * d;
        }
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
