#pragma once
// The MLP's CPU arithmetic: Eigen matrix products over row-major batches,
// the activation, softmax cross-entropy, and the backward pass.
#include "backend/cpu/modelkernelof.h"
#include "model/mlp.h"

#include <vector>

namespace hwl {

class MlpKernel final : public ModelKernelOf<MlpKernel> {
public:
    explicit MlpKernel(const Mlp& model)
        : layers_(model.layers()), activation_(model.spec().activation),
          total_(model.layout().total()) {}

private:
    friend class ModelKernelOf<MlpKernel>;
    const float* logits(const float* params, const DatasetView& data, const std::int64_t* rows,
                        std::int64_t n, Workspace<float>& ws) const;
    std::int64_t classes() const { return layers_.back().out; }
    template <class T>
    void forward(const T* params, std::int64_t n, Workspace<T>& ws) const;
    template <class T>
    T train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
            Workspace<T>& ws) const;

    std::vector<Mlp::Layer> layers_;
    Activation activation_;
    std::int64_t total_;
};

} // namespace hwl
