#pragma once
// MpiCollective: the collective of data-parallel ranks that mpirun started,
// on one machine or several.
//
// Reductions take one of two ways (the experiment's --reduce):
//   Collective (the default): Open MPI's own collectives. The buffer is
//     cut into one block per rank; MPI_Ialltoallv hands rank r every rank's
//     copy of block r, rank r sums it over the ranks in rank order in
//     double (collective/rankmean.h, the hub's own code), and
//     MPI_Iallgatherv copies every block to every rank; the vote travels
//     beside the exchange in one small MPI_Iallreduce (MPI_MAX). Each rank
//     sends and receives 2(N-1)/N of the buffer per reduction, never more
//     than twice the buffer however many ranks (a ring's bytes), in two
//     rounds of messages. Why not MPI_Iallreduce or MPI_Ireduce_scatter:
//     MPI does not promise every rank the same bits from an allreduce, and
//     Open MPI 4.1's non-blocking reduce-scatter (libnbc) reduces to rank 0
//     through a tree, so rank 0 receives log2(N) buffers. Here every
//     element is summed once, on its block's owner, in rank order: every
//     rank holds the same bits, and they are the hub's and the other
//     transports' bits too.
//   Hub (--reduce exact): rank 0 is the hub. Every other rank sends its
//     data (with its vote) to rank 0; rank 0 sums each element over the
//     ranks in rank order, in double (the same code), and sends the mean
//     (with the agreed vote) back: the same bits, with rank 0 carrying N-1
//     buffers each way per reduction.
// Broadcasts and allgathers of integers go through rank 0 either way (they
// run at the start, and for sparse gradients their lists).
//
// Every call is non-blocking underneath (point-to-point or collective
// requests polled by MPI_Test), so a wait can look around while it waits:
//   rank 0 writes the other ranks' relayed telemetry into its own, checks
//   every 1 ms of waiting whether a rank on this host is gone (its pid), and
//   names it at once ("rank 1 (pid 4711) killed by SIGKILL after 812 steps");
//   the other ranks relay their telemetry a few times a second and watch
//   for rank 0's farewell (it left: stopped at the epoch gate, or a rank
//   died);
//   every rank gives up kEndingGraceNs after mpirun's SIGTERM, and rank 0
//   then names the ranks that had not answered (a rank on another host that
//   died is noticed this way: mpirun ends the job about 1 s after; inside
//   one of MPI's collectives no rank knows who is missing, and rank 0 says
//   that the reduction stalled and that mpirun's message names the rank).
// The wire format of everything but the data is mpi/mpiwire.h.
#include "collective/collective.h"
#include "mpi/mpiwire.h"

#include <cstdint>
#include <memory>

namespace hwl {

class Telemetry;

/// How an MpiCollective reduces (see above).
enum class MpiReduction { Collective, Hub };

/// Rank `rank`'s collective in the joined MPI job (mpi::join() first), for
/// operations of at most `capacity` floats; `greeting` is what this rank
/// says of itself at open() (rank 0's facts are the ones the others must
/// match). `communicator` is MPI_Comm_c2f() of the communicator it talks
/// on, every message of it (-1: MPI_COMM_WORLD; a benchmark that compares
/// two collectives gives each its own duplicate). RunError when this build
/// has no MPI.
std::unique_ptr<Collective> makeMpiCollective(Telemetry& telemetry, std::uint32_t rank,
                                              std::int64_t capacity, mpi::Greeting greeting,
                                              MpiReduction reduction = MpiReduction::Hub,
                                              int communicator = -1);

} // namespace hwl
