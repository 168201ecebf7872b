#pragma once
// Collective: how data-parallel replicas talk. One object per rank, used by
// that rank's worker thread only.
//
// Every operation is called by every rank, in the same order (PyTorch's c10d
// reducer reduces its buckets "in a predetermined order that is identical
// across processes"), so no rank can wait in a collective its peers never
// enter. Every wait is bounded and asks the rank's liveness check (KeepGoing
// with its peers watched, train/keepgoing.h) at least every 100 ms, so a dead
// peer ends the wait within a second instead of hanging: the operation then
// returns false and the data is unspecified.
//
// Reductions are exact functions of the inputs: each element's sum runs over
// the ranks in rank order, in double, on one rank, and every rank receives
// that one result. So all ranks get the same bits, and two runs with the same
// inputs give the same bits whatever the timing.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

class KeepGoing;

class Collective {
public:
    virtual ~Collective() = default;
    virtual std::uint32_t rank() const = 0;
    virtual std::uint32_t size() const = 0;
    /// The most floats one operation may carry (callers split larger buffers).
    virtual std::int64_t capacity() const = 0;

    /// Once, before the first operation: meets the peers (MPI: each rank's
    /// greeting, its pid and host, and the check that every rank runs rank
    /// 0's experiment on the same data). False when the rank must not go on
    /// (the reason is in the telemetry).
    virtual bool open(KeepGoing& /*alive*/) { return true; }
    /// Once, when the rank leaves its training loop, whatever the reason
    /// (its status block already says how): a goodbye to peers that may
    /// still wait for it (MPI: the last relay of its telemetry, or rank 0's
    /// farewell to ranks still waiting). Never throws.
    virtual void close() {}
    /// While the rank waits outside any operation (a pause, the epoch
    /// gate): MPI rank 0 reads its peers' relays and checks they live.
    virtual void idle() {}
    /// Time this rank has spent waiting for its peers (in barriers) so far,
    /// in ns; 0 where the transport does not tell waiting from working.
    virtual std::int64_t waitedNs() const { return 0; }

    /// data[0..count) becomes the mean over the ranks. With `vote`, every
    /// rank also proposes *vote and gets back the largest proposal: a
    /// decision (run < pause < stop) taken by all ranks at the same step.
    virtual bool allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                               std::uint32_t* vote = nullptr) = 0;
    /// The same mean, left in the collective's memory instead of copied
    /// back: the returned pointer holds count floats (count <= capacity())
    /// and stays valid until the operation after next. Null when a peer is
    /// gone.
    virtual const float* reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                                    std::uint32_t* vote = nullptr) = 0;
    /// Memory where this rank may compute a whole gradient of `floats`
    /// floats, which reduceSlot() reads in place (no copy in): the
    /// shared-memory transport's slot of this rank. Null when the collective
    /// has none, or none that large (then use reduceMean). Stays valid as
    /// long as the collective; the rank rewrites it only after the last
    /// reduceSlot() of a step returned.
    virtual float* gradientSlot(std::int64_t /*floats*/) { return nullptr; }
    /// The mean over the ranks of gradientSlot()[offset, offset + count),
    /// as reduceMean() gives it (the same bits), in the collective's memory:
    /// valid until this range is reduced again. Null when a peer is gone.
    virtual const float* reduceSlot(std::int64_t /*offset*/, std::int64_t /*count*/,
                                    KeepGoing& /*alive*/, std::uint32_t* /*vote*/ = nullptr) {
        return nullptr;
    }
    /// data[0..count) becomes rank `root`'s.
    virtual bool broadcast(float* data, std::int64_t count, std::uint32_t root,
                           KeepGoing& alive) = 0;
    /// `text` becomes rank `root`'s (at most capacity() * 4 - 8 bytes).
    virtual bool broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) = 0;
    /// Every rank's list of integers, on every rank: all[r] is rank r's
    /// `mine` (at most capacity() / 2 - 1 of them).
    virtual bool allgather(const std::vector<std::int64_t>& mine,
                           std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) = 0;
    /// Every rank proposes *vote and gets back the largest proposal.
    virtual bool agree(std::uint32_t& vote, KeepGoing& alive) = 0;
    /// The L2 distance of this rank's data[0..count) from the mean over the
    /// ranks (exactly 0 when every rank holds the same bits).
    virtual bool distanceFromMean(const float* data, std::int64_t count, double& distance,
                                  KeepGoing& alive) = 0;
};

} // namespace hwl
