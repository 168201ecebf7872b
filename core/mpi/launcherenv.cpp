#include "mpi/launcherenv.h"

#include "util/errors.h"
#include "util/textutil.h"

#include <cstdlib>

namespace hwl::mpi {

namespace {

/// One launcher's variables; null: it sets none for that.
struct LauncherVariables {
    const char* launcher;
    bool mpiLauncher;
    const char* rank;
    const char* size;
    const char* localSize;
};
constexpr LauncherVariables kLaunchers[] = {
    {"mpirun", true, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"mpirun", true, "PMIX_RANK", nullptr, nullptr},
    {"mpiexec", true, "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"},
    {"torchrun", false, "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"},
    {"srun", false, "SLURM_PROCID", "SLURM_NTASKS", nullptr},
};

/// "Open MPI's mpirun", "torchrun (with --transport mpi)".
std::string launcherWords(const LauncherVariables& l) {
    const std::string name = l.launcher;
    const std::string who = name == "mpirun" ? "Open MPI's mpirun (or a PMIx launcher)"
                            : name == "mpiexec"
                                ? "MPICH's or Intel MPI's mpiexec, or srun --mpi=pmi2"
                            : name == "srun" ? "Slurm's srun"
                                             : name;
    return who + (l.mpiLauncher ? "" : ", read only for an experiment with --transport mpi");
}

std::optional<std::uint32_t> count(const Environment& env, const char* name, std::string& seen) {
    const char* text = name ? env(name) : nullptr;
    if (!text)
        return std::nullopt;
    seen += (seen.empty() ? "" : ", ") + std::string(name) + "=" + text;
    const std::optional<std::int64_t> n = parseInteger(text);
    if (!n || *n < 0 || *n > INT32_MAX)
        throw InputError(std::string(name) + "=\"" + text +
                         "\": the launcher's rank variables must be whole numbers from 0; "
                         "start hogwild-lab with the launcher itself, or unset " +
                         name);
    return std::uint32_t(*n);
}

} // namespace

Environment processEnvironment() {
    return [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
}

const std::vector<LauncherVariable>& launcherVariables() {
    static const std::vector<LauncherVariable> table = [] {
        std::vector<LauncherVariable> out;
        for (const LauncherVariables& l : kLaunchers) {
            const std::string who = launcherWords(l);
            out.push_back({l.rank, "N", "this process's rank, set by " + who});
            if (l.size)
                out.push_back({l.size, "N", "the number of ranks, set by " + who});
            if (l.localSize)
                out.push_back({l.localSize, "N", "the ranks on this host, set by " + who});
        }
        return out;
    }();
    return table;
}

std::optional<LauncherRank> launcherRank(const Environment& env, bool mpiLaunchersOnly) {
    for (const LauncherVariables& l : kLaunchers) {
        if (mpiLaunchersOnly && !l.mpiLauncher)
            continue;
        // Open MPI's size alone (as before PMIX_RANK) marks its rank too.
        if (!env(l.rank) && !(l.size && env(l.size)))
            continue;
        LauncherRank r;
        r.launcher = l.launcher;
        r.mpiLauncher = l.mpiLauncher;
        const std::optional<std::uint32_t> rank = count(env, l.rank, r.variables);
        r.size = count(env, l.size, r.variables);
        r.localSize = count(env, l.localSize, r.variables);
        if (!rank || (l.size && !r.size))
            throw InputError(r.variables + ": " + l.launcher + " sets both " + l.rank + " and " +
                             l.size +
                             "; one without the other is not a launcher's rank: "
                             "unset it, or start hogwild-lab with the launcher");
        r.rank = *rank;
        if (r.size && (*r.size == 0 || r.rank >= *r.size))
            throw InputError(r.variables + ": rank " + std::to_string(r.rank) + " is not one of " +
                             std::to_string(*r.size) + " ranks (0 to " + std::to_string(*r.size) +
                             " - 1); the variables contradict each "
                             "other: start hogwild-lab with the launcher itself");
        return r;
    }
    return std::nullopt;
}

} // namespace hwl::mpi
