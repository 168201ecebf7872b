#pragma once
// EpochPlan: which training rows each worker visits in each epoch, in order.
// A strategy property: Hogwild modes slice one shuffled order (or let every
// worker walk all rows); data-parallel modes will deal the order out so every
// rank takes the same number of steps. Immutable; shared by all workers.
#include "config/experimentconfig.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace hwl {

class EpochPlan {
public:
    virtual ~EpochPlan() = default;
    /// The rows worker `rank` visits in `epoch` (1-based), in order.
    virtual void rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const = 0;
    /// The rows of ranks first .. first + count - 1 in `epoch`: out[i] is
    /// rows(epoch, first + i). One call per epoch where a process drives many
    /// ranks (a GPU's replicas): a plan may draw the epoch's order once.
    virtual void ranksRows(int epoch, std::uint32_t first, std::uint32_t count,
                           std::vector<std::vector<std::int64_t>>& out) const;
    /// Training samples all workers together visit in one epoch.
    virtual std::uint64_t samplesPerEpoch() const = 0;
};

/// Today's plans, from the experiment's split:
///   shard:     one permutation of all rows per epoch (the same for every
///              worker); worker r takes the r-th of `workers` contiguous slices;
///   replicate: every worker walks all rows in its own order (the blog's recipe).
/// Without shuffle the order is 0, 1, 2, ... (for exact comparisons).
class SliceEpochPlan final : public EpochPlan {
public:
    SliceEpochPlan(std::int64_t rows, std::uint32_t workers, DataSplit split, bool shuffle,
                   std::uint64_t seed)
        : rows_(rows), workers_(workers), split_(split), shuffle_(shuffle), seed_(seed) {}
    void rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const override;
    std::uint64_t samplesPerEpoch() const override;

private:
    std::int64_t rows_;
    std::uint32_t workers_;
    DataSplit split_;
    bool shuffle_;
    std::uint64_t seed_;
};

/// Data-parallel replicas, as PyTorch's DistributedSampler deals an epoch:
/// one order per epoch (shuffled with the seed and the epoch, the same on
/// every rank, or file order), padded by wrapping around to a multiple of
/// the rank count (or, with dropLast, cut to one), and rank r takes positions
/// r, r + N, r + 2N, ... So every rank visits the same number of rows and
/// takes the same number of steps, and at step s the N ranks' batches of b
/// together are the rows serial training with batch N * b takes at step s.
class StridedEpochPlan final : public EpochPlan {
public:
    StridedEpochPlan(std::int64_t rows, std::uint32_t ranks, bool shuffle, bool dropLast,
                     std::uint64_t seed)
        : rows_(rows), ranks_(ranks), shuffle_(shuffle), dropLast_(dropLast), seed_(seed) {}
    void rows(int epoch, std::uint32_t rank, std::vector<std::int64_t>& out) const override;
    /// One shuffle for all `count` ranks (rows() draws the order per rank).
    void ranksRows(int epoch, std::uint32_t first, std::uint32_t count,
                   std::vector<std::vector<std::int64_t>>& out) const override;
    std::uint64_t samplesPerEpoch() const override;
    /// Rows each rank visits per epoch.
    std::int64_t perRank() const;
    /// How many epoch orders this plan has drawn (for tests: ranksRows draws
    /// one per call, rows() one per rank).
    std::uint64_t ordersDrawn() const { return ordersDrawn_.load(std::memory_order_relaxed); }

private:
    void order(int epoch, std::vector<std::int64_t>& out) const;

    std::int64_t rows_;
    std::uint32_t ranks_;
    bool shuffle_, dropLast_;
    std::uint64_t seed_;
    mutable std::atomic<std::uint64_t> ordersDrawn_{0};
};

} // namespace hwl
