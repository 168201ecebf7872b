#pragma once
// ParamLayout: names every tensor of a model inside ONE flat float buffer.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct ParamTensor {
    std::string name;                ///< as PyTorch's state_dict names it, e.g. "0.weight"
    std::vector<std::int64_t> shape; ///< row-major, e.g. {256, 100} for Linear(100, 256)
    std::int64_t offset = 0;         ///< first float in the flat buffer
    std::int64_t size = 0;           ///< product(shape)
};

class ParamLayout {
public:
    /// Appends a tensor after the last one; returns its offset.
    std::int64_t add(std::string name, std::vector<std::int64_t> shape) {
        std::int64_t size = 1;
        for (auto d : shape)
            size *= d;
        tensors_.push_back({std::move(name), std::move(shape), total_, size});
        total_ += size;
        return tensors_.back().offset;
    }
    const std::vector<ParamTensor>& tensors() const { return tensors_; }
    std::int64_t total() const { return total_; } ///< floats in the flat buffer

private:
    std::vector<ParamTensor> tensors_;
    std::int64_t total_ = 0;
};

} // namespace hwl
