#pragma once
// The MLP's CPU arithmetic: Eigen matrix products over row-major batches,
// the activation, softmax cross-entropy, and the backward pass.
#include "backend/cpu/modelkernel.h"
#include "model/mlp.h"

#include <vector>

namespace hwl {

class MlpKernel final : public ModelKernel {
public:
    explicit MlpKernel(const Mlp& model)
        : layers_(model.layers()), activation_(model.spec().activation),
          total_(model.layout().total()) {}

    float lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                          std::int64_t n, Workspace<float>& ws) const override;
    double lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<double>& ws) const override;
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end, Workspace<float>& ws) const override;

private:
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
