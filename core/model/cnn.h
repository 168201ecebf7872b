#pragma once
// Cnn: PyTorch's examples/mnist_hogwild network over 28x28 one-channel images:
//   conv1 1->10 5x5, max-pool 2, ReLU,
//   conv2 10->20 5x5, Dropout2d, max-pool 2, ReLU,
//   flatten 320, fc1 320->50, ReLU, dropout, fc2 50->10, softmax cross-entropy.
// Tensor names and shapes are that Net's state_dict ("conv1.weight"
// [10, 1, 5, 5], "conv1.bias", "conv2.weight" [20, 10, 5, 5], "conv2.bias",
// "fc1.weight" [50, 320], "fc1.bias", "fc2.weight" [10, 50], "fc2.bias"), so
// load_state_dict(strict=True) takes an export.
#include "model/model.h"

namespace hwl {

class Cnn final : public Model {
public:
    /// The network's fixed sizes (cnn:mnist).
    struct Shape {
        std::int64_t side = 28;    ///< input height and width, one channel
        std::int64_t kernel = 5;   ///< both convolutions' kernel side
        std::int64_t conv1 = 10;   ///< conv1's output channels
        std::int64_t conv2 = 20;   ///< conv2's output channels
        std::int64_t hidden = 50;  ///< fc1's width
        std::int64_t classes = 10; ///< fc2's width
        std::int64_t side1() const { return side - kernel + 1; }      ///< 24: conv1's output side
        std::int64_t pooled1() const { return side1() / 2; }          ///< 12
        std::int64_t side2() const { return pooled1() - kernel + 1; } ///< 8
        std::int64_t pooled2() const { return side2() / 2; }          ///< 4
        std::int64_t flat() const { return conv2 * pooled2() * pooled2(); } ///< 320
    };
    /// Offsets of the eight tensors in the flat buffer.
    struct Offsets {
        std::int64_t conv1Weight, conv1Bias, conv2Weight, conv2Bias;
        std::int64_t fc1Weight, fc1Bias, fc2Weight, fc2Bias;
    };

    explicit Cnn(const ModelSpec& spec);
    const Shape& shape() const { return shape_; }
    const Offsets& offsets() const { return offsets_; }

    void initialize(float* params, std::uint64_t seed) const override;
    std::string incompatibility(const DatasetShape& data) const override;
    double flopsPerSample() const override;

private:
    Shape shape_;
    Offsets offsets_{};
};

} // namespace hwl
