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
#include <sched.h>
#include <thread>
#include <vector>

namespace hwl {

struct ShmCollective::Header {
    static constexpr std::uint64_t kMagic = 0x324C4F4357474F48ull; // "HOGWCOL2"
    std::uint64_t magic = 0;
    std::uint32_t ranks = 0;
    std::uint32_t reserved = 0;
    std::int64_t capacity = 0;
    std::int64_t gradientFloats = 0;
};

/// One rank's arrival line: the generation of the last barrier it entered,
/// and how many peers sleep on that word (its futex). 128 bytes, so that the
/// adjacent-line prefetcher never pairs two ranks' lines.
struct ShmCollective::Arrival {
    std::atomic<std::uint32_t> generation{0};
    std::atomic<std::uint32_t> sleepers{0};
};

namespace {
constexpr std::size_t align64(std::size_t n) {
    return (n + 63) & ~std::size_t(63);
}
constexpr std::size_t kArrivalStride = 128;
/// Per rank and set: one vote word, on its own cache line.
constexpr std::size_t kVoteStride = 64;
/// The header's room (it needs less).
constexpr std::size_t kHeaderBytes = 256;
/// Floats per cache line: stripes start on a line, so no two ranks write one.
constexpr std::int64_t kLineFloats = 16;
/// How long a wait spins before it sleeps when every rank has a core: far
/// longer than ranks on their own cores take to meet (a step's imbalance),
/// short enough that a peer held up elsewhere (a pause, a slow epoch end)
/// costs a sleep.
constexpr std::int64_t kSpinNs = 1'000'000;
/// A spinning rank yields its core this often: a peer waiting for that core
/// (a machine busier than its ranks know) runs at once instead of after the
/// spin; with the core to itself, a yield returns at once.
constexpr std::int64_t kYieldEveryNs = 20'000;
/// With more ranks than cores a spinning rank holds a core a peer needs: it
/// yields at every turn, and sleeps soon.
constexpr std::int64_t kCrowdedSpinNs = 50'000;
/// The shortest a wait's spin adapts down to (or spinNs_ when shorter).
constexpr std::int64_t kShortestSpinNs = 20'000;
/// How often a wait asks the liveness check.
constexpr std::int64_t kCheckNs = 100'000'000;

constexpr std::size_t arrivalsOffset() {
    return kHeaderBytes;
}
std::size_t votesOffset(std::uint32_t ranks) {
    return arrivalsOffset() + std::size_t(ranks) * kArrivalStride;
}
std::size_t slotsOffset(std::uint32_t ranks) {
    return align64(votesOffset(ranks) + 2 * std::size_t(ranks) * kVoteStride);
}
std::size_t setBytes(std::uint32_t ranks, std::int64_t capacity) {
    return align64(std::size_t(ranks + 1) * std::size_t(capacity) * sizeof(float));
}
std::size_t gradientStride(std::int64_t floats) {
    return align64(std::size_t(floats) * sizeof(float));
}
std::size_t gradientOffset(std::uint32_t ranks, std::int64_t capacity) {
    return slotsOffset(ranks) + 2 * setBytes(ranks, capacity);
}
/// The first and one-past-last element of `rank`'s stripe of elements
/// [0, n), which start at element `first` of a line-aligned buffer: each
/// stripe but the first starts on a cache line. Which rank sums an element
/// changes no bit of it (rankmean.h sums each element on its own).
std::pair<std::int64_t, std::int64_t> stripe(std::int64_t first, std::int64_t n, std::uint32_t rank,
                                             std::uint32_t ranks) {
    const auto edge = [&](std::uint32_t r) {
        if (r == 0 || r == ranks)
            return r == 0 ? std::int64_t(0) : n;
        const std::int64_t at = first + n * r / ranks;
        return std::min(n, (at + kLineFloats - 1) / kLineFloats * kLineFloats - first);
    };
    return {edge(rank), edge(rank + 1)};
}
} // namespace

std::size_t ShmCollective::bytesFor(std::uint32_t ranks, std::int64_t capacity,
                                    std::int64_t gradientFloats) {
    return gradientOffset(ranks, capacity) +
           (gradientFloats > 0 ? (ranks + 1) * gradientStride(gradientFloats) : 0);
}

SharedSegment ShmCollective::create(std::uint32_t ranks, std::int64_t capacity,
                                    std::int64_t gradientFloats) {
    static_assert(sizeof(Header) <= kHeaderBytes && sizeof(Arrival) <= kArrivalStride);
    SharedSegment segment =
        SharedSegment::create("collective", bytesFor(ranks, capacity, gradientFloats));
    auto* h = new (segment.data()) Header();
    h->ranks = ranks;
    h->capacity = capacity;
    h->gradientFloats = std::max<std::int64_t>(0, gradientFloats);
    for (std::uint32_t r = 0; r < ranks; ++r)
        new (static_cast<char*>(segment.data()) + arrivalsOffset() + r * kArrivalStride) Arrival();
    h->magic = Header::kMagic;
    return segment;
}

ShmCollective::ShmCollective(const std::string& segmentName, std::uint32_t rank)
    : segment_(SharedSegment::open(segmentName)), rank_(rank) {
    if (segment_.size() < sizeof(Header) || header().magic != Header::kMagic)
        throw RunError("segment " + segmentName + " is not a Hogwild Lab collective");
    ranks_ = header().ranks;
    capacity_ = header().capacity;
    gradientFloats_ = header().gradientFloats;
    const bool crowded = ranks_ > std::thread::hardware_concurrency();
    setSpin(crowded ? kCrowdedSpinNs : kSpinNs, crowded ? 0 : kYieldEveryNs);
    if (rank_ >= ranks_ || segment_.size() < bytesFor(ranks_, capacity_, gradientFloats_))
        throw RunError("collective " + segmentName + ": rank " + std::to_string(rank) +
                       " out of range or segment truncated");
    // A rank joins at the generation its peers are at (0 for a new segment).
    generation_ = arrival(rank_).generation.load(std::memory_order_acquire);
}

ShmCollective::Header& ShmCollective::header() const {
    return *static_cast<Header*>(segment_.data());
}

ShmCollective::Arrival& ShmCollective::arrival(std::uint32_t r) const {
    return *reinterpret_cast<Arrival*>(static_cast<char*>(segment_.data()) + arrivalsOffset() +
                                       std::size_t(r) * kArrivalStride);
}

float* ShmCollective::slot(std::uint32_t set, std::uint32_t r) const {
    char* base = static_cast<char*>(segment_.data()) + slotsOffset(ranks_) +
                 std::size_t(set) * setBytes(ranks_, capacity_);
    return reinterpret_cast<float*>(base) + std::size_t(r) * std::size_t(capacity_);
}

float* ShmCollective::result(std::uint32_t set) const {
    return slot(set, ranks_); // the slot after the last rank's
}

float* ShmCollective::gradient(std::uint32_t r) const {
    char* base = static_cast<char*>(segment_.data()) + gradientOffset(ranks_, capacity_);
    return reinterpret_cast<float*>(base + std::size_t(r) * gradientStride(gradientFloats_));
}

std::uint32_t* ShmCollective::voteWord(std::uint32_t set, std::uint32_t r) const {
    char* base = static_cast<char*>(segment_.data()) + votesOffset(ranks_);
    return reinterpret_cast<std::uint32_t*>(base + (std::size_t(set) * ranks_ + r) * kVoteStride);
}

bool ShmCollective::barrier(KeepGoing& alive) {
    // Publishing the arrival (seq_cst) before looking for sleepers, as a
    // sleeper counts itself before it looks at the word: one of the two
    // sees the other, so a wake is never lost, and a rank that nobody
    // sleeps on makes no system call.
    Arrival& own = arrival(rank_);
    own.generation.store(++generation_, std::memory_order_seq_cst);
    if (own.sleepers.load(std::memory_order_seq_cst) != 0)
        futexWakeAll(own.generation);
    for (std::uint32_t r = 0; r < ranks_; ++r)
        if (r != rank_ && !waitFor(r, alive))
            return false;
    return true;
}

bool ShmCollective::waitFor(std::uint32_t peer, KeepGoing& alive) {
    Arrival& a = arrival(peer);
    const std::uint32_t want = generation_;
    // A peer is at most one barrier ahead; the difference survives wrapping.
    const auto arrived = [&](std::uint32_t seen) { return std::int32_t(seen - want) >= 0; };
    if (arrived(a.generation.load(std::memory_order_acquire)))
        return true;
    const std::int64_t start = Telemetry::nowNs();
    std::int64_t check = start + kCheckNs, yield = start + yieldAfterNs_;
    bool yielded = false;
    for (std::uint32_t i = 1;; ++i) {
        __builtin_ia32_pause();
        if (arrived(a.generation.load(std::memory_order_acquire))) {
            adapt(yielded, false);
            waitedNs_ += Telemetry::nowNs() - start;
            return true;
        }
        if ((i & 15) != 0 && yieldAfterNs_ > 0)
            continue;
        const std::int64_t now = Telemetry::nowNs();
        if (now - start >= spinForNs_)
            break;
        if (now >= yield) {
            sched_yield();
            yielded = true;
            yield = now + yieldAfterNs_;
        }
        if (now >= check) {
            if (!alive.alive())
                return false;
            check = now + kCheckNs;
        }
    }
    while (true) {
        a.sleepers.fetch_add(1, std::memory_order_seq_cst);
        const std::uint32_t seen = a.generation.load(std::memory_order_seq_cst);
        if (!arrived(seen))
            futexWait(a.generation, seen, int(kCheckNs / 1'000'000));
        a.sleepers.fetch_sub(1, std::memory_order_relaxed);
        if (arrived(a.generation.load(std::memory_order_acquire))) {
            adapt(true, true);
            waitedNs_ += Telemetry::nowNs() - start;
            return true;
        }
        if (!alive.alive())
            return false;
    }
}

void ShmCollective::adapt(bool yielded, bool slept) {
    // A wait that had to yield (its peer seemingly waited for a core) yields
    // sooner next time, and one that had to sleep spins shorter: on a
    // machine busier than its ranks know, the core is worth more to a peer
    // (or to what holds the peer's core) than the spin. Waits met spinning
    // win both back, up to the configured values.
    yieldAfterNs_ = yielded
                        ? yieldAfterNs_ / 2
                        : std::min(yieldEveryNs_, std::max<std::int64_t>(1000, yieldAfterNs_ * 2));
    spinForNs_ = slept ? std::max(std::min(spinNs_, kShortestSpinNs), spinForNs_ / 2)
                       : std::min(spinNs_, spinForNs_ * 2);
}

bool ShmCollective::reduceInto(std::uint32_t set, std::int64_t count, std::uint32_t* vote,
                               KeepGoing& alive, float* out) {
    // inputs_ and out point at element 0 of the operation; its place in a
    // line-aligned buffer decides the stripes' edges.
    const std::int64_t first =
        std::int64_t(reinterpret_cast<std::uintptr_t>(out) / sizeof(float) % kLineFloats);
    const auto [begin, end] = stripe(first, count, rank_, ranks_);
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
    meanInRankOrder(inputs_.data(), ranks_, begin, end, out);
    return barrier(alive);
}

bool ShmCollective::reduceChunk(const float* data, std::int64_t count, std::uint32_t* vote,
                                KeepGoing& alive, std::uint32_t& set) {
    set = std::uint32_t(operation_++ & 1);
    if (count > 0) // a vote alone carries no data (and data may be null)
        std::memcpy(slot(set, rank_), data, std::size_t(count) * sizeof(float));
    inputs_.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r)
        inputs_[r] = slot(set, r);
    return reduceInto(set, count, vote, alive, result(set));
}

float* ShmCollective::gradientSlot(std::int64_t floats) {
    return floats > 0 && floats <= gradientFloats_ ? gradient(rank_) : nullptr;
}

const float* ShmCollective::reduceSlot(std::int64_t offset, std::int64_t count, KeepGoing& alive,
                                       std::uint32_t* vote) {
    if (offset < 0 || count < 0 || offset + count > gradientFloats_)
        return nullptr;
    if (ranks_ == 1) // the mean of one is itself
        return gradient(0) + offset;
    // The votes alternate sets with the other operations; the gradient area
    // is one.
    const std::uint32_t set = std::uint32_t(operation_++ & 1);
    inputs_.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r)
        inputs_[r] = gradient(r) + offset;
    float* out = gradient(ranks_) + offset;
    return reduceInto(set, count, vote, alive, out) ? out : nullptr;
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
