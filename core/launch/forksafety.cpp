#include "launch/forksafety.h"

#ifdef HWL_HAVE_CUDA
#include "cuda/cuda.h"
#endif

#include "launch/devices.h"

#include <atomic>
#include <filesystem>

namespace hwl {

StartMethodCheck checkStartMethod(StartMethod method, bool cudaInitialised, int threadCount) {
    StartMethodCheck check;
    if (method != StartMethod::Fork)
        return check;
    if (cudaInitialised)
        check.error = "start-method fork refused: this process has already initialised CUDA, and "
                      "a forked child cannot use (or re-initialise) its parent's CUDA context, so "
                      "every worker would fail. Use --start-method spawn or forkserver: their "
                      "workers start with a clean state.";
    if (threadCount > 1)
        check.warnings.push_back(
            "fork() from a process that runs " + std::to_string(threadCount) +
            " threads: each child gets a copy of only the forking thread, and any lock another "
            "thread held at that moment stays locked in the child forever. Hogwild Lab's workers "
            "avoid such locks, but other code may not; --start-method forkserver forks from a "
            "clean single-threaded server instead.");
    return check;
}

int currentThreadCount() {
    std::error_code ec;
    int count = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++count;
    return count;
}

bool cudaInitialisedInThisProcess() {
#ifdef HWL_HAVE_CUDA
    return cuda::initialisedHere(); // the backend's one initialising call records it
#else
    return false; // a build without the CUDA backend never initialises CUDA
#endif
}

namespace {
std::atomic<bool> gCudaForbidden{false};
}

bool cudaForbiddenHere() {
    return gCudaForbidden.load();
}

std::string initialiseCudaOnPurpose() {
    if (cudaForbiddenHere())
        return "--cuda-before-fork: this window's process never initialises CUDA (its later "
               "forks must stay safe), so the start method is checked as if it had";
#ifdef HWL_HAVE_CUDA
    const cuda::DeviceReport report = cuda::initialise();
    if (report.devices.empty())
        return "--cuda-before-fork: this process initialised CUDA (" + report.error +
               "); a fork now is refused all the same: on a machine with a GPU its context "
               "would exist, and a forked child cannot use it";
    return "--cuda-before-fork: this process initialised CUDA on " + report.devices[0].name +
           " (a context exists now, as after a framework's first CUDA call)";
#else
    return "--cuda-before-fork: this build has no CUDA backend, so nothing was initialised; the "
           "start method is checked as if it had been: with CUDA the run's process would now "
           "hold a CUDA context, which a forked child cannot use or re-initialise (PyTorch "
           "says \"Cannot re-initialize CUDA in forked subprocess\"), so fork is refused and "
           "spawn or forkserver is the fix";
#endif
}

void neverInitialiseCudaHere() {
    gCudaForbidden.store(true);
}

std::string cudaInForkedWorker() {
#ifdef HWL_HAVE_CUDA
    const std::string answer = cuda::tryCudaInForkedChild(10'000);
    return answer == "cudaFree(0) succeeded" ? std::string() : answer;
#else
    return {};
#endif
}

} // namespace hwl
