#pragma once
// Launcher: one per way of starting workers (threads; processes by fork,
// spawn or the fork server). The run's coordinator starts each worker with a
// WorkerJob, then polls reap() for processes that ended (how, as a wait
// status), and finally waits for the rest.
//
//   threads:    a std::thread runs job.body in this process;
//   fork:       fork() now; the child runs job.body with the parent's
//               mappings and _exit()s with its result;
//   spawn:      fork() + exec of the engine executable (engineExecutable():
//               hogwild-lab-engine beside this program, else this one) in the
//               internal worker role with job.roleArgs; the worker maps the
//               run by name;
//   forkserver: a request to a ForkServer started early, while the process
//               was single-threaded; its child runs the worker role;
//   device:     the GPU modes: one device process (by the start method)
//               drives all logical workers, relayed through it;
//   mpi:        mpirun's ranks (mpi/mpilaunchers.h, with the rest of MPI).
// Every worker process gets PR_SET_PDEATHSIG = kParentDeathSignal (via the
// server for forkserver), so none outlives the parent and the last of them
// unlinks the run's segments even when the parent was killed with SIGKILL;
// mpirun gets SIGTERM, so that it ends its job's ranks everywhere.
//
// Threading: a Launcher is used by one thread at a time (the coordinator).
#include "config/experimentconfig.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace hwl {

class ForkServer;

/// What a worker runs: `body` in this process (a thread) or in a forked
/// child (its result is the exit code), or the worker role with `roleArgs`
/// in a spawned or fork-server child.
struct WorkerJob {
    std::function<int()> body;
    std::vector<std::string> roleArgs;
};

class Launcher {
public:
    struct Exit {
        std::uint32_t rank;
        pid_t pid;
        int status; ///< as waitpid() reports it
        /// Non-empty: the process stood for the whole job, not one rank
        /// ("mpirun (pid 4711)"), and `detail` holds its last words.
        std::string what = {};
        std::string detail = {};
        /// A file that holds all it said (mpirun's log), kept for the user
        /// when the run reports this exit, removed otherwise.
        std::string log = {};
        /// The rank mpirun saw end first and its wait status, when its log
        /// names one ("mpirun noticed that process rank 1 ... exited on
        /// signal 9"); -1 when it names none.
        int firstRankDown = -1;
        int firstRankStatus = 0;
    };

    virtual ~Launcher() = default;
    /// Starts worker `rank`; returns its pid (this process's for a thread).
    /// Throws RunError saying why it could not start ("fork failed: ...").
    virtual pid_t launch(std::uint32_t rank, const WorkerJob& job) = 0;
    /// Worker processes that ended since the last call; never blocks.
    /// Threads end through their status blocks and are never reported here.
    virtual std::vector<Exit> reap() = 0;
    /// Workers still running.
    virtual std::size_t running() const = 0;
    /// SIGKILLs every worker process still running (reap() reports them);
    /// threads cannot be killed: they stop at their next step.
    virtual void killAll() = 0;
    /// Waits for every thread (a no-op for processes, see reap()).
    virtual void join() {}
    /// Whether workers are processes (the worker table shows pids).
    virtual bool processes() const = 0;
    /// Whether worker `rank` runs elsewhere (an MPI rank beyond 0): its
    /// status arrives relayed through rank 0, it does not wait at this
    /// run's epoch gate, and this launcher neither started nor reaps it.
    virtual bool relayed(std::uint32_t /*rank*/) const { return false; }
    /// Whether relayed worker `rank`'s counts reach this process behind rank
    /// 0's (an MPI rank: its relays come every few ms). A device process's
    /// workers are relayed but write their counts before each gate.
    virtual bool countsLag(std::uint32_t /*rank*/) const { return false; }
};

/// Threads of this process.
std::unique_ptr<Launcher> makeThreadLauncher();
/// Processes by `method`; forkserver needs `server` (else RunError).
std::unique_ptr<Launcher> makeProcessLauncher(StartMethod method,
                                              std::shared_ptr<ForkServer> server);

/// The GPU modes: `inner` starts one device process for rank 0, which
/// drives every logical worker; the others are relayed through it.
std::unique_ptr<Launcher> makeDeviceLauncher(std::unique_ptr<Launcher> inner);

} // namespace hwl
