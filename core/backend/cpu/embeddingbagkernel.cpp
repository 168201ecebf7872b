#include "backend/cpu/embeddingbagkernel.h"

#include "backend/cpu/cpuproducts.h"
#include "backend/cpu/softmaxloss.h"
#include "util/eigenmaps.h"

namespace hwl {

EmbeddingBagKernel::EmbeddingBagKernel(const EmbeddingBag& model)
    : vocab_(model.vocab()), dim_(model.dim()), classes_(model.classes()),
      table_(model.tableOffset()), weight_(model.weightOffset()), bias_(model.biasOffset()) {}

template <class T>
void EmbeddingBagKernel::forward(const T* params, const DatasetView& data, const std::int64_t* rows,
                                 std::int64_t n, Workspace<T>& ws) const {
    ws.input.resize(std::size_t(n * dim_));
    cpu::bagMean(params + table_, dim_, data.offsets, data.indices, data.values, rows, n,
                 ws.input.data());
    ws.pre.resize(1);
    ws.pre[0].resize(std::size_t(n * classes_));
    // z = h W^T + b
    cpu::productNT(ws.input.data(), params + weight_, ws.pre[0].data(), n, classes_, dim_);
    MatrixMap<T>(ws.pre[0].data(), n, classes_).rowwise() +=
        Eigen::Map<const RowVector<T>>(params + bias_, classes_);
}

template <class T>
T EmbeddingBagKernel::train(const T* params, const DatasetView& data, const std::int64_t* rows,
                            std::int64_t n, Workspace<T>& ws) const {
    forward(params, data, rows, n, ws);
    ws.delta.resize(std::size_t(n * classes_));
    const T lossSum =
        softmaxCrossEntropy(ws.pre[0].data(), n, classes_, data.labels, rows, ws.delta.data());

    // Gradient layout in ws.grad.values: [fc.weight, fc.bias] first (one
    // segment, matching their contiguous place in the flat buffer), then one
    // D-block per distinct embedding row the batch used.
    auto& grad = ws.grad;
    const std::int64_t fcSize = classes_ * dim_ + classes_;
    grad.segments.assign(1, {weight_, fcSize, 0});
    grad.values.resize(std::size_t(fcSize));
    cpu::productTN(ws.delta.data(), ws.input.data(), grad.values.data(), classes_, dim_, n);
    Eigen::Map<RowVector<T>>(grad.values.data() + classes_ * dim_, classes_) =
        ConstMatrixMap<T>(ws.delta.data(), n, classes_).colwise().sum();

    // dh = dz W, then scattered to the rows the bag used.
    ws.deltaPrev.resize(std::size_t(n * dim_));
    cpu::productNN(ws.delta.data(), params + weight_, ws.deltaPrev.data(), n, dim_, classes_);
    if (ws.rowMark.size() != std::size_t(vocab_)) {
        ws.rowMark.assign(std::size_t(vocab_), 0);
        ws.rowSlot.assign(std::size_t(vocab_), 0);
        ws.stamp = 0;
    }
    if (++ws.stamp == INT32_MAX) {
        std::fill(ws.rowMark.begin(), ws.rowMark.end(), 0);
        ws.stamp = 1;
    }
    // A slot (one D-row of values) and a segment for each row the batch
    // used, in the order of first use; then the rows' sums into them.
    const auto stamp = std::int32_t(ws.stamp);
    std::int64_t used = std::int64_t(grad.values.size());
    for (std::int64_t r = 0; r < n; ++r)
        for (auto k = data.offsets[rows[r]]; k < data.offsets[rows[r] + 1]; ++k) {
            const auto token = data.indices[k];
            if (ws.rowMark[token] == stamp)
                continue;
            ws.rowMark[token] = stamp;
            ws.rowSlot[token] = used;
            grad.segments.push_back({table_ + std::int64_t(token) * dim_, dim_, used});
            used += dim_;
        }
    grad.values.resize(std::size_t(used), T(0));
    cpu::bagScatter(ws.deltaPrev.data(), dim_, data.offsets, data.indices, data.values, rows, n,
                    ws.rowSlot.data(), grad.values.data());
    return lossSum / T(n);
}

// ModelKernelOf calls these from the header: one instance per precision.
template float EmbeddingBagKernel::train<float>(const float*, const DatasetView&,
                                                const std::int64_t*, std::int64_t,
                                                Workspace<float>&) const;
template double EmbeddingBagKernel::train<double>(const double*, const DatasetView&,
                                                  const std::int64_t*, std::int64_t,
                                                  Workspace<double>&) const;

} // namespace hwl
