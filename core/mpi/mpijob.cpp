// Joining and leaving the MPI job (this build has MPI).
#include "mpi/mpijob.h"

#include "mpi/launcherenv.h"
#include "util/errors.h"

#include <mpi.h>

#include <cstdlib>
#include <mutex>

#include <unistd.h>

namespace hwl::mpi {

namespace {
std::mutex gMutex;
JobInfo gJob;
bool gJoined = false, gLeft = false;
std::atomic<bool> gPeerLost{false};

/// Ranks on this host as the launcher says (mpi/launcherenv.h), else all.
std::uint32_t localSize(std::uint32_t size) {
    try {
        if (const auto launcher = launcherRank(processEnvironment()))
            if (launcher->localSize && *launcher->localSize > 0)
                return *launcher->localSize;
    } catch (const InputError&) { // said where the rank is taken
    }
    return size;
}
} // namespace

bool built() {
    return true;
}

const JobInfo& join() {
    std::lock_guard lock(gMutex);
    if (gJoined)
        return gJob;
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        throw RunError("transport mpi: MPI_Init_thread failed; start the ranks with mpirun");
    if (provided < MPI_THREAD_SERIALIZED)
        throw RunError("transport mpi: this MPI library cannot serve a worker thread "
                       "(MPI_THREAD_SERIALIZED); build against Open MPI as packaged by Debian");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    gJob = {std::uint32_t(rank), std::uint32_t(size), localSize(std::uint32_t(size)), host};
    gJoined = true;
    installEndingHandler();
    return gJob;
}

bool joined() {
    std::lock_guard lock(gMutex);
    return gJoined;
}

const JobInfo& job() {
    std::lock_guard lock(gMutex);
    if (!gJoined)
        throw RunError("transport mpi: this process has not joined an MPI job");
    return gJob;
}

void leave(bool clean) {
    std::lock_guard lock(gMutex);
    if (!gJoined || gLeft)
        return;
    gLeft = true;
    // MPI_Finalize waits for every rank: not for one that died.
    if (clean && !gPeerLost.load())
        MPI_Finalize();
}

void markPeerLost() {
    gPeerLost.store(true);
}

} // namespace hwl::mpi
