#pragma once
// Min/max downsampling of a curve for drawing: a line through the kept points
// covers the same vertical extent, column by column, as the full curve, so
// spikes and dips stay visible at any zoom-out. Thread-safe (pure function).
#include <QList>
#include <QPointF>

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
