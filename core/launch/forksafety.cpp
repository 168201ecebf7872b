#include "launch/forksafety.h"

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
    // This build has no CUDA backend yet (the GPU modes are a later step), so
    // nothing in this process can have created a CUDA context. The refusal
    // logic itself is unit-tested through checkStartMethod().
    return false;
}

} // namespace hwl
