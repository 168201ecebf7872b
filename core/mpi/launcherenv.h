#pragma once
// Which launcher started this process as one rank of a job, read from the
// variables each launcher sets in its ranks' environment, before MPI is
// joined (MPI_Init's own rank and size are the job's; these say that there
// is a job, and keep ranks beyond 0 quiet while the command line is read).
//
// In this order, the launcher nearest the process first (an mpirun inside a
// Slurm allocation sees the allocation's SLURM_* too; torchrun under srun
// sees srun's):
//   1. Open MPI's mpirun (or any PMIx launcher): OMPI_COMM_WORLD_RANK /
//      OMPI_COMM_WORLD_SIZE / OMPI_COMM_WORLD_LOCAL_SIZE, else PMIX_RANK
//   2. MPICH's or Intel MPI's mpiexec (Hydra), srun --mpi=pmi2: PMI_RANK /
//      PMI_SIZE / MPI_LOCALNRANKS
//   3. torchrun and other PyTorch-style launchers: RANK / WORLD_SIZE /
//      LOCAL_WORLD_SIZE
//   4. Slurm's srun: SLURM_PROCID / SLURM_NTASKS
// 1 and 2 are MPI launchers: the process is an MPI rank whatever the
// experiment. 3 and 4 also start programs that are not MPI jobs (and Slurm
// sets its variables in a batch script too): they count only for an
// experiment with --transport mpi (and MPI must then agree on the size).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hwl::mpi {

struct LauncherRank {
    std::string launcher;     ///< "mpirun", "mpiexec", "torchrun", "srun": for messages
    std::string variables;    ///< the variables read: "PMI_RANK=1, PMI_SIZE=4"
    bool mpiLauncher = false; ///< 1 and 2 above
    std::uint32_t rank = 0;
    std::optional<std::uint32_t> size;      ///< none: PMIX_RANK alone says no size
    std::optional<std::uint32_t> localSize; ///< ranks on this host, where the launcher says
};

/// A variable launcherRank() reads, for the manual's ENVIRONMENT: its name,
/// its value's form and what it says.
struct LauncherVariable {
    std::string name, value, meaning;
};
/// Every variable launcherRank() reads, in the order it looks at them
/// (from the table it reads them by).
const std::vector<LauncherVariable>& launcherVariables();

/// A variable's value, or null when it is not set (std::getenv, or a test's map).
using Environment = std::function<const char*(const char*)>;
Environment processEnvironment();

/// The nearest launcher whose variables are set, or nothing; with
/// `mpiLaunchersOnly`, the nearest MPI launcher (1 and 2). Throws
/// InputError naming the variables when that launcher's are ill-formed (not
/// a whole number from 0, a rank without its size, rank >= size); another
/// launcher's are not read.
std::optional<LauncherRank> launcherRank(const Environment& env, bool mpiLaunchersOnly = false);

} // namespace hwl::mpi
