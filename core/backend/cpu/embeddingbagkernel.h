#pragma once
// The embedding bag's CPU arithmetic. A step's gradient has one segment for
// fc (weight and bias, contiguous) and one D-long segment per distinct table
// row its batch used, so an update writes only those rows.
#include "backend/cpu/modelkernelof.h"
#include "model/embeddingbag.h"

namespace hwl {

class EmbeddingBagKernel final : public ModelKernelOf<EmbeddingBagKernel> {
public:
    explicit EmbeddingBagKernel(const EmbeddingBag& model);

private:
    friend class ModelKernelOf<EmbeddingBagKernel>;
    const float* logits(const float* params, const DatasetView& data, const std::int64_t* rows,
                        std::int64_t n, Workspace<float>& ws) const {
        forward(params, data, rows, n, ws);
        return ws.pre[0].data();
    }
    std::int64_t classes() const { return classes_; }
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
