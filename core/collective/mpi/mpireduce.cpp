// MpiCollective's reductions through Open MPI's own collectives (the class:
// mpihub.h; why a reduce-scatter and an allgather: mpicollective.h).
//
// A reduction posts up to two collectives at once: the vote's small
// MPI_Iallreduce (MPI_MAX of the vote and of the operation's number, so
// ranks that are out of step say so instead of mixing buffers) and the
// data's MPI_Ireduce_scatter; then the allgather of the reduced blocks.
// Every rank posts them in the same order (collective.h: every rank makes
// the same calls in the same order), and every wait is await()'s, which
// looks around (relays, farewells, liveness) while MPI progresses them.
#include "collective/mpi/mpihub.h"

#include "telemetry/telemetry.h"
#include "train/keepgoing.h"
#include "util/errors.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace hwl {

namespace {
/// Distances reduce in double at most this many elements at a time.
constexpr std::int64_t kWideChunk = 1 << 20;

std::string mpiErrorText(int rc) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    return text;
}

/// out[i] = sum[i] / n, as the hub's mean does it: a product by 1/n when n
/// is a power of two (exact), else the correctly rounded quotient.
template <typename T>
void scaleInto(const T* sum, int count, std::uint32_t n, float* out) {
    const T inverse = T(1) / T(n);
    if ((n & (n - 1)) == 0)
        for (int i = 0; i < count; ++i)
            out[i] = float(sum[i] * inverse);
    else
        for (int i = 0; i < count; ++i)
            out[i] = float(sum[i] / T(n));
}
} // namespace

bool MpiCollective::reduceScatterGather(const void* send, MPI_Datatype type, std::int64_t count,
                                        void* block, float* out, KeepGoing& alive,
                                        MPI_Request* beside) {
    if (count > INT_MAX)
        throw RunError("MPI collective: a reduction of " + std::to_string(count) +
                       " elements is too large; use a smaller --bucket-mb");
    // Blocks as even as they can be: the first count % size ranks own one more.
    blockCounts_.resize(size_);
    blockStarts_.resize(size_);
    const std::int64_t base = count / size_, extra = count % size_;
    int at = 0;
    for (std::uint32_t r = 0; r < size_; ++r) {
        blockCounts_[r] = int(base + (std::int64_t(r) < extra ? 1 : 0));
        blockStarts_[r] = at;
        at += blockCounts_[r];
    }
    MPI_Request requests[2] = {MPI_REQUEST_NULL, beside ? *beside : MPI_REQUEST_NULL};
    int rc =
        MPI_Ireduce_scatter(send, block, blockCounts_.data(), type, MPI_SUM, comm_, &requests[0]);
    if (rc != MPI_SUCCESS)
        return fail(alive, "MPI could not start the reduction: " + mpiErrorText(rc));
    const bool reduced = await(requests, 2, &alive, 0, /*collective=*/true);
    if (beside)
        *beside = requests[1];
    if (!reduced)
        return false;
    // This rank's block of the mean, in place in `out`; the allgather then
    // copies every rank's block to every rank.
    float* mine = out + blockStarts_[rank_];
    if (type == MPI_DOUBLE)
        scaleInto(static_cast<const double*>(block), blockCounts_[rank_], size_, mine);
    else
        scaleInto(static_cast<const float*>(block), blockCounts_[rank_], size_, mine);
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
    // The vote's allreduce runs beside the reduce-scatter: one wait for both.
    if (count > 0 && !reduceScatterGather(data, MPI_FLOAT, count, block_.data(), mean, alive,
                                          vote ? &voteRequest : nullptr))
        return nullptr;
    if (vote && !await(&voteRequest, 1, &alive, 0, /*collective=*/true))
        return nullptr;
    if (vote && !settleVote(op, vote, alive))
        return nullptr;
    return mean;
}

bool MpiCollective::collectiveDistance(const float* data, std::int64_t count, double& distance,
                                       KeepGoing& alive) {
    // In double: a float sum of equal values can round (x + x + x), a double
    // sum of floats is exact, so replicas that hold the same bits measure
    // exactly 0, as the hub's mean has them.
    const std::int64_t chunk = std::min(capacity_, kWideChunk);
    wide_.resize(std::size_t(chunk));
    wideBlock_.resize(std::size_t(chunk / size_ + 1));
    wideMean_.resize(std::size_t(chunk));
    double squares = 0;
    for (std::int64_t at = 0; at < count; at += chunk) {
        const std::int64_t n = std::min(chunk, count - at);
        std::copy(data + at, data + at + n, wide_.begin());
        if (broken_ || !reduceScatterGather(wide_.data(), MPI_DOUBLE, n, wideBlock_.data(),
                                            wideMean_.data(), alive, nullptr))
            return false;
        for (std::int64_t i = 0; i < n; ++i) {
            const double d = double(data[at + i]) - double(wideMean_[std::size_t(i)]);
            squares += d * d;
        }
    }
    distance = std::sqrt(squares);
    return true;
}

} // namespace hwl
