#pragma once
// MpiCollective: the collective of data-parallel ranks that mpirun started,
// on one machine or several.
//
// Reductions take one of two ways (the experiment's --reduce):
//   Collective (the default): Open MPI's own collectives, a reduce-scatter
//     (MPI_Ireduce_scatter, float sums) then an allgather (MPI_Iallgatherv)
//     of the reduced blocks, with the vote beside them in one small
//     MPI_Iallreduce (MPI_MAX). Each rank sends and receives about twice
//     the buffer per step whatever the rank count, by MPI's algorithms for
//     the network it has. Every element's sum is computed on exactly one
//     rank (its block's owner) and the allgather copies it to the others,
//     so every rank holds the same bits whatever order MPI summed in (MPI
//     does not promise one order on every rank for an allreduce); the bits
//     differ from the other transports' (float sums in MPI's order).
//     Distances from the mean sum in double (exact for equal replicas: 0).
//   Hub: rank 0 is the hub. Every other rank sends its data (with its vote)
//     to rank 0; rank 0 sums each element over the ranks in rank order, in
//     double (collective/rankmean.h, the same code as the shared-memory
//     collective, so both transports give the same bits), and sends the
//     mean (with the agreed vote) back. Rank 0 carries N-1 buffers each way.
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
// The wire format of everything but the data is collective/mpi/mpiwire.h.
#include "collective/collective.h"
#include "collective/mpi/mpiwire.h"

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
