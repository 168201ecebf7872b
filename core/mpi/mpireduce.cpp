// MpiCollective's reductions through Open MPI's own collectives (the class:
// mpihub.h; why a reduce-scatter and an allgather: mpicollective.h).
//
// A reduction posts up to two collectives at once: the vote's small
// MPI_Iallreduce (MPI_MAX of the vote and of the operation's number, so
// ranks that are out of step say so instead of mixing buffers) and the
// data's MPI_Ialltoallv (rank r gets every rank's block r); then each rank
// sums its block and MPI_Iallgatherv hands every block to every rank.
// Every rank posts them in the same order (collective.h: every rank makes
// the same calls in the same order), and every wait is await()'s, which
// looks around (relays, farewells, liveness) while MPI progresses them.
#include "mpi/mpihub.h"

#include "collective/rankmean.h"

#include "telemetry/telemetry.h"
#include "train/keepgoing.h"
#include "util/errors.h"

#include <algorithm>
#include <climits>

namespace hwl {

namespace {
std::string mpiErrorText(int rc) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    return text;
}
} // namespace

bool MpiCollective::reduceScatterGather(const float* data, std::int64_t count, float* out,
                                        KeepGoing& alive, MPI_Request* beside) {
    if (count > INT_MAX)
        throw RunError("MPI collective: a reduction of " + std::to_string(count) +
                       " floats is too large; use a smaller --bucket-mb");
    // Blocks as even as they can be: the first count % size ranks own one more.
    const std::int64_t base = count / size_, extra = count % size_;
    int at = 0;
    for (std::uint32_t r = 0; r < size_; ++r) {
        blockCounts_[r] = int(base + (std::int64_t(r) < extra ? 1 : 0));
        blockStarts_[r] = at;
        at += blockCounts_[r];
    }
    // Every other rank's copy of this rank's block, side by side in rank
    // order; this rank's own copy is read where it is (no copy to itself).
    const int mine = blockCounts_[rank_];
    for (std::uint32_t r = 0; r < size_; ++r) {
        theirCounts_[r] = r == rank_ ? 0 : mine;
        theirStarts_[r] = int(r) * mine;
        sendCounts_[r] = r == rank_ ? 0 : blockCounts_[r];
    }
    MPI_Request requests[2] = {MPI_REQUEST_NULL, beside ? *beside : MPI_REQUEST_NULL};
    int rc =
        MPI_Ialltoallv(data, sendCounts_.data(), blockStarts_.data(), MPI_FLOAT, blocks_.data(),
                       theirCounts_.data(), theirStarts_.data(), MPI_FLOAT, comm_, &requests[0]);
    if (rc != MPI_SUCCESS)
        return fail(alive, "MPI could not start the reduction: " + mpiErrorText(rc));
    const bool exchanged = await(requests, 2, &alive, 0, /*collective=*/true);
    if (beside)
        *beside = requests[1];
    if (!exchanged)
        return false;
    // This rank's block of the mean, in place in `out`, by the hub's own
    // code: summed over the ranks in rank order, in double.
    for (std::uint32_t r = 0; r < size_; ++r)
        inputs_[r] = r == rank_ ? data + blockStarts_[rank_]
                                : blocks_.data() + std::size_t(r) * std::size_t(mine);
    meanInRankOrder(inputs_.data(), size_, 0, mine, out + blockStarts_[rank_]);
    // Then every rank's block to every rank.
    rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, blockCounts_.data(),
                         blockStarts_.data(), MPI_FLOAT, comm_, &requests[0]);
    if (rc != MPI_SUCCESS)
        return fail(alive, "MPI could not start the allgather: " + mpiErrorText(rc));
    return await(requests, 1, &alive, 0, /*collective=*/true);
}

bool MpiCollective::settleVote(std::uint32_t op, std::uint32_t* vote, KeepGoing& alive) {
    // voteOut_ = {largest vote, largest op, -smallest op}.
    if (voteOut_[1] != std::int64_t(op) || -voteOut_[2] != std::int64_t(op))
        return fail(alive, "rank " + std::to_string(rank_) +
                               " is out of step with the others (its operation " +
                               std::to_string(op) + ", theirs " + std::to_string(-voteOut_[2]) +
                               ".." + std::to_string(voteOut_[1]) + "): please report this");
    *vote = std::uint32_t(voteOut_[0]);
    setAgreedVote(*vote);
    return true;
}

const float* MpiCollective::collectiveReduce(const float* data, std::int64_t count,
                                             std::uint32_t* vote, KeepGoing& alive, float* out) {
    const std::uint32_t op = op_++;
    float* mean = out ? out : means_[op & 1].data();
    MPI_Request voteRequest = MPI_REQUEST_NULL;
    if (vote) {
        voteIn_[0] = std::int64_t(*vote);
        voteIn_[1] = std::int64_t(op);
        voteIn_[2] = -std::int64_t(op);
        const int rc =
            MPI_Iallreduce(voteIn_, voteOut_, 3, MPI_INT64_T, MPI_MAX, comm_, &voteRequest);
        if (rc != MPI_SUCCESS) {
            fail(alive, "MPI could not start the vote: " + mpiErrorText(rc));
            return nullptr;
        }
    }
    // The vote's allreduce runs beside the exchange: one wait for both.
    if (count > 0 && !reduceScatterGather(data, count, mean, alive, vote ? &voteRequest : nullptr))
        return nullptr;
    if (vote && !await(&voteRequest, 1, &alive, 0, /*collective=*/true))
        return nullptr;
    if (vote && !settleVote(op, vote, alive))
        return nullptr;
    return mean;
}

} // namespace hwl
