#pragma once
// MpiCollective: the collective of data-parallel ranks that mpirun started,
// on one machine or several.
//
// Rank 0 is the hub. A reduction: every other rank sends its data (with its
// vote) to rank 0; rank 0 sums each element over the ranks in rank order,
// in double (collective/rankmean.h, the same code as the shared-memory
// collective, so both transports give the same bits), and sends the mean
// (with the agreed vote) back. Broadcasts go out from rank 0. Every call is
// non-blocking underneath (MPI_Isend / MPI_Irecv polled by MPI_Testall), so
// a wait can look around while it waits:
//   rank 0 writes the other ranks' relayed telemetry into its own, checks
//   every 1 ms of waiting whether a rank on this host is gone (its pid), and
//   names it at once ("rank 1 (pid 4711) killed by SIGKILL after 812 steps");
//   the other ranks relay their telemetry a few times a second and watch
//   for rank 0's farewell (it left: stopped at the epoch gate, or a rank
//   died);
//   every rank gives up kEndingGraceNs after mpirun's SIGTERM, and rank 0
//   then names the ranks that had not answered (a rank on another host that
//   died is noticed this way: mpirun ends the job about 1 s after).
// The wire format of everything but the data is collective/mpi/mpiwire.h.
#include "collective/collective.h"
#include "collective/mpi/mpiwire.h"

#include <cstdint>
#include <memory>

namespace hwl {

class Telemetry;

/// Rank `rank`'s collective in the joined MPI job (mpi::join() first), for
/// operations of at most `capacity` floats; `greeting` is what this rank
/// says of itself at open() (rank 0's facts are the ones the others must
/// match). RunError when this build has no MPI.
std::unique_ptr<Collective> makeMpiCollective(Telemetry& telemetry, std::uint32_t rank,
                                              std::int64_t capacity, mpi::Greeting greeting);

} // namespace hwl
