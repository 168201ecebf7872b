#include "optim/gradientsum.h"

#include <algorithm>

namespace hwl {

void GradientSum::add(const Gradient<float>& grad, const float* dense) {
    if (sum_.empty())
        sum_.assign(std::size_t(total_), 0.0f);
    for (const Gradient<float>::Segment& s : grad.segments) {
        const float* values = dense ? dense + s.offset : grad.values.data() + s.valueIndex;
        float* into = sum_.data() + s.offset;
        for (std::int64_t i = 0; i < s.length; ++i)
            into[i] += values[i];
        touched_.emplace_back(s.offset, s.offset + s.length);
    }
    ++added_;
}

void GradientSum::finish(Gradient<float>& grad, float* dense, int count) {
    add(grad, dense);
    std::sort(touched_.begin(), touched_.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges; // merged: disjoint, in order
    for (const auto& r : touched_) {
        if (!ranges.empty() && r.first <= ranges.back().second)
            ranges.back().second = std::max(ranges.back().second, r.second);
        else
            ranges.push_back(r);
    }
    const float n = float(count);
    std::int64_t at = 0;
    if (!dense) {
        std::int64_t length = 0;
        for (const auto& r : ranges)
            length += r.second - r.first;
        grad.values.resize(std::size_t(length));
        grad.segments.clear();
    }
    for (const auto& [begin, end] : ranges) {
        float* out = dense ? dense + begin : grad.values.data() + at;
        for (std::int64_t i = begin; i < end; ++i) {
            out[i - begin] = sum_[std::size_t(i)] / n;
            sum_[std::size_t(i)] = 0.0f;
        }
        if (!dense)
            grad.segments.push_back({begin, end - begin, at});
        at += end - begin;
    }
    touched_.clear();
    added_ = 0;
}

} // namespace hwl
