#pragma once
// Model: a list of layers over one flat parameter buffer (ParamLayout).
// The loss and its gradient are a pure function of (params, batch): the
// model keeps no state, so any number of workers may call it at once, each
// with its own Workspace.
#include "backend/gradient.h"
#include "data/dataset.h"
#include "model/modelspec.h"
#include "model/paramlayout.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace hwl {

/// Per-worker scratch space: activations and the gradient. Reused across
/// steps; grows on first use and then never allocates again.
template <class T>
struct Workspace {
    AlignedVector<T> input;                  ///< batch x input width (gathered rows)
    std::vector<AlignedVector<T>> pre, post; ///< per layer: batch x width
    AlignedVector<T> delta, deltaPrev;       ///< backward buffers
    std::vector<std::int32_t> rowMark;       ///< embedding bag: row -> slot stamp
    std::vector<std::int64_t> rowSlot;
    std::int64_t stamp = 0;
    Gradient<T> grad;
};

/// Sum of per-sample loss and number of correct predictions over some rows.
struct EvalResult {
    double lossSum = 0;
    std::int64_t correct = 0;
    std::int64_t count = 0;
    double meanLoss() const { return count ? lossSum / double(count) : 0.0; }
    double accuracy() const { return count ? double(correct) / double(count) : 0.0; }
};

class Model {
public:
    virtual ~Model() = default;
    const ParamLayout& layout() const { return layout_; }
    const ModelSpec& spec() const { return spec_; }

    /// Fills params as PyTorch initialises the equivalent modules (nn.Linear:
    /// U(-1/sqrt(in), 1/sqrt(in)) for weight and bias; nn.EmbeddingBag: N(0,1)),
    /// from `seed`.
    virtual void initialize(float* params, std::uint64_t seed) const = 0;

    /// Mean softmax cross-entropy over rows[0..n) of `data`, and its gradient
    /// into ws.grad. `params` holds layout().total() values.
    virtual float lossAndGradient(const float* params, const DatasetView& data,
                                  const std::int64_t* rows, std::int64_t n,
                                  Workspace<float>& ws) const = 0;
    /// The same in double precision (for gradient checks).
    virtual double lossAndGradient(const double* params, const DatasetView& data,
                                   const std::int64_t* rows, std::int64_t n,
                                   Workspace<double>& ws) const = 0;

    /// Loss sum and correct count over rows [begin, end) of `data`.
    virtual EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                                std::int64_t end, Workspace<float>& ws) const = 0;

    /// A one-line description of why `data` cannot feed this model, or empty.
    virtual std::string incompatibility(const DatasetView& data) const = 0;

    /// Floating-point operations of one training step per sample (forward + backward).
    virtual double flopsPerSample() const = 0;

protected:
    ParamLayout layout_;
    ModelSpec spec_;
};

/// Builds the model a spec names.
std::unique_ptr<Model> makeModel(const ModelSpec& spec);

} // namespace hwl
