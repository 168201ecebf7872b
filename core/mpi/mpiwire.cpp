#include "mpi/mpiwire.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace hwl::mpi {

namespace {

constexpr std::uint32_t kRelayMagic = 0x52574c48; // "HLWR"

class Writer {
public:
    template <class T>
    void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const auto* p = reinterpret_cast<const char*>(&v);
        bytes_.insert(bytes_.end(), p, p + sizeof v);
    }
    void put(const std::string& s) {
        put(std::uint32_t(s.size()));
        bytes_.insert(bytes_.end(), s.begin(), s.end());
    }
    std::vector<char> take() { return std::move(bytes_); }

private:
    std::vector<char> bytes_;
};

class Reader {
public:
    Reader(const char* data, std::size_t size, const char* what)
        : p_(data), end_(data + size), what_(what) {}
    template <class T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        need(sizeof(T));
        T v;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    std::string text() {
        const auto n = get<std::uint32_t>();
        need(n);
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    void finish() const {
        if (p_ != end_)
            throw std::runtime_error(std::string("malformed MPI ") + what_ + ": trailing bytes");
    }

private:
    void need(std::size_t n) const {
        if (std::size_t(end_ - p_) < n)
            throw std::runtime_error(std::string("malformed MPI ") + what_ + ": too short");
    }
    const char* p_;
    const char* end_;
    const char* what_;
};

/// The relayed part of a status block (times relative to the run start).
struct RelayStatus {
    std::uint32_t magic = kRelayMagic;
    std::uint32_t state = 0;
    std::uint64_t steps = 0, samples = 0;
    std::uint32_t epoch = 0;
    float lastLoss = 0, lastDivergence = 0, lastEpochLoss = 0;
    std::int64_t launchNs = 0;   ///< since the run start
    std::int64_t startupNs = -1; ///< a duration
    std::int64_t finishNs = -1;  ///< since the run start; -1: still training
    std::int64_t commNs = 0;
    std::uint64_t bytesReduced = 0;
    std::uint32_t sampleCount = 0;
    std::uint32_t sliceCount = 0; ///< --trace's slices that follow the samples
    std::int64_t sliceNs = 0;     ///< their length
};

} // namespace

std::size_t maxRelayBytes() {
    return sizeof(RelayStatus) + sizeof(std::uint32_t) + sizeof(WorkerStatus::failure) +
           SampleRing::kCapacity * sizeof(Sample) + SliceRing::kCapacity * sizeof(TraceSlice);
}

std::vector<char> encode(const Greeting& g) {
    Writer w;
    w.put(g.pid);
    w.put(g.host);
    w.put(g.error);
    w.put(std::uint32_t(g.facts.size()));
    for (const auto& [name, value] : g.facts) {
        w.put(name);
        w.put(value);
    }
    return w.take();
}

Greeting decodeGreeting(const char* data, std::size_t size) {
    Reader r(data, size, "greeting");
    Greeting g;
    g.pid = r.get<std::int32_t>();
    g.host = r.text();
    g.error = r.text();
    const auto n = r.get<std::uint32_t>();
    if (n > size)
        throw std::runtime_error("malformed MPI greeting: too many facts");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string name = r.text();
        g.facts.emplace_back(std::move(name), r.text());
    }
    r.finish();
    return g;
}

std::string factDifference(const Facts& mine, const Facts& rank0) {
    for (const auto& [name, value] : rank0) {
        const std::string* here = nullptr;
        for (const auto& [n, v] : mine)
            if (n == name)
                here = &v;
        if (!here)
            return name + ": not given here, \"" + value + "\" on rank 0";
        if (*here != value)
            return name + ": \"" + *here + "\" here, \"" + value + "\" on rank 0";
    }
    return {};
}

std::vector<char> encode(const Welcome& welcome) {
    Writer w;
    w.put(welcome.rootNowNs);
    w.put(welcome.rootStartNs);
    return w.take();
}

Welcome decodeWelcome(const char* data, std::size_t size) {
    Reader r(data, size, "welcome");
    Welcome w;
    w.rootNowNs = r.get<std::int64_t>();
    w.rootStartNs = r.get<std::int64_t>();
    r.finish();
    return w;
}

std::vector<char> encode(const Farewell& f) {
    Writer w;
    w.put(std::uint32_t(f.state));
    w.put(std::uint32_t(f.peerLost));
    w.put(f.why.substr(0, kMaxFarewellBytes - 16));
    return w.take();
}

Farewell decodeFarewell(const char* data, std::size_t size) {
    Reader r(data, size, "farewell");
    Farewell f;
    const auto state = r.get<std::uint32_t>();
    if (!isWorkerState(state))
        throw std::runtime_error("malformed MPI farewell: bad state");
    f.state = WorkerState(state);
    f.peerLost = r.get<std::uint32_t>() != 0;
    f.why = r.text();
    r.finish();
    return f;
}

std::vector<char> encodeRelay(WorkerStatus& status, std::int64_t startNs, WorkerState shown,
                              std::int64_t sliceNs) {
    // The remote ring is drained here a few times a second, far faster than
    // it fills (at most 500 samples a second), so it drops nothing.
    std::vector<Sample> samples;
    samples.reserve(64);
    status.ring.drain([&](const Sample& s) { samples.push_back(s); });
    // Where this rank's time went (its own telemetry's slices), for rank 0's
    // --trace; a few dozen a relay.
    std::vector<TraceSlice> slices;
    status.trace.drain([&](const TraceSlice& s) { slices.push_back(s); });
    RelayStatus rs;
    rs.state = std::uint32_t(shown);
    rs.steps = status.steps.load(std::memory_order_relaxed);
    rs.samples = status.samples.load(std::memory_order_relaxed);
    rs.epoch = status.epoch.load(std::memory_order_acquire);
    rs.lastLoss = status.lastLoss.load(std::memory_order_relaxed);
    rs.lastDivergence = status.lastDivergence.load(std::memory_order_relaxed);
    rs.lastEpochLoss = status.lastEpochLoss.load(std::memory_order_relaxed);
    rs.launchNs = status.launchNs.load(std::memory_order_relaxed) - startNs;
    rs.startupNs = status.startupNs.load(std::memory_order_relaxed);
    const std::int64_t finish = status.finishNs.load(std::memory_order_acquire);
    rs.finishNs = finish < 0 ? -1 : finish - startNs;
    rs.commNs = status.commNs.load(std::memory_order_relaxed);
    rs.bytesReduced = status.bytesReduced.load(std::memory_order_relaxed);
    rs.sampleCount = std::uint32_t(samples.size());
    rs.sliceCount = std::uint32_t(slices.size());
    rs.sliceNs = sliceNs;
    Writer w;
    w.put(rs);
    w.put(shown == WorkerState::Failed
              ? std::string(status.failure, strnlen(status.failure, sizeof status.failure))
              : std::string());
    for (const Sample& s : samples)
        w.put(s);
    for (const TraceSlice& s : slices)
        w.put(s);
    return w.take();
}

WorkerState applyRelay(const char* data, std::size_t size, Telemetry& telemetry,
                       std::uint32_t rank) {
    Reader r(data, size, "relay");
    const auto rs = r.get<RelayStatus>();
    if (rs.magic != kRelayMagic || !isWorkerState(rs.state) ||
        rs.sampleCount > SampleRing::kCapacity || rs.sliceCount > SliceRing::kCapacity)
        throw std::runtime_error("malformed MPI relay: bad header");
    const std::string failure = r.text();
    WorkerStatus& w = telemetry.worker(rank);
    const std::int64_t start = telemetry.header().startNs;
    for (std::uint32_t i = 0; i < rs.sampleCount; ++i) {
        Sample s = r.get<Sample>();
        s.worker = std::int32_t(rank);
        w.ring.push(s);
    }
    // Slices count from the rank's own start, which rank 0 takes as its own
    // (as it does the rank's launch); kept only while rank 0 traces, in
    // slices of the same length.
    const bool traced = rs.sliceNs > 0 && rs.sliceNs == telemetry.header().traceSliceNs;
    for (std::uint32_t i = 0; i < rs.sliceCount; ++i) {
        const auto s = r.get<TraceSlice>();
        if (traced)
            w.trace.push(s);
    }
    r.finish();
    w.steps.store(rs.steps, std::memory_order_relaxed);
    w.samples.store(rs.samples, std::memory_order_relaxed);
    w.lastLoss.store(rs.lastLoss, std::memory_order_relaxed);
    w.lastDivergence.store(rs.lastDivergence, std::memory_order_relaxed);
    w.lastEpochLoss.store(rs.lastEpochLoss, std::memory_order_relaxed);
    w.launchNs.store(start + rs.launchNs, std::memory_order_relaxed);
    w.startupNs.store(rs.startupNs, std::memory_order_relaxed);
    w.commNs.store(rs.commNs, std::memory_order_relaxed);
    w.bytesReduced.store(rs.bytesReduced, std::memory_order_relaxed);
    if (rs.finishNs >= 0)
        w.finishNs.store(start + rs.finishNs, std::memory_order_release);
    w.epoch.store(rs.epoch, std::memory_order_release);
    const auto state = WorkerState(rs.state);
    if (state == WorkerState::Failed)
        telemetry.failWorker(rank, failure.empty() ? "rank " + std::to_string(rank) + " failed"
                                                   : failure);
    else if (loadState(w.state) != WorkerState::Failed)
        storeState(w.state, state);
    return state;
}

} // namespace hwl::mpi
