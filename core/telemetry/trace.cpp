#include "telemetry/trace.h"

#include <algorithm>

namespace hwl {

const char* traceKindName(TraceKind k) {
    switch (k) {
    case TraceKind::Compute:
        return "compute";
    case TraceKind::Wait:
        return "wait";
    case TraceKind::Communicate:
        return "communicate";
    case TraceKind::Gate:
        return "epoch gate";
    case TraceKind::Paced:
        return "paced";
    }
    return "?";
}

void SliceTracer::moveTo(std::uint64_t index) {
    if (open_ && current_.index == index)
        return;
    if (open_)
        ring_.push(current_);
    current_ = TraceSlice{};
    current_.index = index;
    startNs_ = originNs_ + std::int64_t(index) * sliceNs_;
    endNs_ = startNs_ + sliceNs_;
    open_ = true;
    empty_ = true;
}

void SliceTracer::addToCurrent(TraceKind kind, std::int64_t fromNs, std::int64_t toNs) {
    if (empty_) {
        current_.offset = std::uint32_t(fromNs - startNs_);
        empty_ = false;
    }
    current_.ns[std::size_t(kind)] += std::uint32_t(toNs - fromNs);
}

void SliceTracer::add(TraceKind kind, std::int64_t fromNs, std::int64_t toNs) {
    fromNs = std::max(fromNs, originNs_);
    if (toNs <= fromNs)
        return;
    if (open_ && fromNs >= startNs_ && toNs <= endNs_) { // a step inside the slice: no division
        addToCurrent(kind, fromNs, toNs);
        return;
    }
    while (fromNs < toNs) {
        const auto index = std::uint64_t((fromNs - originNs_) / sliceNs_);
        const std::int64_t sliceStart = originNs_ + std::int64_t(index) * sliceNs_;
        const auto whole = std::uint64_t((toNs - sliceStart) / sliceNs_);
        if (fromNs == sliceStart && whole >= 2 && !(open_ && current_.index == index)) {
            // A long wait (a pause, an evaluation): one record for its slices.
            flush();
            TraceSlice run;
            run.index = index;
            run.ns[std::size_t(kind)] = std::uint32_t(sliceNs_);
            run.span = std::uint32_t(std::min<std::uint64_t>(whole, 1u << 30));
            ring_.push(run);
            fromNs = sliceStart + std::int64_t(run.span) * sliceNs_;
            continue;
        }
        moveTo(index);
        const std::int64_t until = std::min(toNs, endNs_);
        addToCurrent(kind, fromNs, until);
        fromNs = until;
    }
}

void SliceTracer::countStep(std::int64_t ns) {
    if (ns < originNs_)
        return;
    if (!(open_ && ns >= startNs_ && ns < endNs_))
        moveTo(std::uint64_t((ns - originNs_) / sliceNs_));
    ++current_.steps;
}

void SliceTracer::flush() {
    if (open_)
        ring_.push(current_);
    open_ = false;
}

} // namespace hwl
