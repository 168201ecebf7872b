#include "charts/downsampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

namespace hwl::ui {

namespace {
bool isValid(double v) {
    return v == v; // invalid values are stored as NaN
}
} // namespace

bool MinMaxDecimator::extend(Block& b, std::uint32_t index) const {
    // As downsampleMinMax(): the earliest lowest and the earliest highest.
    const double v = values_[index];
    if (b.min == kNone) {
        b.min = b.max = index;
    } else if (v < values_[b.min]) {
        b.min = index;
    } else if (v > values_[b.max]) {
        b.max = index;
    } else {
        return false;
    }
    return true;
}

void MinMaxDecimator::reserve(qsizetype n) {
    values_.reserve(std::size_t(n));
    for (int k = 0; k < kLevels; ++k)
        levels_[k].reserve(std::size_t((n >> (kShift * (k + 1))) + 1));
}

void MinMaxDecimator::append(double value, bool valid) {
    valid = valid && isValid(value);
    const auto index = std::uint32_t(values_.size());
    values_.push_back(valid ? value : std::numeric_limits<double>::quiet_NaN());
    // A value that is neither the lowest nor the highest of its block is not
    // of any block containing that one either: most values stop at level 0.
    bool changed = valid;
    for (int k = 0; k < kLevels; ++k) {
        const int shift = kShift * (k + 1);
        std::vector<Block>& level = levels_[k];
        const bool starts = (index & ((std::uint32_t(1) << shift) - 1)) == 0;
        if (starts)
            level.emplace_back();
        else if (!changed)
            break; // and no higher level starts a block here either
        if (changed)
            changed = extend(level.back(), index);
    }
    if (!valid)
        return;
    ++validCount_;
    if (firstValid_ < 0)
        firstValid_ = index;
    lastValid_ = index;
}

void MinMaxDecimator::clear() {
    *this = MinMaxDecimator(); // frees the memory
}

MinMaxDecimator::Block MinMaxDecimator::mergeRange(int level, qsizetype firstIndex,
                                                   qsizetype endIndex) const {
    Block r;
    if (level < 0) {
        for (qsizetype i = firstIndex; i < endIndex; ++i)
            if (isValid(values_[std::size_t(i)]))
                extend(r, std::uint32_t(i));
        return r;
    }
    const int shift = kShift * (level + 1);
    const std::vector<Block>& blocks = levels_[level];
    const qsizetype lastBlock = (endIndex - 1) >> shift;
    for (qsizetype b = firstIndex >> shift; b <= lastBlock; ++b) {
        const Block& block = blocks[std::size_t(b)];
        if (block.min == kNone)
            continue;
        extend(r, block.min); // cannot lower r's max below...
        extend(r, block.max); // ...nor raise its min: max >= min
    }
    return r;
}

const std::vector<qsizetype>& MinMaxDecimator::select(int buckets) {
    selected_.clear();
    lastGroupSize_ = 0;
    if (validCount_ == 0)
        return selected_;
    const qsizetype n = size();

    if (buckets < 1 || validCount_ <= 2 * qsizetype(buckets) + 2) {
        // Every valid index; whole level-0 blocks without one are skipped.
        const qsizetype blockSize = qsizetype(1) << kShift;
        const std::vector<Block>& blocks = levels_[0];
        for (qsizetype b = firstValid_ >> kShift; b <= lastValid_ >> kShift; ++b) {
            if (blocks[std::size_t(b)].min == kNone)
                continue;
            const qsizetype end = std::min(n, (b + 1) * blockSize);
            for (qsizetype i = b * blockSize; i < end; ++i)
                if (isValid(values_[std::size_t(i)]))
                    selected_.push_back(i);
        }
        return selected_;
    }

    // Indices per group: at least n / buckets, rounded up to whole blocks of
    // the coarsest level that still leaves >= 8 blocks per group (so the
    // rounding costs at most 1/8 of the groups), or to single values.
    const qsizetype ideal = (n + buckets - 1) / buckets;
    int level = -1;
    for (int k = 0; k < kLevels; ++k)
        if ((qsizetype(1) << (kShift * (k + 1))) * 8 <= ideal)
            level = k;
    const qsizetype unit = level < 0 ? 1 : qsizetype(1) << (kShift * (level + 1));
    const qsizetype perGroup = (ideal + unit - 1) / unit * unit;
    if (perGroup != groupSize_ || level != groupLevel_) {
        groups_.clear();
        completeGroups_ = 0;
        groupSize_ = perGroup;
        groupLevel_ = level;
    }
    // Complete groups never change; only the others are (re)computed.
    groups_.resize(std::size_t(completeGroups_));
    const qsizetype groupCount = (n + perGroup - 1) / perGroup;
    for (qsizetype g = completeGroups_; g < groupCount; ++g)
        groups_.push_back(mergeRange(level, g * perGroup, std::min(n, (g + 1) * perGroup)));
    completeGroups_ = n / perGroup;
    lastGroupSize_ = perGroup;

    selected_.reserve(std::size_t(2 * groupCount + 2));
    selected_.push_back(firstValid_);
    for (const Block& group : groups_) {
        if (group.min == kNone)
            continue;
        qsizetype a = group.min;
        qsizetype b = group.max;
        if (a > b)
            std::swap(a, b);
        if (a != firstValid_ && a != lastValid_)
            selected_.push_back(a);
        if (b != a && b != firstValid_ && b != lastValid_)
            selected_.push_back(b);
    }
    selected_.push_back(lastValid_);
    return selected_;
}

} // namespace hwl::ui
