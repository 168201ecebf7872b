#pragma once
// ModelKernel: a model's arithmetic on the CPU (Eigen), in float for training
// and in double precision as the reference every backend is tested against
// (tests/tst_backends). Stateless: any number of workers may call one kernel
// at once, each with its own Workspace.
#include "backend/backend.h"
#include "backend/cpu/workspace.h"
#include "data/dataset.h"
#include "model/model.h"

#include <cstdint>
#include <memory>

namespace hwl {

class ModelKernel {
public:
    virtual ~ModelKernel() = default;

    /// Mean softmax cross-entropy over rows[0..n) of `data`, and its gradient
    /// into ws.grad. `params` holds the model's layout().total() values.
    virtual float lossAndGradient(const float* params, const DatasetView& data,
                                  const std::int64_t* rows, std::int64_t n,
                                  Workspace<float>& ws) const = 0;
    /// The same in double precision (the reference).
    virtual double lossAndGradient(const double* params, const DatasetView& data,
                                   const std::int64_t* rows, std::int64_t n,
                                   Workspace<double>& ws) const = 0;
    /// Loss sum and correct count over rows [begin, end) of `data`.
    virtual EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                                std::int64_t end, Workspace<float>& ws) const = 0;
    /// The forward pass that evaluate() scores (no dropout: PyTorch's
    /// eval()) of rows [begin, end) of `data`: (end - begin) x classes
    /// logits into `out`, row-major. What an exported ONNX model
    /// (io/onnxexport.h) is checked against.
    virtual void forwardLogits(const float* params, const DatasetView& data, std::int64_t begin,
                               std::int64_t end, float* out, Workspace<float>& ws) const = 0;
};

/// The CPU arithmetic of `model` (an Mlp or an EmbeddingBag). Keeps copies of
/// the offsets it needs: it does not refer to `model` afterwards.
std::unique_ptr<ModelKernel> makeModelKernel(const Model& model);

} // namespace hwl
