#pragma once
// EmbeddingBag classifier for sparse rows (bags of tokens):
//   h = (1/len) * sum_k value_k * E[token_k]     (nn.EmbeddingBag, mode "mean",
//   logits = W h + b                              with values as weights)
// Tensors: "embedding.weight" [V, D], "fc.weight" [C, D], "fc.bias" [C].
// A step's gradient touches only the embedding rows its batch used, plus fc.
#include "model/model.h"

namespace hwl {

class EmbeddingBag final : public Model {
public:
    explicit EmbeddingBag(const ModelSpec& spec);

    void initialize(float* params, std::uint64_t seed) const override;
    float lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                          std::int64_t n, Workspace<float>& ws) const override;
    double lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<double>& ws) const override;
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end, Workspace<float>& ws) const override;
    std::string incompatibility(const DatasetView& data) const override;
    double flopsPerSample() const override;

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
