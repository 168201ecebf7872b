#pragma once
// Net: a network given as a layer list (model/layers.h), cnn:mnist among
// them. Its tensors are named as PyTorch's nn.Sequential of the same layers
// names them ("0.weight" [out, in, k, k] for a first conv2d, "3.bias", ...),
// so load_state_dict(strict=True) on that Sequential takes an export; cnn:mnist
// keeps the names of mnist_hogwild's Net ("conv1.weight", "conv2.weight",
// "fc1.weight", "fc2.weight" and their biases).
#include "model/model.h"

#include <vector>

namespace hwl {

class Net final : public Model {
public:
    explicit Net(const ModelSpec& spec);

    /// Each layer's shapes, with the offsets of its weight and bias (0 and 0
    /// for a layer without parameters).
    struct Placed {
        LayerInfo info;
        std::int64_t weight = 0, bias = 0;
    };
    const std::vector<Placed>& layers() const { return layers_; }
    std::int64_t classes() const { return spec_.classes; }

    void initialize(float* params, std::uint64_t seed) const override;
    std::string incompatibility(const DatasetShape& data) const override;
    double flopsPerSample() const override;

private:
    std::vector<Placed> layers_;
};

/// The name prefix of layer `index`'s tensors in `spec`'s export: its index
/// in the Sequential, or mnist_hogwild's names for cnn:mnist.
std::string tensorPrefix(const ModelSpec& spec, std::size_t index);

} // namespace hwl
