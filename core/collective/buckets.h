#pragma once
// Gradient buckets, as PyTorch's DDP forms them: contiguous ranges of the
// flat parameter buffer taken in reverse ParamLayout order (the last layer
// first, as a backward pass produces them), whole tensors each, a small
// first bucket (1 MiB) and then up to `capMb` MiB. Every rank derives the
// same buckets from the same layout, and reduces them in this order.
#include "model/paramlayout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct Bucket {
    std::int64_t offset = 0; ///< first float in the flat buffer
    std::int64_t length = 0; ///< floats
};

/// The buckets of `layout`, in reduction order. A tensor larger than the cap
/// is a bucket of its own.
std::vector<Bucket> makeBuckets(const ParamLayout& layout, double capMb, double firstMb = 1.0);

/// A one-line description of a layout (names, shapes, offsets) that ranks
/// compare to check they train the same model, e.g.
/// "0.weight[256x100]@0 0.bias[256]@25600 ...".
std::string layoutSignature(const ParamLayout& layout);
/// What differs between this rank's layout and rank 0's signature, in words;
/// empty when they are the same.
std::string layoutDifference(const ParamLayout& mine, const std::string& rank0);

} // namespace hwl
