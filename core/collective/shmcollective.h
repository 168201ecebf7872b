#pragma once
// ShmCollective: the collective of replicas on one machine, threads or
// processes alike, over one POSIX shared-memory segment (mode 0600, unlinked
// with its owner like every segment of a run).
//
// Layout: a header (magic, ranks, capacity, gradient size), per rank one
// arrival line (its barrier generation and how many peers sleep on it) and
// two vote words, two sets (alternating from one operation to the next) of
// one slot of `capacity` floats per rank and one result, and a gradient area:
// one slot of the whole gradient per rank and one result.
//
// An allreduce: every rank's data is in its slot (allreduceMean copies it
// there; a step's backward pass writes its gradient straight into
// gradientSlot()); barrier; rank r sums elements [r*n/N, (r+1)*n/N) over
// the slots in rank order (in double, collective/rankmean.h) into the
// result; barrier; every rank reads the result (reduceMean and reduceSlot
// in place; allreduceMean copies it out). One rank computes each element,
// in one fixed order, so every rank reads the same bits whatever the timing.
// Alternating the sets means an operation never overwrites what a slower
// rank still reads from the one before, so two barriers suffice; the
// gradient area needs no second set, as a rank rewrites its slot only in its
// next step, after every rank passed the barrier that ends the reading.
//
// The barrier: each rank bumps its own arrival word and waits until every
// peer's has reached the same generation, spinning on it with the pause
// instruction (ranks on their own cores meet within a cache line's round
// trip), asking the liveness check every 100 ms; after a long spin, or at
// once with more ranks than cores, it sleeps on the peer's word (a futex)
// and the arriving peer wakes it only when someone sleeps there.
#include "collective/collective.h"
#include "store/sharedsegment.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

class ShmCollective final : public Collective {
public:
    /// Bytes a segment for `ranks` ranks of `capacity` floats needs, with a
    /// gradient area of `gradientFloats` floats per rank.
    static std::size_t bytesFor(std::uint32_t ranks, std::int64_t capacity,
                                std::int64_t gradientFloats = 0);
    /// Creates the segment (the run's owner); RunError when there is no room.
    static SharedSegment create(std::uint32_t ranks, std::int64_t capacity,
                                std::int64_t gradientFloats = 0);
    /// Rank `rank`'s handle on a segment made by create(), mapped by name (a
    /// thread of the owner or a worker process). RunError when the segment is
    /// not a collective or the rank is out of range.
    ShmCollective(const std::string& segmentName, std::uint32_t rank);

    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return ranks_; }
    std::int64_t capacity() const override { return capacity_; }
    std::int64_t waitedNs() const override { return waitedNs_; }
    bool allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                       std::uint32_t* vote = nullptr) override;
    const float* reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                            std::uint32_t* vote = nullptr) override;
    float* gradientSlot(std::int64_t floats) override;
    const float* reduceSlot(std::int64_t offset, std::int64_t count, KeepGoing& alive,
                            std::uint32_t* vote = nullptr) override;
    bool broadcast(float* data, std::int64_t count, std::uint32_t root, KeepGoing& alive) override;
    bool broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) override;
    bool allgather(const std::vector<std::int64_t>& mine,
                   std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) override;
    bool agree(std::uint32_t& vote, KeepGoing& alive) override;
    bool distanceFromMean(const float* data, std::int64_t count, double& distance,
                          KeepGoing& alive) override;

    /// How long a wait spins before it sleeps, and how often it yields the
    /// core meanwhile (ns; 0: at every turn): set from the rank count
    /// against the cores (benchmarks compare other settings).
    void setSpin(std::int64_t spinNs, std::int64_t yieldEveryNs) {
        spinNs_ = spinForNs_ = spinNs;
        yieldEveryNs_ = yieldAfterNs_ = yieldEveryNs;
    }

private:
    struct Header;
    struct Arrival;
    Header& header() const;
    Arrival& arrival(std::uint32_t rank) const;
    float* slot(std::uint32_t set, std::uint32_t rank) const;
    float* result(std::uint32_t set) const;
    float* gradient(std::uint32_t rank) const; ///< rank's gradient slot; ranks_: the result
    std::uint32_t* voteWord(std::uint32_t set, std::uint32_t rank) const;
    bool barrier(KeepGoing& alive);
    /// Waits until `peer` arrived at generation_; false when a peer is gone.
    bool waitFor(std::uint32_t peer, KeepGoing& alive);
    /// After a wait: yield sooner when it had to, spin shorter when it had
    /// to sleep (yieldAfterNs_, spinForNs_).
    void adapt(bool yielded, bool slept);
    /// One operation over inputs_ (each rank's `count` floats, written):
    /// votes, barrier, this rank's stripe of the mean into `out`, barrier.
    bool reduceInto(std::uint32_t set, std::int64_t count, std::uint32_t* vote, KeepGoing& alive,
                    float* out);
    /// One chunk of at most capacity() floats: its mean into the current
    /// set's result. Returns the set used.
    bool reduceChunk(const float* data, std::int64_t count, std::uint32_t* vote, KeepGoing& alive,
                     std::uint32_t& set);

    SharedSegment segment_;
    std::uint32_t rank_ = 0, ranks_ = 1;
    std::int64_t capacity_ = 0, gradientFloats_ = 0;
    std::uint64_t operation_ = 0;              ///< operations so far; its parity picks the set
    std::uint32_t generation_ = 0;             ///< barriers this rank entered
    std::int64_t spinNs_ = 0;                  ///< how long a wait spins before it sleeps
    std::int64_t waitedNs_ = 0;                ///< in waitFor(), for waitedNs()
    std::int64_t spinForNs_ = 0;               ///< the same, halved after waits that had to sleep
    std::int64_t yieldEveryNs_ = 0;            ///< how often a spinning wait yields its core
    std::int64_t yieldAfterNs_ = 0;            ///< the same, halved after waits that had to yield
    mutable std::vector<const float*> inputs_; ///< the slots an operation sums
};

} // namespace hwl
