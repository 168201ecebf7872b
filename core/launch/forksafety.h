#pragma once
// Checks made before process workers start, for the classic pitfalls of
// starting processes with fork().
#include "config/experimentconfig.h"

#include <string>
#include <vector>

namespace hwl {

struct StartMethodCheck {
    std::string error;                 ///< non-empty: refuse to start, with this message
    std::vector<std::string> warnings; ///< plain-words warnings for the user
};

/// The pure decision, unit-tested with stand-in facts:
/// - fork after CUDA was initialised in this process: refused (the blog's
///   "scene 1": a forked child cannot use the parent's CUDA context);
/// - fork while other threads run: warned (the child has only the forking
///   thread; locks other threads held stay locked in it forever).
StartMethodCheck checkStartMethod(StartMethod method, bool cudaInitialised, int threadCount);

/// Threads of this process now (/proc/self/task).
int currentThreadCount();
/// Whether this process has initialised CUDA (cuda::initialise). Always false in
/// builds without the CUDA backend.
bool cudaInitialisedInThisProcess();

/// The CUDA-before-fork pitfall on purpose (--cuda-before-fork): initialises
/// CUDA in this process, as a framework's first CUDA call does. Returns what
/// happened, in plain words, for the run's notes.
std::string initialiseCudaOnPurpose();
/// Whether this process declared it never initialises CUDA (launch/devices.h).
bool cudaForbiddenHere();
/// In a worker forked after that (--force-unsafe-fork): what CUDA answers
/// there (bounded by a 10 s timeout). Empty when CUDA worked in the child.
std::string cudaInForkedWorker();

} // namespace hwl
