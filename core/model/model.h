#pragma once
// Model: the description of a model over one flat parameter buffer: its
// spec, the ParamLayout (each tensor's name, shape and offset), how it is
// initialised, what a training sample costs, and whether a dataset fits it.
// The arithmetic lives apart, in a backend's kernel (backend/backend.h), so
// every backend shares one description. Immutable: safe to share between
// threads.
#include "data/dataset.h"
#include "model/modelspec.h"
#include "model/paramlayout.h"

#include <cstdint>
#include <memory>
#include <string>

namespace hwl {

class Model {
public:
    virtual ~Model() = default;
    const ParamLayout& layout() const { return layout_; }
    const ModelSpec& spec() const { return spec_; }

    /// Fills params as PyTorch initialises the equivalent modules (nn.Linear:
    /// U(-1/sqrt(in), 1/sqrt(in)) for weight and bias; nn.EmbeddingBag: N(0,1)),
    /// from `seed`.
    virtual void initialize(float* params, std::uint64_t seed) const = 0;

    /// A one-line description of why a dataset of this shape cannot feed the
    /// model and what to change, or empty when it fits.
    virtual std::string incompatibility(const DatasetShape& data) const = 0;

    /// Floating-point operations of one training step per sample (forward + backward).
    virtual double flopsPerSample() const = 0;

protected:
    ParamLayout layout_;
    ModelSpec spec_;
};

/// Builds the model a spec names.
std::unique_ptr<Model> makeModel(const ModelSpec& spec);

} // namespace hwl
