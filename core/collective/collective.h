#pragma once
// Collective: how replicas talk in data-parallel modes (the next step fills
// it with implementations over threads, shared memory, MPI and NCCL).
//
// Every operation is called by every rank, in the same order (PyTorch's c10d
// reducer reduces its buckets "in a predetermined order that is identical
// across processes"), so no rank can wait in a collective its peers never
// enter. Every wait is bounded and polls the rank's KeepGoing predicate
// (train/keepgoing.h), so a stop, a pause or a dead peer ends the wait
// within a second instead of hanging.
#include <cstdint>

namespace hwl {

class KeepGoing;

class Collective {
public:
    virtual ~Collective() = default;
    /// This rank and the number of ranks.
    virtual std::uint32_t rank() const = 0;
    virtual std::uint32_t size() const = 0;
    /// data[0..count) becomes the mean over the ranks, reduced in a fixed
    /// order (the same on every rank, so every rank gets the same bits).
    /// False when `keepGoing` said to stop before every rank arrived (the
    /// data is then unspecified).
    virtual bool allreduceMean(float* data, std::int64_t count, KeepGoing& keepGoing) = 0;
    /// data[0..count) becomes rank `root`'s.
    virtual bool broadcast(float* data, std::int64_t count, std::uint32_t root,
                           KeepGoing& keepGoing) = 0;
    /// Every rank proposes `mine`; all get the same answer: the largest
    /// proposal (stop beats pause beats run), so a decision to stop or pause
    /// is taken by all ranks at the same step.
    virtual bool agree(std::uint32_t mine, std::uint32_t& agreed, KeepGoing& keepGoing) = 0;
};

} // namespace hwl
