#include "train/epochplan.h"

#include "util/random.h"

#include <numeric>
#include <stdexcept>
#include <string>

namespace hwl {

namespace {
/// 0 .. rows-1, shuffled by (seed, epoch, stream) when asked.
void epochOrder(std::int64_t rows, bool shuffle, std::uint64_t seed, int epoch,
                std::uint64_t stream, std::vector<std::int64_t>& out) {
    out.resize(std::size_t(rows));
    std::iota(out.begin(), out.end(), std::int64_t(0));
    if (!shuffle)
        return;
    Rng rng(Rng::derive(seed, std::uint64_t(epoch), stream));
    for (std::int64_t i = rows - 1; i > 0; --i)
        std::swap(out[std::size_t(i)], out[rng.below(std::uint64_t(i + 1))]);
}
/// Rank `rank`'s stride of the epoch's order, padded by wrapping around.
void strideOf(const std::vector<std::int64_t>& order, std::uint32_t rank, std::uint32_t ranks,
              std::int64_t mine, std::vector<std::int64_t>& out) {
    const auto n = std::int64_t(order.size());
    out.resize(std::size_t(mine));
    for (std::int64_t k = 0; k < mine; ++k)
        out[std::size_t(k)] = order[std::size_t((rank + k * ranks) % n)];
}
} // namespace

void EpochPlan::ranksRows(int epoch, std::uint32_t first, std::uint32_t count,
                          std::vector<std::vector<std::int64_t>>& out) const {
    out.resize(count);
    for (std::uint32_t i = 0; i < count; ++i)
        rows(epoch, first + i, out[i]);
}

void SliceEpochPlan::rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const {
    // Shard: one shared permutation per epoch. Replicate: one per worker.
    epochOrder(rows_, shuffle_, seed_, epoch, split_ == DataSplit::Replicate ? rank + 1 : 0, out);
    if (split_ == DataSplit::Shard) {
        const std::int64_t begin = rows_ * rank / workers_, end = rows_ * (rank + 1) / workers_;
        out.erase(out.begin() + end, out.end());
        out.erase(out.begin(), out.begin() + begin);
    }
}

std::uint64_t SliceEpochPlan::samplesPerEpoch() const {
    return std::uint64_t(rows_) * (split_ == DataSplit::Replicate ? workers_ : 1u);
}

std::int64_t StridedEpochPlan::perRank() const {
    return dropLast_ ? rows_ / ranks_ : (rows_ + ranks_ - 1) / ranks_;
}

void StridedEpochPlan::order(int epoch, std::vector<std::int64_t>& out) const {
    ordersDrawn_.fetch_add(1, std::memory_order_relaxed);
    epochOrder(rows_, shuffle_, seed_, epoch, 0, out);
}

void StridedEpochPlan::rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const {
    std::vector<std::int64_t> all;
    order(epoch, all);
    // Position p of the padded order is row all[p % rows] (wrapping around).
    strideOf(all, rank, ranks_, perRank(), out);
}

void StridedEpochPlan::ranksRows(int epoch, std::uint32_t first, std::uint32_t count,
                                 std::vector<std::vector<std::int64_t>>& out) const {
    if (std::uint64_t(first) + count > ranks_)
        throw std::out_of_range("ranks " + std::to_string(first) + " .. " +
                                std::to_string(std::uint64_t(first) + count - 1) +
                                " of a plan of " + std::to_string(ranks_));
    std::vector<std::int64_t> all;
    order(epoch, all);
    out.resize(count);
    for (std::uint32_t i = 0; i < count; ++i)
        strideOf(all, first + i, ranks_, perRank(), out[i]);
}

std::uint64_t StridedEpochPlan::samplesPerEpoch() const {
    return std::uint64_t(perRank()) * ranks_;
}

} // namespace hwl
