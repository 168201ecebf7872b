#pragma once
// Mlp: Linear -> act -> ... -> Linear, softmax cross-entropy. Tensor names and
// shapes match nn.Sequential(nn.Linear, nn.ReLU, nn.Linear, ...): "0.weight"
// [out, in], "0.bias" [out], "2.weight", ... so load_state_dict takes them.
// With no hidden layer it is logistic regression ("0.weight", "0.bias").
#include "model/model.h"

#include <vector>

namespace hwl {

class Mlp final : public Model {
public:
    explicit Mlp(const ModelSpec& spec);

    /// One Linear layer: its widths and the offsets of its tensors.
    struct Layer {
        std::int64_t in, out, weight, bias;
    };
    const std::vector<Layer>& layers() const { return layers_; }

    void initialize(float* params, std::uint64_t seed) const override;
    std::string incompatibility(const DatasetShape& data) const override;
    double flopsPerSample() const override;

private:
    std::vector<Layer> layers_;
};

} // namespace hwl
