#pragma once
// The internal worker role: how a process started by spawn (the app's own
// binary run again) or by the fork server finds its run. It maps the run's
// segments by name, rebuilds the model from the experiment, and runs the
// same worker loop as a thread would.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct WorkerProcessSpec {
    std::string telemetry;  ///< segment names
    std::string parameters; ///< the shared store, or this worker's replica
    std::string data;
    std::string experiment; ///< the experiment as JSON
    std::uint32_t rank = 0;

    /// Arguments after the program name: {"--worker-role", "--telemetry=...", ...}.
    std::vector<std::string> toArgs() const;
};

/// The first argument that marks a worker-role invocation.
constexpr const char* kWorkerRoleFlag = "--worker-role";

/// Runs a worker from its arguments (as produced by toArgs(), with or
/// without the leading flag). Returns the process exit code: 0 finished or
/// stopped, 1 failed (the reason is in the telemetry status block), 2 bad
/// arguments (printed to stderr).
int workerProcessMain(const std::vector<std::string>& args);

/// For main(): when argv[1] is --worker-role, runs the worker, stores its
/// exit code and returns true. Call before anything else starts threads.
bool runWorkerRoleIfRequested(int argc, char** argv, int& exitCode);

} // namespace hwl
