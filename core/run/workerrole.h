#pragma once
// What main() calls first, in every program that runs the engine (the app,
// the tests that start process workers):
//   runWorkerRoleIfRequested(): a process worker started by spawn or the
//       fork server re-enters main() in the internal worker role; this runs
//       it (it maps the run's segments by name, rebuilds the model and the
//       mode's strategy from the experiment, and runs the same worker loop as
//       a thread would);
//   startForkServer(): starts the fork server the forkserver start method
//       forks workers from, while the process is still single-threaded
//       (before Qt, a run or anything else starts threads).
// Part of the engine's public API.
#include <string>
#include <vector>

namespace hwl {

/// When argv[1] is the worker-role flag: runs the worker, stores its exit
/// code and returns true. Call before anything else starts threads.
bool runWorkerRoleIfRequested(int argc, char** argv, int& exitCode);

/// Runs a worker from its role arguments (with or without the leading flag).
/// Returns the process exit code: 0 finished or stopped, 1 failed (the
/// reason is in the telemetry status block), 2 bad arguments (printed to
/// stderr).
int workerProcessMain(const std::vector<std::string>& args);

/// Replaces this process with the engine executable beside it
/// (hogwild-lab-engine), same arguments, when there is one and this process
/// is not it already; returns only when it does not (the caller then runs the
/// command line itself).
void execEngineExecutable(char** argv);

/// Starts this process's fork server (once; later calls do nothing). Returns
/// an empty string, or why it could not start: runs with the forkserver start
/// method then start a server of their own, late, with a warning.
std::string startForkServer();

} // namespace hwl
