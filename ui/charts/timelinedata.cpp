#include "charts/timelinedata.h"

#include <algorithm>

namespace hwl::ui {

void TimelineData::reset(int workers, std::int64_t sliceNs) {
    slices_.assign(std::size_t(std::max(0, workers)), {});
    evaluations_.clear();
    sliceNs_ = std::max<std::int64_t>(0, sliceNs);
    endNs_ = 0;
}

void TimelineData::addSlice(std::uint32_t worker, const TraceSlice& slice) {
    if (worker >= slices_.size() || sliceNs_ <= 0)
        return;
    // Each worker's slices come in time order; a record out of order (none
    // is expected) would only be drawn where it falls.
    slices_[worker].push_back(slice);
    endNs_ = std::max(endNs_, std::int64_t(slice.index + std::max(1u, slice.span)) * sliceNs_);
    trim();
}

void TimelineData::addSpan(const TraceSpan& span, std::int64_t startNs) {
    if (span.kind != TraceSpan::Evaluate || span.endNs <= span.beginNs)
        return;
    evaluations_.emplace_back(span.beginNs - startNs, span.endNs - startNs);
    trim();
}

void TimelineData::trim() {
    const std::int64_t keepFrom = endNs_ - kKeepNs - sliceNs_;
    for (auto& worker : slices_)
        while (!worker.empty() &&
               std::int64_t(worker.front().index + std::max(1u, worker.front().span)) * sliceNs_ <
                   keepFrom)
            worker.pop_front();
    while (!evaluations_.empty() && evaluations_.front().second < keepFrom)
        evaluations_.pop_front();
}

std::int64_t TimelineData::binNs(std::int64_t windowNs, int columns) const {
    if (sliceNs_ <= 0)
        return 1;
    const std::int64_t perColumn = windowNs / std::max(1, columns);
    return sliceNs_ * std::max<std::int64_t>(1, (perColumn + sliceNs_ - 1) / sliceNs_);
}

template <class Fn>
void TimelineData::forEach(int worker, std::uint64_t from, std::uint64_t to, Fn&& fn) const {
    if (worker < 0 || std::size_t(worker) >= slices_.size())
        return;
    for (const TraceSlice& s : slices_[std::size_t(worker)]) {
        const std::uint64_t begin = std::max<std::uint64_t>(s.index, from);
        const std::uint64_t end = std::min<std::uint64_t>(s.index + std::max(1u, s.span), to);
        if (begin < end)
            fn(begin, end - begin, s);
    }
}

std::vector<KindNs> TimelineData::bins(int worker, std::int64_t fromNs, std::int64_t binNs,
                                       int count) const {
    std::vector<KindNs> out(std::size_t(std::max(0, count)), KindNs{});
    if (sliceNs_ <= 0 || count <= 0 || binNs < sliceNs_)
        return out;
    const std::int64_t perBin = binNs / sliceNs_;
    // The first bin's first slice (before the run's start when the view is
    // longer than the run so far: those bins stay empty).
    const std::int64_t base =
        fromNs >= 0 ? fromNs / sliceNs_ : -((-fromNs + sliceNs_ - 1) / sliceNs_);
    const std::int64_t end = base + perBin * count;
    if (end <= 0)
        return out;
    forEach(worker, std::uint64_t(std::max<std::int64_t>(0, base)), std::uint64_t(end),
            [&](std::uint64_t index, std::uint64_t n, const TraceSlice& s) {
                const std::int64_t at0 = std::int64_t(index);
                if (s.span <= 1) {
                    KindNs& bin = out[std::size_t((at0 - base) / perBin)];
                    for (std::size_t k = 0; k < kTraceKinds; ++k)
                        bin[k] += s.ns[k];
                    return;
                }
                // A span record: whole slices of its one kind, bin by bin.
                for (std::int64_t at = at0; at < at0 + std::int64_t(n);) {
                    const std::int64_t b = (at - base) / perBin;
                    const std::int64_t take =
                        std::min(base + (b + 1) * perBin, at0 + std::int64_t(n)) - at;
                    for (std::size_t k = 0; k < kTraceKinds; ++k)
                        if (s.ns[k])
                            out[std::size_t(b)][k] += double(take) * double(sliceNs_);
                    at += take;
                }
            });
    return out;
}

KindNs sumOf(const std::vector<KindNs>& bins) {
    KindNs sum{};
    for (const KindNs& bin : bins)
        for (std::size_t k = 0; k < kTraceKinds; ++k)
            sum[k] += bin[k];
    return sum;
}

std::vector<std::pair<std::int64_t, std::int64_t>>
TimelineData::evaluations(std::int64_t fromNs, std::int64_t toNs) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& e : evaluations_)
        if (e.second > fromNs && e.first < toNs)
            out.push_back(e);
    return out;
}

} // namespace hwl::ui
