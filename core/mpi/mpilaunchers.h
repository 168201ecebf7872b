#pragma once
// The launchers of a data-parallel run over MPI (launch/launcher.h's
// interface): rank 0 is a thread of this process when mpirun started it
// (makeMpiRankLauncher), or this process starts mpirun, whose rank 0 runs
// the worker role on this machine (makeMpirunLauncher); the other ranks are
// mpirun's, relayed. mpirun gets SIGTERM when this process dies, so that it
// ends its job's ranks everywhere.
#include "launch/launcher.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hwl {

/// WorkerProcessSpec::collective of a data-parallel run over MPI: the worker
/// role joins mpirun's job (rank 0 maps this run; the others train on their
/// own and relay).
constexpr const char* kMpiCollective = "mpi";

/// Rank 0 of a job mpirun started (this process): rank 0 as a thread here;
/// the other ranks were started by mpirun and are relayed.
std::unique_ptr<Launcher> makeMpiRankLauncher();

/// How this process starts mpirun for a run.
struct MpirunCommand {
    std::uint32_t ranks = 2;
    std::string hostfile;               ///< empty: every rank on this machine
    std::vector<std::string> extraArgs; ///< more mpirun arguments
};
/// mpirun, started by this process for rank 0's job (its roleArgs: the
/// worker role, whose rank 0 must land on this machine) on `command.ranks`
/// ranks; ranks beyond 0 are relayed. RunError when mpirun is not found.
std::unique_ptr<Launcher> makeMpirunLauncher(MpirunCommand command);
/// The arguments the app adds for mpirun on its own (--allow-run-as-root
/// when run as root; --oversubscribe when there are more ranks than cores
/// and no hostfile), with the reasons, for the run's notes.
std::vector<std::pair<std::string, std::string>> automaticMpirunArgs(const MpirunCommand& command);
/// `text` split at spaces into mpirun arguments; `error` says what is wrong
/// (quotes, or an argument the app sets itself such as -np).
std::vector<std::string> splitMpirunArgs(const std::string& text, std::string& error);

} // namespace hwl
