#include "downsampler.h"

#include <cmath>
#include <utility>

namespace hwl::ui {

QList<QPointF> downsampleMinMax(const QList<QPointF>& points, int buckets) {
    const qsizetype n = points.size();
    if (buckets < 1 || n <= 2 * qsizetype(buckets) + 2)
        return points;

    const double x0 = points.front().x();
    const double width = (points.back().x() - x0) / buckets;
    // Bucket of x; monotonic in x, so a sorted input visits buckets in order.
    // A NaN quotient (empty or non-finite range) lands in bucket 0.
    auto bucketOf = [&](double x) -> int {
        const double t = (x - x0) / width;
        if (t >= buckets)
            return buckets - 1;
        return t > 0 ? int(t) : 0;
    };

    QList<QPointF> out;
    out.reserve(2 * qsizetype(buckets) + 2);
    out.append(points.front());

    qsizetype minIndex = -1;
    qsizetype maxIndex = -1;
    // Emits the current bucket's extremes in input order; the first and last
    // points are emitted on their own, so they are skipped here.
    auto flush = [&] {
        if (minIndex < 0)
            return;
        qsizetype a = minIndex;
        qsizetype b = maxIndex;
        if (a > b)
            std::swap(a, b);
        if (a != 0 && a != n - 1)
            out.append(points[a]);
        if (b != a && b != 0 && b != n - 1)
            out.append(points[b]);
        minIndex = maxIndex = -1;
    };

    int current = bucketOf(points.front().x());
    for (qsizetype i = 0; i < n; ++i) {
        const QPointF& p = points[i];
        const int bucket = bucketOf(p.x());
        if (bucket != current) {
            flush();
            current = bucket;
        }
        const double y = p.y();
        if (!std::isfinite(y))
            continue;
        if (minIndex < 0) {
            minIndex = maxIndex = i;
        } else if (y < points[minIndex].y()) {
            minIndex = i;
        } else if (y > points[maxIndex].y()) {
            maxIndex = i;
        }
    }
    flush();
    out.append(points.back());
    return out;
}

} // namespace hwl::ui
