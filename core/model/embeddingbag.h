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

    std::int64_t vocab() const { return vocab_; }
    std::int64_t dim() const { return dim_; }
    std::int64_t classes() const { return classes_; }
    /// Offsets of "embedding.weight", "fc.weight" and "fc.bias" (fc.bias
    /// follows fc.weight directly).
    std::int64_t tableOffset() const { return table_; }
    std::int64_t weightOffset() const { return weight_; }
    std::int64_t biasOffset() const { return bias_; }

    void initialize(float* params, std::uint64_t seed) const override;
    std::string incompatibility(const DatasetShape& data) const override;
    double flopsPerSample() const override;

private:
    std::int64_t vocab_, dim_, classes_;
    std::int64_t table_, weight_, bias_;
};

} // namespace hwl
