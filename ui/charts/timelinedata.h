#pragma once
// What the window's Timeline draws: the last seconds of every worker's time
// slices (compute, wait, communicate, epoch gate, paced; core/telemetry/trace.h) and the
// coordinator's evaluations, as the run's telemetry hands them out, gathered
// into bins as wide as a pixel column (never narrower than one slice).
// Plain data, no widgets: TimelineView paints it, tests read it.
#include "telemetry/trace.h"

#include <array>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace hwl::ui {

/// Nanoseconds per TraceKind.
using KindNs = std::array<double, kTraceKinds>;

/// The bins' sum, kind by kind.
KindNs sumOf(const std::vector<KindNs>& bins);

class TimelineData {
public:
    /// The longest view the window offers; older slices are let go.
    static constexpr std::int64_t kKeepNs = 10'000'000'000;

    /// Empties it for a run of `workers` workers traced in slices of
    /// `sliceNs` (0: the run is not traced, nothing will come).
    void reset(int workers, std::int64_t sliceNs);
    /// Worker `worker`'s slice (out of range: ignored).
    void addSlice(std::uint32_t worker, const TraceSlice& slice);
    /// A coordinator's span, its times on the monotonic clock; `startNs`:
    /// the run's start on it (TelemetryReader::startNs()).
    void addSpan(const TraceSpan& span, std::int64_t startNs);

    int workers() const { return int(slices_.size()); }
    std::int64_t sliceNs() const { return sliceNs_; }
    /// The end of the latest slice, in ns from the run's start: the view's
    /// right edge (it stands still while no worker reports, as in a pause).
    std::int64_t endNs() const { return endNs_; }
    bool empty() const { return endNs_ == 0; }

    /// The bin width for a view of `windowNs` over `columns` pixels: whole
    /// slices, at least one, at least a column.
    std::int64_t binNs(std::int64_t windowNs, int columns) const;
    /// Worker `worker`'s time per kind in `count` bins of `binNs` from
    /// `fromNs` (a multiple of binNs, which is one of the slice length;
    /// negative before the run's start).
    std::vector<KindNs> bins(int worker, std::int64_t fromNs, std::int64_t binNs, int count) const;
    /// The coordinator's evaluations that overlap [fromNs, toNs), in ns from
    /// the run's start.
    std::vector<std::pair<std::int64_t, std::int64_t>> evaluations(std::int64_t fromNs,
                                                                   std::int64_t toNs) const;

private:
    /// Calls fn(first, count, slice) for each record that overlaps slice
    /// indices [from, to): the `count` slices from `first` it holds there.
    template <class Fn>
    void forEach(int worker, std::uint64_t from, std::uint64_t to, Fn&& fn) const;
    void trim();

    std::vector<std::deque<TraceSlice>> slices_;
    std::deque<std::pair<std::int64_t, std::int64_t>> evaluations_;
    std::int64_t sliceNs_ = 0;
    std::int64_t endNs_ = 0;
};

} // namespace hwl::ui
