#pragma once
// How a worker process started by spawn (the app's own binary run again) or
// by the fork server finds its run: the names of the run's segments, the
// experiment and its rank, as command-line arguments of the internal worker
// role (run/workerrole.h runs it).
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// This program's path (/proc/self/exe resolved). Throws RunError when it
/// cannot be found.
std::string selfExecutable();

/// The program that worker roles, MPI ranks and the device probe run: the
/// Qt-free engine executable (kEngineExecutable) beside this program when
/// there is one (the window's process, the installed layout), else this
/// program (the engine executable itself, a test or a benchmark, whose main()
/// runs the worker role too). Throws RunError when neither can be found.
std::string engineExecutable();
constexpr const char* kEngineExecutable = "hogwild-lab-engine";

/// A null-terminated argv for execv() over `strings`, which must outlive it
/// (built before fork(): after it only async-signal-safe calls are allowed).
std::vector<char*> execArgv(std::vector<std::string>& strings);

/// The first argument that marks a worker-role invocation.
constexpr const char* kWorkerRoleFlag = "--worker-role";

struct WorkerProcessSpec {
    std::string telemetry;  ///< segment names
    std::string parameters; ///< the shared store, or this worker's replica
    std::string data;
    /// The experiment as JSON, on the command line: only for MPI ranks,
    /// which may run on other hosts. Process workers of this machine get
    /// `experimentSegment` instead (a 0600 segment: a command line is
    /// visible to every local user in ps).
    std::string experiment;
    std::string experimentSegment;
    std::uint32_t rank = 0;
    std::string collective; ///< data-parallel: the collective's segment; empty otherwise

    /// Arguments after the program name: {"--worker-role", "--telemetry=...", ...}.
    std::vector<std::string> toArgs() const;
    /// The inverse of toArgs() (with or without the leading flag). Throws
    /// std::invalid_argument naming what is wrong.
    static WorkerProcessSpec parse(const std::vector<std::string>& args);
};

} // namespace hwl
