#pragma once
// Min/max downsampling of a curve for drawing: a line through the kept points
// covers the same vertical extent, column by column, as the full curve, so
// spikes and dips stay visible at any zoom-out. downsampleMinMax() is a pure
// function (thread-safe); MinMaxDecimator does the same incrementally.
#include <QList>
#include <QPointF>

#include <cstdint>
#include <vector>

namespace hwl::ui {

/// Reduces `points` (sorted by ascending x; y may be NaN or inf) to at most
/// 2*buckets + 2 points for drawing.
///
/// - When points.size() <= 2*buckets + 2 (or buckets < 1 and there is nothing
///   sensible to do) the input is returned unchanged.
/// - Otherwise the x range [first.x, last.x] is split into `buckets`
///   equal-width buckets (the last one closed on the right; all points in one
///   bucket when the range is empty). Per bucket, the points with the lowest
///   and the highest finite y are kept, in their input order (one point when
///   they are the same point). Points whose y is not finite are never chosen
///   as a bucket's min or max.
/// - The very first and the very last input points are always kept.
/// - The result is a subsequence of the input: sorted by x like it, no input
///   point appears twice.
///
/// Cost: one O(n) pass; the only allocation is the result.
QList<QPointF> downsampleMinMax(const QList<QPointF>& points, int buckets);

} // namespace hwl::ui

namespace hwl::ui {

/// The incremental form of min/max downsampling, for a curve that only grows
/// (a live training curve): values are appended one at a time and
/// select(buckets) picks the indices to draw in O(buckets) plus the work the
/// new values bring, whatever the length of the history.
///
/// It buckets by INDEX, not by x: a caller whose x grows with the index
/// (step, samples, time) gets the same picture as downsampleMinMax() on
/// evenly spaced points. It keeps the values and, per level k = 0..5, one
/// block per 8^(k+1) indices holding the indices of the block's lowest and
/// highest valid value (the earliest on ties). select() merges consecutive
/// blocks of a level into groups of a fixed number of indices and caches the
/// groups that are complete, so a refresh only recomputes the last one.
///
/// Not thread-safe; cheap to move.
class MinMaxDecimator {
public:
    /// Appends the value at index size(). Invalid values (valid == false, e.g.
    /// not drawable on a log axis; NaN always counts as invalid) are stored as
    /// NaN and never selected.
    void append(double value, bool valid);
    /// Room for n values in all, to append them without reallocating.
    void reserve(qsizetype n);
    /// Drops everything, memory included.
    void clear();

    qsizetype size() const { return qsizetype(values_.size()); }
    /// The value at `index` (NaN for an invalid one).
    double value(qsizetype index) const { return values_[std::size_t(index)]; }
    qsizetype validCount() const { return validCount_; }
    /// Index of the first / last valid value; -1 when there is none.
    qsizetype firstValid() const { return firstValid_; }
    qsizetype lastValid() const { return lastValid_; }

    /// Ascending indices of the values to draw, at most 2*buckets + 2:
    /// - every valid index when validCount() <= 2*buckets + 2 (or buckets < 1);
    /// - otherwise the first and the last valid index, and for each group of
    ///   consecutive indices (at most `buckets` groups of equal size, the
    ///   last one possibly shorter) the index of its lowest and of its highest
    ///   valid value (one index when they coincide, none when the group has
    ///   no valid value). The global extremes are therefore always kept.
    /// The result depends only on the values and `buckets`, not on how the
    /// values were appended. Valid until the next non-const call.
    const std::vector<qsizetype>& select(int buckets);
    /// Indices per group in the last select() that grouped; 0 when it kept
    /// every valid index.
    qsizetype groupSize() const { return lastGroupSize_; }

private:
    struct Block {
        std::uint32_t min = kNone;
        std::uint32_t max = kNone;
    };
    static constexpr std::uint32_t kNone = 0xffffffffu;
    static constexpr int kLevels = 6;
    static constexpr int kShift = 3; // level k: blocks of 1 << (kShift*(k+1)) indices

    Block mergeRange(int level, qsizetype firstIndex, qsizetype endIndex) const;
    bool extend(Block& b, std::uint32_t index) const; // true when b changed

    std::vector<double> values_;
    std::vector<Block> levels_[kLevels];
    qsizetype validCount_ = 0;
    qsizetype firstValid_ = -1;
    qsizetype lastValid_ = -1;

    // select()'s cache: groups of groupSize_ indices from level groupLevel_
    // (-1: the values themselves); the first completeGroups_ of them are
    // complete and final.
    qsizetype groupSize_ = 0;
    int groupLevel_ = -1;
    std::vector<Block> groups_;
    qsizetype completeGroups_ = 0;
    std::vector<qsizetype> selected_;
    qsizetype lastGroupSize_ = 0;
};

} // namespace hwl::ui
