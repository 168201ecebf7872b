#pragma once
// A process that mpirun started for a data-parallel run over MPI
// (`mpirun -np N hogwild-lab --headless --mode data-parallel --transport mpi ...`).
// Every rank joins the job first; rank 0 then runs the experiment as any run
// (Run, with rank 0 as a thread of its own: it prints and writes --out);
// every other rank calls runMpiPeer(), which trains its replica silently
// and relays its telemetry to rank 0. leaveMpiJob() last. Part of the
// engine's public API.
#include "config/experimentconfig.h"

#include <cstdint>
#include <functional>
#include <string>

namespace hwl {

/// Whether an MPI launcher started this process (its environment says so:
/// Open MPI's mpirun, MPICH's mpiexec; mpi/launcherenv.h). InputError when
/// its variables are ill-formed.
bool startedByMpirun();
/// Whether this process is to run as one rank of a job: an MPI launcher
/// started it, or torchrun or srun did and `config` uses --transport mpi.
/// InputError when that launcher's variables are ill-formed.
bool startedAsRank(const ExperimentConfig& config);
/// This process's rank as its launcher's environment gives it before
/// joining, or -1 outside a launcher (or where its variables are ill-formed) (to keep all but rank
/// 0 quiet about errors they share).
int mpirunRankFromEnvironment();

struct MpiRank {
    std::uint32_t rank = 0;
    std::uint32_t size = 1;
    std::string host;
};
/// Joins the job (once). RunError saying why not: this build has no MPI, or
/// MPI could not start.
MpiRank joinMpiJob();
/// Whether this process joined an MPI job.
bool inMpiJob();
/// Rank > 0 of a joined job: loads the data, builds the model and trains its
/// replica with rank 0, silently; a failure to start is told to rank 0,
/// which reports it. Returns the exit code: 0, or 2 when rank 0 could not
/// be told (the error is then printed here).
int runMpiPeer(const ExperimentConfig& config);
/// This process's part of the job mpirun started, from join to leave: checks
/// that the experiment uses the MPI transport and takes mpirun's ranks for its
/// workers (InputError when --workers, given, differs, or it names a hostfile
/// or mpirun options), joins the job, runs rank 0's part with `rankZero`
/// (the run as any run) and every other rank's with runMpiPeer(), then
/// leaves the job (cleanly when the exit code is 0). Returns the exit code.
int runMpiRank(ExperimentConfig& config, bool workersGiven, const std::function<int()>& rankZero);
/// The signal (SIGTERM from mpirun, SIGINT) that told this rank to end, or 0.
int mpiEndingSignal();
/// Leaves the job, last, after every run of this process ended. `clean`
/// (this rank's work ended well): MPI_Finalize, which waits for every rank,
/// unless a rank died; else the process just ends and mpirun ends the
/// others (a rank that failed to start never reaches MPI_Finalize).
void leaveMpiJob(bool clean);

} // namespace hwl
