#include "train/epochplan.h"

#include "util/random.h"

#include <numeric>

namespace hwl {

void SliceEpochPlan::rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const {
    out.resize(std::size_t(rows_));
    std::iota(out.begin(), out.end(), std::int64_t(0));
    if (shuffle_) {
        // Shard: one shared permutation per epoch. Replicate: one per worker.
        Rng rng(Rng::derive(seed_, std::uint64_t(epoch),
                            split_ == DataSplit::Replicate ? rank + 1 : 0));
        for (std::int64_t i = rows_ - 1; i > 0; --i)
            std::swap(out[std::size_t(i)], out[rng.below(std::uint64_t(i + 1))]);
    }
    if (split_ == DataSplit::Shard) {
        const std::int64_t begin = rows_ * rank / workers_, end = rows_ * (rank + 1) / workers_;
        out.erase(out.begin() + end, out.end());
        out.erase(out.begin(), out.begin() + begin);
    }
}

std::uint64_t SliceEpochPlan::samplesPerEpoch() const {
    return std::uint64_t(rows_) * (split_ == DataSplit::Replicate ? workers_ : 1u);
}

} // namespace hwl
