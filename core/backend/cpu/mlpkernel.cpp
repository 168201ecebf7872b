#include "backend/cpu/mlpkernel.h"

#include "backend/cpu/activations.h"
#include "backend/cpu/batchgather.h"
#include "backend/cpu/cpuproducts.h"
#include "backend/cpu/softmaxloss.h"
#include "util/eigenmaps.h"

#include <cmath>

namespace hwl {

template <class T>
void MlpKernel::forward(const T* params, std::int64_t n, Workspace<T>& ws) const {
    const std::size_t count = layers_.size();
    ws.pre.resize(count);
    ws.post.resize(count);
    const T* input = ws.input.data();
    for (std::size_t l = 0; l < count; ++l) {
        const auto& layer = layers_[l];
        ws.pre[l].resize(std::size_t(n * layer.out));
        // z = a w^T + b
        cpu::productNT(input, params + layer.weight, ws.pre[l].data(), n, layer.out, layer.in);
        MatrixMap<T>(ws.pre[l].data(), n, layer.out).rowwise() +=
            ConstRowMap<T>(params + layer.bias, layer.out);
        if (l + 1 < count) {
            ws.post[l].resize(ws.pre[l].size());
            activate(activation_, ws.pre[l].data(), ws.post[l].data(), n * layer.out);
            input = ws.post[l].data();
        }
    }
}

template <class T>
T MlpKernel::train(const T* params, const DatasetView& data, const std::int64_t* rows,
                   std::int64_t n, Workspace<T>& ws) const {
    gatherRows(data, rows, n, ws.input);
    forward(params, n, ws);

    const std::int64_t classes = layers_.back().out;
    ws.delta.resize(std::size_t(n * classes));
    const T lossSum =
        softmaxCrossEntropy(ws.pre.back().data(), n, classes, data.labels, rows, ws.delta.data());

    auto& grad = ws.grad;
    T* values = ws.gradientBuffer;
    if (!values) {
        grad.values.resize(std::size_t(total_));
        values = grad.values.data();
    }
    grad.segments.assign(1, {0, total_, 0});
    for (std::size_t l = layers_.size(); l-- > 0;) {
        const auto& layer = layers_[l];
        const T* input = l == 0 ? ws.input.data() : ws.post[l - 1].data();
        // dW = dz^T a, db = the column sums of dz, da = dz W
        cpu::productTN(ws.delta.data(), input, values + layer.weight, layer.out, layer.in, n);
        Eigen::Map<RowVector<T>>(values + layer.bias, layer.out) =
            ConstMatrixMap<T>(ws.delta.data(), n, layer.out).colwise().sum();
        if (l == 0)
            break;
        ws.deltaPrev.resize(std::size_t(n * layer.in));
        cpu::productNN(ws.delta.data(), params + layer.weight, ws.deltaPrev.data(), n, layer.in,
                       layer.out);
        activationBackward(activation_, ws.pre[l - 1].data(), ws.post[l - 1].data(),
                           ws.deltaPrev.data(), n * layer.in);
        std::swap(ws.delta, ws.deltaPrev);
    }
    return lossSum / T(n);
}

const float* MlpKernel::logits(const float* params, const DatasetView& data,
                               const std::int64_t* rows, std::int64_t n,
                               Workspace<float>& ws) const {
    gatherRows(data, rows, n, ws.input);
    forward(params, n, ws);
    return ws.pre.back().data();
}

// ModelKernelOf calls these from the header: one instance per precision.
template float MlpKernel::train<float>(const float*, const DatasetView&, const std::int64_t*,
                                       std::int64_t, Workspace<float>&) const;
template double MlpKernel::train<double>(const double*, const DatasetView&, const std::int64_t*,
                                         std::int64_t, Workspace<double>&) const;

} // namespace hwl
