#pragma once
// Gradient accumulation (--accumulate K): the gradients of K micro-batches
// summed before one update, whose gradient is their mean (the gradient of
// the K micro-batches as one batch, as PyTorch's loop gets by dividing each
// micro-batch's loss by K before backward()). A sparse gradient's segments
// differ from one micro-batch to the next: the sum runs over the union of
// their ranges.
#include "optim/gradient.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <vector>

namespace hwl {

class GradientSum {
public:
    /// For a model of `total` parameters (the sum's storage is taken on the
    /// first add()).
    explicit GradientSum(std::int64_t total) : total_(total) {}

    /// Adds `grad` into the sum: its values, or, where the kernel wrote a
    /// dense gradient elsewhere (`dense`, StepKernel::gradientInto), those.
    void add(const Gradient<float>& grad, const float* dense);
    /// `grad` (or `dense`) becomes the mean of the sum and itself, `count`
    /// gradients in all, over the union of their ranges (in offset order);
    /// the sum starts empty again.
    void finish(Gradient<float>& grad, float* dense, int count);
    /// Gradients added since the last finish().
    int added() const { return added_; }

private:
    std::int64_t total_;
    AlignedVector<float> sum_; ///< zero outside the ranges in touched_
    std::vector<std::pair<std::int64_t, std::int64_t>> touched_; ///< [begin, end) added
    int added_ = 0;
};

} // namespace hwl
