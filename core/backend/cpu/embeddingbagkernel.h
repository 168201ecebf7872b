#pragma once
// The embedding bag's CPU arithmetic. A step's gradient has one segment for
// fc (weight and bias, contiguous) and one D-long segment per distinct table
// row its batch used, so an update writes only those rows.
#include "backend/cpu/modelkernel.h"
#include "model/embeddingbag.h"

namespace hwl {

class EmbeddingBagKernel final : public ModelKernel {
public:
    explicit EmbeddingBagKernel(const EmbeddingBag& model);

    float lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                          std::int64_t n, Workspace<float>& ws) const override;
    double lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<double>& ws) const override;
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end, Workspace<float>& ws) const override;

private:
    template <class T>
    void forward(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
                 Workspace<T>& ws) const;
    template <class T>
    T train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
            Workspace<T>& ws) const;

    std::int64_t vocab_, dim_, classes_;
    std::int64_t table_, weight_, bias_; // offsets
};

} // namespace hwl
