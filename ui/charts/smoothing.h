#pragma once
// Display-time smoothing of a training curve, the way TensorBoard does it.
// Pure functions; thread-safe.
#include <QList>
#include <QPointF>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

/// The smoothing weight actually used for `weight`: clamped to [0, 0.99]; NaN
/// gives 0 (no smoothing).
inline double clampSmoothingWeight(double weight) {
    if (!(weight > 0))
        return 0;
    return std::min(weight, 0.99);
}

/// The running state of smoothEma(), one value at a time, for callers that
/// smooth while they extract a curve.
class EmaSmoother {
public:
    explicit EmaSmoother(double weight) : w_(clampSmoothingWeight(weight)) {}
    /// The smoothed value for the next input `y`; non-finite values (and
    /// every value when the weight is 0) come back unchanged and leave the
    /// average as it was.
    double next(double y) {
        if (w_ == 0 || !std::isfinite(y))
            return y;
        last_ = last_ * w_ + (1 - w_) * y;
        if (debiased_) // 1 - w^n rounds to 1: the division changes nothing
            return last_;
        wPowN_ *= w_;
        debiased_ = 1 - wPowN_ == 1;
        return last_ / (1 - wPowN_);
    }
    double weight() const { return w_; }

private:
    double w_;
    double last_ = 0;
    double wPowN_ = 1; // w^n, n = finite values seen so far
    bool debiased_ = false;
};

/// smoothEma() on `points` in place (no allocation).
inline void smoothEmaInPlace(QList<QPointF>& points, double weight) {
    EmaSmoother ema(weight);
    if (ema.weight() == 0)
        return;
    for (QPointF& p : points)
        p.setY(ema.next(p.y()));
}

/// TensorBoard's debiased exponential moving average of the y values of
/// `points` (x unchanged), in input order:
///   last = last*w + (1-w)*y;  n += 1;  smoothed y = last / (1 - w^n)
/// with last = 0 and n = 0 at the start, so the first smoothed value equals
/// the first input value. `weight` is clamped to [0, 0.99]; 0 returns the
/// input unchanged. Points whose y is NaN or infinite are returned as they are
/// and do not enter the average. O(n); allocates the result only.
inline QList<QPointF> smoothEma(const QList<QPointF>& points, double weight) {
    QList<QPointF> out = points;
    smoothEmaInPlace(out, weight);
    return out;
}

} // namespace hwl::ui
