#pragma once
// The MPI job this process belongs to, when mpirun started it.
//
// join() once, on the main thread, before anything else talks MPI
// (MPI_Init_thread with MPI_THREAD_SERIALIZED: after it, one thread at a
// time makes every MPI call, in practice the rank's worker thread); leave()
// once at the end (MPI_Finalize waits for every rank to get there, so it is
// skipped when a peer is known to be gone: it would wait forever).
//
// Signals: mpirun ends a job by sending SIGTERM to every rank, whether the
// user pressed Ctrl-C or a rank died, and SIGKILL 1 s later
// (odls_base_sigkill_timeout). join() installs a handler for SIGTERM and
// SIGINT that records when, and writes Stop into the run's command word
// (watchCommand()), so the ranks agree on a stop at the next step if they
// all still can; collective waits give up a short grace later
// (kEndingGraceNs) and name the ranks that never answered.
//
// built() says whether this build has MPI at all; without it join() throws
// RunError saying why, and nothing else here does anything.
#include <atomic>
#include <cstdint>
#include <string>

namespace hwl::mpi {

struct JobInfo {
    std::uint32_t rank = 0;
    std::uint32_t size = 1;
    std::uint32_t localSize = 1; ///< ranks on this host
    std::string host;            ///< this host's name
};

/// How long a collective wait goes on after SIGTERM before it gives up.
constexpr std::int64_t kEndingGraceNs = 300'000'000;

/// Whether this build has the MPI transport.
bool built();
/// Why not, when it has none (the words --mode, --help and the form show).
constexpr const char* kNotBuiltReason =
    "not built: this build has no MPI (install libopenmpi-dev and build again)";
/// Whether mpirun started this process (its environment says so).
bool startedByMpirun();
/// Joins the job (once; later calls return the same). RunError when MPI is
/// not built or MPI_Init_thread fails.
const JobInfo& join();
bool joined();
/// The joined job (join() first).
const JobInfo& job();
/// Leaves the job: MPI_Finalize when `clean` and no peer was lost (it waits
/// for every rank, which a rank that died or failed to start never
/// becomes); else the process just ends, and mpirun ends the others.
void leave(bool clean);
/// A peer died: MPI_Finalize would wait for it forever.
void markPeerLost();

/// The command word the signal handler sets to Stop (null: none).
void watchCommand(std::atomic<std::uint32_t>* command);
/// Stops watching `command` if it is the one watched (before it is unmapped).
void unwatchCommand(std::atomic<std::uint32_t>* command);
/// Installs the SIGTERM / SIGINT handler (join() does).
void installEndingHandler();
/// Monotonic ns when SIGTERM or SIGINT arrived; 0 before.
std::int64_t endingSince();
/// The signal that ended the job (SIGTERM, SIGINT), or 0.
int endingSignal();

} // namespace hwl::mpi
