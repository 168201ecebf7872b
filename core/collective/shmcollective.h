#pragma once
// ShmCollective: the collective of replicas on one machine, threads or
// processes alike, over one POSIX shared-memory segment (mode 0600, unlinked
// with its owner like every segment of a run).
//
// Layout: a header (magic, ranks, capacity, a barrier: arrival count and
// generation), per rank two vote words, then two sets (alternating from one
// operation to the next) of one slot of `capacity` floats per rank and one
// result of `capacity` floats. An allreduce: every rank copies its data into
// its slot; barrier; rank r sums elements [r*n/N, (r+1)*n/N) over the slots in
// rank order (in double, collective/rankmean.h) into the result; barrier; every rank copies the
// result out. Alternating the sets means an operation never overwrites what
// a slower rank still reads from the one before, so two barriers suffice.
// The barrier spins briefly (ranks on their own cores meet within
// microseconds), then sleeps on a futex, asking the liveness check every
// 100 ms.
#include "collective/collective.h"
#include "store/sharedsegment.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

class ShmCollective final : public Collective {
public:
    /// Bytes a segment for `ranks` ranks of `capacity` floats needs.
    static std::size_t bytesFor(std::uint32_t ranks, std::int64_t capacity);
    /// Creates the segment (the run's owner); RunError when there is no room.
    static SharedSegment create(std::uint32_t ranks, std::int64_t capacity);
    /// Rank `rank`'s handle on a segment made by create(), mapped by name (a
    /// thread of the owner or a worker process). RunError when the segment is
    /// not a collective or the rank is out of range.
    ShmCollective(const std::string& segmentName, std::uint32_t rank);

    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return ranks_; }
    std::int64_t capacity() const override { return capacity_; }
    bool allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                       std::uint32_t* vote = nullptr) override;
    const float* reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                            std::uint32_t* vote = nullptr) override;
    bool broadcast(float* data, std::int64_t count, std::uint32_t root, KeepGoing& alive) override;
    bool broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) override;
    bool allgather(const std::vector<std::int64_t>& mine,
                   std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) override;
    bool agree(std::uint32_t& vote, KeepGoing& alive) override;
    bool distanceFromMean(const float* data, std::int64_t count, double& distance,
                          KeepGoing& alive) override;

private:
    struct Header;
    Header& header() const;
    float* slot(std::uint32_t set, std::uint32_t rank) const;
    float* result(std::uint32_t set) const;
    std::uint32_t* voteWord(std::uint32_t set, std::uint32_t rank) const;
    bool barrier(KeepGoing& alive);
    /// result[begin, end) = the mean of the slots, summed in rank order.
    void reduceStripe(std::uint32_t set, std::int64_t begin, std::int64_t end) const;
    /// One chunk of at most capacity() floats: its mean into the current
    /// set's result (two barriers). Returns the set used.
    bool reduceChunk(const float* data, std::int64_t count, std::uint32_t* vote, KeepGoing& alive,
                     std::uint32_t& set);

    SharedSegment segment_;
    std::uint32_t rank_ = 0, ranks_ = 1;
    std::int64_t capacity_ = 0;
    std::uint64_t operation_ = 0;              ///< operations so far; its parity picks the set
    std::int64_t spinNs_ = 0;                  ///< how long a barrier spins before it sleeps
    mutable std::vector<const float*> inputs_; ///< the slots reduceStripe() sums
};

} // namespace hwl
