#pragma once
// ProcessLauncher: starts worker processes by one start method and reports
// how they ended. Used by the run's coordinator thread only.
//
//   fork:       fork() now; the child runs a function with the parent's
//               mappings and _exit()s.
//   spawn:      fork() + exec of this program (/proc/self/exe) in the
//               internal worker role; the worker maps the run by name.
//   forkserver: a request to a ForkServer started early, while the process
//               was single-threaded; its child runs the worker role.
// Every worker gets PR_SET_PDEATHSIG = SIGKILL (via the server for
// forkserver), so none outlives the parent.
#include "config/experimentconfig.h"
#include "launch/forkserver.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace hwl {

class ProcessLauncher {
public:
    ProcessLauncher(StartMethod method, std::shared_ptr<ForkServer> server);
    ~ProcessLauncher(); ///< kills and reaps any worker still running

    /// Starts worker `rank`: fork runs `forkedBody` (its result is the exit
    /// code), spawn and forkserver run the worker role with `roleArgs`.
    /// Throws RunError when the process cannot be started.
    pid_t launch(std::uint32_t rank, const std::function<int()>& forkedBody,
                 const std::vector<std::string>& roleArgs);

    struct Exit {
        std::uint32_t rank;
        pid_t pid;
        int status; ///< as waitpid() reports it
    };
    /// Workers that ended since the last call; never blocks.
    std::vector<Exit> reap();
    std::size_t running() const;
    /// SIGKILLs every worker still running (they are reaped by reap()).
    void killAll();

    /// "killed by SIGKILL", "exited with status 3", ...
    static std::string describe(int status);

private:
    StartMethod method_;
    std::shared_ptr<ForkServer> server_;
    std::string executable_;
    struct Child {
        std::uint32_t rank;
        pid_t pid;
    };
    std::vector<Child> children_;
};

} // namespace hwl
