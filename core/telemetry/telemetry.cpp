#include "telemetry/telemetry.h"

#include "util/errors.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <new>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hwl {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<float>::is_always_lock_free);
static_assert(sizeof(Sample) == 56 || sizeof(Sample) == 48, "Sample layout changed");

const char* stateName(RunState s) {
    switch (s) {
    case RunState::Starting:
        return "starting";
    case RunState::Running:
        return "running";
    case RunState::Paused:
        return "paused";
    case RunState::Finished:
        return "finished";
    case RunState::Stopped:
        return "stopped";
    case RunState::Failed:
        return "failed";
    }
    return "?";
}

const char* stateName(WorkerState s) {
    switch (s) {
    case WorkerState::Starting:
        return "starting";
    case WorkerState::Running:
        return "running";
    case WorkerState::Paused:
        return "paused";
    case WorkerState::Finished:
        return "finished";
    case WorkerState::Stopped:
        return "stopped";
    case WorkerState::Failed:
        return "failed";
    }
    return "?";
}

bool SampleRing::push(const Sample& s) {
    const auto h = head.load(std::memory_order_relaxed);
    if (h - tail.load(std::memory_order_acquire) >= kCapacity) {
        dropped.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    entries[h % kCapacity] = s;
    head.store(h + 1, std::memory_order_release);
    return true;
}

std::size_t SampleRing::drain(const std::function<void(const Sample&)>& fn) {
    const auto h = head.load(std::memory_order_acquire);
    auto t = tail.load(std::memory_order_relaxed);
    const std::size_t count = std::size_t(h - t);
    for (; t < h; ++t)
        fn(entries[t % kCapacity]);
    tail.store(h, std::memory_order_release);
    return count;
}

namespace {
std::size_t segmentBytes(std::uint32_t workers) {
    return sizeof(TelemetryHeader) + std::size_t(workers) * sizeof(WorkerStatus);
}
} // namespace

Telemetry Telemetry::create(std::uint32_t workers, std::uint32_t epochs) {
    Telemetry t;
    t.segment_ = SharedSegment::create("telemetry", segmentBytes(workers));
    auto* header = new (t.segment_.data()) TelemetryHeader();
    header->workerCount = workers;
    header->totalEpochs = epochs;
    header->ownerPid = getpid();
    header->startNs = nowNs();
    auto* blocks = reinterpret_cast<WorkerStatus*>(header + 1);
    for (std::uint32_t i = 0; i < workers; ++i)
        new (blocks + i) WorkerStatus();
    header->version = TelemetryHeader::kVersion;
    header->magic = TelemetryHeader::kMagic;
    return t;
}

Telemetry Telemetry::open(const std::string& name) {
    Telemetry t;
    t.segment_ = SharedSegment::open(name);
    if (t.segment_.size() < sizeof(TelemetryHeader))
        throw RunError("telemetry segment " + name + " is too small to be a Hogwild Lab run");
    const auto& h = t.header();
    if (h.magic != TelemetryHeader::kMagic || h.version != TelemetryHeader::kVersion)
        throw RunError("telemetry segment " + name + " is not a Hogwild Lab run of this version");
    if (t.segment_.size() < segmentBytes(h.workerCount))
        throw RunError("telemetry segment " + name + " is truncated");
    return t;
}

WorkerStatus& Telemetry::worker(std::uint32_t rank) const {
    return reinterpret_cast<WorkerStatus*>(&header() + 1)[rank];
}

std::int64_t Telemetry::nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double Telemetry::elapsed() const {
    return double(nowNs() - header().startNs) * 1e-9;
}

void Telemetry::setCommand(RunCommand c) {
    header().command.store(std::uint32_t(c), std::memory_order_release);
    futexWakeAll(header().command);
    futexWakeAll(header().released);
}

void Telemetry::setPace(std::uint32_t stepsPerSecond) {
    header().pace.store(stepsPerSecond, std::memory_order_relaxed);
    futexWakeAll(header().command); // a worker sleeping until its next step looks again
}

void Telemetry::grantStep() {
    header().stepGrants.fetch_add(1, std::memory_order_acq_rel);
    futexWakeAll(header().command);
}

void Telemetry::setRunState(RunState s) {
    header().runState.store(std::uint32_t(s), std::memory_order_release);
}

void Telemetry::failWorker(std::uint32_t rank, const std::string& why) {
    auto& w = worker(rank);
    if (loadState(w.state) != WorkerState::Failed) {
        const auto n = std::min(why.size(), sizeof(w.failure) - 1);
        std::memcpy(w.failure, why.data(), n);
        w.failure[n] = '\0';
    }
    storeState(w.state, WorkerState::Failed);
}

std::string Telemetry::failureText(std::uint32_t rank) const {
    const auto& w = worker(rank);
    if (loadState(w.state) != WorkerState::Failed)
        return {};
    return std::string(w.failure, strnlen(w.failure, sizeof(w.failure)));
}

void Telemetry::setHost(std::uint32_t rank, const std::string& host) {
    auto& w = worker(rank);
    if (w.hostLength.load(std::memory_order_acquire) != 0)
        return;
    const auto n = std::min(host.size(), sizeof(w.host) - 1);
    std::memcpy(w.host, host.data(), n);
    w.hostLength.store(std::uint32_t(n), std::memory_order_release);
}

std::string Telemetry::host(std::uint32_t rank) const {
    const auto& w = worker(rank);
    const std::uint32_t n = w.hostLength.load(std::memory_order_acquire);
    return std::string(w.host, std::min<std::size_t>(n, sizeof(w.host) - 1));
}

void futexWait(std::atomic<std::uint32_t>& word, std::uint32_t expected, int timeoutMs) {
    timespec ts{timeoutMs / 1000, long(timeoutMs % 1000) * 1000000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr,
            0);
}

void futexWakeAll(std::atomic<std::uint32_t>& word) {
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, INT32_MAX, nullptr,
            nullptr, 0);
}

} // namespace hwl
