#include "telemetry/telemetryreader.h"

#include "telemetry/telemetry.h"

namespace hwl {

namespace {
double secondsOrNone(std::int64_t ns) {
    return ns >= 0 ? double(ns) * 1e-9 : -1.0;
}
} // namespace

std::uint32_t TelemetryReader::workerCount() const {
    return telemetry_->workerCount();
}

RunState TelemetryReader::runState() const {
    return telemetry_->runState();
}

double TelemetryReader::elapsed() const {
    return telemetry_->elapsed();
}

WorkerSnapshot TelemetryReader::worker(std::uint32_t rank) const {
    const WorkerStatus& w = telemetry_->worker(rank);
    const std::int64_t start = telemetry_->header().startNs;
    WorkerSnapshot s;
    s.rank = rank;
    s.pid = w.pid.load(std::memory_order_relaxed);
    s.threadId = w.threadId.load(std::memory_order_relaxed);
    s.state = loadState(w.state);
    s.failure = telemetry_->failureText(rank);
    s.host = telemetry_->host(rank);
    s.steps = w.steps.load(std::memory_order_relaxed);
    s.samples = w.samples.load(std::memory_order_relaxed);
    s.epochs = w.epoch.load(std::memory_order_acquire);
    s.lastLoss = w.lastLoss.load(std::memory_order_relaxed);
    s.lastDivergence = w.lastDivergence.load(std::memory_order_relaxed);
    s.lastEpochLoss = w.lastEpochLoss.load(std::memory_order_relaxed);
    const std::int64_t launch = w.launchNs.load(std::memory_order_relaxed);
    s.launchSeconds = launch > 0 ? secondsOrNone(launch - start) : -1.0;
    s.startupSeconds = secondsOrNone(w.startupNs.load(std::memory_order_relaxed));
    const std::int64_t finish = w.finishNs.load(std::memory_order_acquire);
    s.finishSeconds = finish >= 0 ? secondsOrNone(finish - start) : -1.0;
    s.droppedSamples = w.ring.dropped.load(std::memory_order_relaxed);
    s.commSeconds = double(w.commNs.load(std::memory_order_relaxed)) * 1e-9;
    s.bytesReduced = w.bytesReduced.load(std::memory_order_relaxed);
    s.updateWrites = w.updateWrites.load(std::memory_order_relaxed);
    s.lostUpdates = w.lostUpdates.load(std::memory_order_relaxed);
    return s;
}

std::vector<WorkerSnapshot> TelemetryReader::workers() const {
    std::vector<WorkerSnapshot> all;
    for (std::uint32_t r = 0; r < workerCount(); ++r)
        all.push_back(worker(r));
    return all;
}

std::uint64_t TelemetryReader::samplesSoFar() const {
    std::uint64_t samples = 0;
    for (std::uint32_t r = 0; r < workerCount(); ++r)
        samples += telemetry_->worker(r).samples.load(std::memory_order_relaxed);
    return samples;
}

std::size_t TelemetryReader::drain(const std::function<void(const Sample&)>& onSample) {
    std::size_t count = 0;
    for (std::uint32_t r = 0; r < workerCount(); ++r)
        count += telemetry_->worker(r).ring.drain(onSample);
    count += telemetry_->header().evalRing.drain(onSample);
    return count;
}

std::int64_t TelemetryReader::traceSliceNs() const {
    return telemetry_->header().traceSliceNs;
}

std::int64_t TelemetryReader::startNs() const {
    return telemetry_->header().startNs;
}

std::size_t
TelemetryReader::drainTrace(const std::function<void(std::uint32_t, const TraceSlice&)>& onSlice,
                            const std::function<void(const TraceSpan&)>& onSpan) {
    std::size_t count = 0;
    for (std::uint32_t r = 0; r < workerCount(); ++r)
        count += telemetry_->worker(r).trace.drain([&](const TraceSlice& s) { onSlice(r, s); });
    count += telemetry_->header().spans.drain(onSpan);
    return count;
}

std::uint64_t TelemetryReader::droppedTrace() const {
    std::uint64_t dropped = telemetry_->header().spans.dropped.load(std::memory_order_relaxed);
    for (std::uint32_t r = 0; r < workerCount(); ++r)
        dropped += telemetry_->worker(r).trace.dropped.load(std::memory_order_relaxed);
    return dropped;
}

} // namespace hwl
