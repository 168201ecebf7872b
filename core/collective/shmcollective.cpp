#include "collective/shmcollective.h"

#include "collective/rankmean.h"

#include "telemetry/telemetry.h"
#include "train/keepgoing.h"
#include "util/errors.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

namespace hwl {

struct ShmCollective::Header {
    static constexpr std::uint64_t kMagic = 0x4C4C4F4357474F48ull; // "HOGWCOLL"
    std::uint64_t magic = 0;
    std::uint32_t ranks = 0;
    std::uint32_t reserved = 0;
    std::int64_t capacity = 0;
    alignas(64) std::atomic<std::uint32_t> arrived{0};
    alignas(64) std::atomic<std::uint32_t> generation{0};
};

namespace {
constexpr std::size_t align64(std::size_t n) {
    return (n + 63) & ~std::size_t(63);
}
/// Per rank and set: one vote word, on its own cache line.
constexpr std::size_t kVoteStride = 64;
/// The header's room (it needs less).
constexpr std::size_t kHeaderBytes = 256;

constexpr std::size_t votesOffset() {
    return kHeaderBytes;
}
std::size_t slotsOffset(std::uint32_t ranks) {
    return align64(votesOffset() + 2 * std::size_t(ranks) * kVoteStride);
}
std::size_t setBytes(std::uint32_t ranks, std::int64_t capacity) {
    return align64(std::size_t(ranks + 1) * std::size_t(capacity) * sizeof(float));
}
/// The first and one-past-last element of `rank`'s stripe of n.
std::pair<std::int64_t, std::int64_t> stripe(std::int64_t n, std::uint32_t rank,
                                             std::uint32_t ranks) {
    return {n * rank / ranks, n * (rank + 1) / ranks};
}
} // namespace

std::size_t ShmCollective::bytesFor(std::uint32_t ranks, std::int64_t capacity) {
    return slotsOffset(ranks) + 2 * setBytes(ranks, capacity);
}

SharedSegment ShmCollective::create(std::uint32_t ranks, std::int64_t capacity) {
    static_assert(sizeof(Header) <= kHeaderBytes);
    SharedSegment segment = SharedSegment::create("collective", bytesFor(ranks, capacity));
    auto* h = new (segment.data()) Header();
    h->ranks = ranks;
    h->capacity = capacity;
    h->magic = Header::kMagic;
    return segment;
}

ShmCollective::ShmCollective(const std::string& segmentName, std::uint32_t rank)
    : segment_(SharedSegment::open(segmentName)), rank_(rank) {
    if (segment_.size() < sizeof(Header) || header().magic != Header::kMagic)
        throw RunError("segment " + segmentName + " is not a Hogwild Lab collective");
    ranks_ = header().ranks;
    capacity_ = header().capacity;
    spinNs_ = ranks_ <= std::thread::hardware_concurrency() ? 200'000 : 0;
    if (rank_ >= ranks_ || segment_.size() < bytesFor(ranks_, capacity_))
        throw RunError("collective " + segmentName + ": rank " + std::to_string(rank) +
                       " out of range or segment truncated");
}

ShmCollective::Header& ShmCollective::header() const {
    return *static_cast<Header*>(segment_.data());
}

float* ShmCollective::slot(std::uint32_t set, std::uint32_t r) const {
    char* base = static_cast<char*>(segment_.data()) + slotsOffset(ranks_) +
                 std::size_t(set) * setBytes(ranks_, capacity_);
    return reinterpret_cast<float*>(base) + std::size_t(r) * std::size_t(capacity_);
}

float* ShmCollective::result(std::uint32_t set) const {
    return slot(set, ranks_); // the slot after the last rank's
}

std::uint32_t* ShmCollective::voteWord(std::uint32_t set, std::uint32_t r) const {
    char* base = static_cast<char*>(segment_.data()) + votesOffset();
    return reinterpret_cast<std::uint32_t*>(base + (std::size_t(set) * ranks_ + r) * kVoteStride);
}

bool ShmCollective::barrier(KeepGoing& alive) {
    Header& h = header();
    const std::uint32_t gen = h.generation.load(std::memory_order_acquire);
    if (h.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == ranks_) {
        h.arrived.store(0, std::memory_order_relaxed);
        h.generation.store(gen + 1, std::memory_order_release);
        futexWakeAll(h.generation);
        return true;
    }
    // Ranks on their own cores arrive within microseconds of each other:
    // spin first (politely), then sleep. With more ranks than cores a
    // spinning rank would hold the core its peer needs, so it sleeps at once.
    if (spinNs_ > 0) {
        const std::int64_t until = Telemetry::nowNs() + spinNs_;
        for (int i = 0;; ++i) {
            if (h.generation.load(std::memory_order_acquire) != gen)
                return true;
            __builtin_ia32_pause();
            if ((i & 63) == 63 && Telemetry::nowNs() > until)
                break;
        }
    }
    while (h.generation.load(std::memory_order_acquire) == gen) {
        if (!alive.alive())
            return false;
        futexWait(h.generation, gen, 100);
    }
    return true;
}

void ShmCollective::reduceStripe(std::uint32_t set, std::int64_t begin, std::int64_t end) const {
    inputs_.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r)
        inputs_[r] = slot(set, r);
    meanInRankOrder(inputs_.data(), ranks_, begin, end, result(set));
}

bool ShmCollective::reduceChunk(const float* data, std::int64_t count, std::uint32_t* vote,
                                KeepGoing& alive, std::uint32_t& set) {
    set = std::uint32_t(operation_++ & 1);
    if (count > 0) // a vote alone carries no data (and data may be null)
        std::memcpy(slot(set, rank_), data, std::size_t(count) * sizeof(float));
    if (vote)
        std::atomic_ref<std::uint32_t>(*voteWord(set, rank_))
            .store(*vote, std::memory_order_relaxed);
    if (!barrier(alive))
        return false;
    if (vote) {
        std::uint32_t agreed = 0;
        for (std::uint32_t r = 0; r < ranks_; ++r)
            agreed = std::max(
                agreed,
                std::atomic_ref<std::uint32_t>(*voteWord(set, r)).load(std::memory_order_relaxed));
        *vote = agreed;
    }
    const auto [begin, end] = stripe(count, rank_, ranks_);
    reduceStripe(set, begin, end);
    return barrier(alive);
}

bool ShmCollective::allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                                  std::uint32_t* vote) {
    if (ranks_ == 1)
        return true;
    for (std::int64_t at = 0; at < count || (at == 0 && vote); at += capacity_) {
        const std::int64_t n = std::min(capacity_, count - at);
        std::uint32_t set = 0;
        if (!reduceChunk(data + at, n, at == 0 ? vote : nullptr, alive, set))
            return false;
        if (count == 0)
            break;
        std::memcpy(data + at, result(set), std::size_t(n) * sizeof(float));
    }
    return true;
}

const float* ShmCollective::reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                                       std::uint32_t* vote) {
    if (ranks_ == 1) // the mean of one is itself (and the vote its own)
        return count <= capacity_ ? data : nullptr;
    std::uint32_t set = 0;
    if (count > capacity_ || !reduceChunk(data, count, vote, alive, set))
        return nullptr;
    return result(set);
}

bool ShmCollective::agree(std::uint32_t& vote, KeepGoing& alive) {
    return allreduceMean(nullptr, 0, alive, &vote);
}

bool ShmCollective::broadcast(float* data, std::int64_t count, std::uint32_t root,
                              KeepGoing& alive) {
    for (std::int64_t at = 0; at < count; at += capacity_) {
        const std::int64_t n = std::min(capacity_, count - at);
        const std::uint32_t set = std::uint32_t(operation_++ & 1);
        if (rank_ == root)
            std::memcpy(slot(set, root), data + at, std::size_t(n) * sizeof(float));
        if (!barrier(alive))
            return false;
        if (rank_ != root)
            std::memcpy(data + at, slot(set, root), std::size_t(n) * sizeof(float));
    }
    return true;
}

bool ShmCollective::broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) {
    const std::uint32_t set = std::uint32_t(operation_++ & 1);
    char* bytes = reinterpret_cast<char*>(slot(set, root));
    const std::size_t room = std::size_t(capacity_) * sizeof(float) - sizeof(std::uint64_t);
    if (rank_ == root) {
        const std::uint64_t n = std::min<std::uint64_t>(text.size(), room);
        std::memcpy(bytes, &n, sizeof n);
        std::memcpy(bytes + sizeof n, text.data(), n);
    }
    if (!barrier(alive))
        return false;
    if (rank_ != root) {
        std::uint64_t n = 0;
        std::memcpy(&n, bytes, sizeof n);
        text.assign(bytes + sizeof n, std::min<std::uint64_t>(n, room));
    }
    return true;
}

bool ShmCollective::allgather(const std::vector<std::int64_t>& mine,
                              std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) {
    const std::uint32_t set = std::uint32_t(operation_++ & 1);
    const std::size_t room = std::size_t(capacity_) / 2 - 1; // int64s after the count
    if (mine.size() > room)
        throw RunError("collective: " + std::to_string(mine.size()) +
                       " integers do not fit one slot of " + std::to_string(room));
    auto* own = reinterpret_cast<std::int64_t*>(slot(set, rank_));
    own[0] = std::int64_t(mine.size());
    if (!mine.empty())
        std::memcpy(own + 1, mine.data(), mine.size() * sizeof(std::int64_t));
    if (!barrier(alive))
        return false;
    all.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) {
        const auto* theirs = reinterpret_cast<const std::int64_t*>(slot(set, r));
        all[r].assign(theirs + 1,
                      theirs + 1 + std::min<std::int64_t>(theirs[0], std::int64_t(room)));
    }
    return true;
}

bool ShmCollective::distanceFromMean(const float* data, std::int64_t count, double& distance,
                                     KeepGoing& alive) {
    if (ranks_ == 1) {
        distance = 0;
        return true;
    }
    double squares = 0;
    for (std::int64_t at = 0; at < count; at += capacity_) {
        const std::int64_t n = std::min(capacity_, count - at);
        std::uint32_t set = 0;
        if (!reduceChunk(data + at, n, nullptr, alive, set))
            return false;
        const float* mean = result(set);
        for (std::int64_t i = 0; i < n; ++i) {
            const double d = double(data[at + i]) - double(mean[i]);
            squares += d * d;
        }
    }
    distance = std::sqrt(squares);
    return true;
}

} // namespace hwl
