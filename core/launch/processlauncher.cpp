// The process launchers: fork, spawn (fork + exec of this program in the
// worker role) and forkserver (a request to the early fork server).
#include "launch/forkserver.h"
#include "launch/launcher.h"
#include "launch/parentdeath.h"
#include "launch/workerargs.h"
#include "util/errors.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <sys/wait.h>
#include <unistd.h>

namespace hwl {

namespace {

/// What every process launcher keeps: the worker processes still running.
class WorkerProcesses : public Launcher {
public:
    std::size_t running() const override { return children_.size(); }
    void killAll() override {
        for (const auto& c : children_)
            kill(c.pid, SIGKILL);
    }
    bool processes() const override { return true; }

protected:
    struct Child {
        std::uint32_t rank;
        pid_t pid;
    };
    void add(std::uint32_t rank, pid_t pid) { children_.push_back({rank, pid}); }
    /// Moves worker `pid`'s end into `exits`; false when it is not ours.
    bool take(pid_t pid, int status, std::vector<Exit>& exits) {
        for (auto it = children_.begin(); it != children_.end(); ++it)
            if (it->pid == pid) {
                exits.push_back({it->rank, pid, status});
                children_.erase(it);
                return true;
            }
        return false;
    }
    std::vector<Child> children_;
};

/// Children of this process, reaped with waitpid().
class ChildLauncher : public WorkerProcesses {
public:
    ~ChildLauncher() override {
        killAll();
        for (const auto& c : children_)
            waitpid(c.pid, nullptr, 0);
    }
    std::vector<Exit> reap() override {
        std::vector<Exit> exits;
        for (std::size_t i = 0; i < children_.size();) {
            int status = 0;
            const pid_t pid = children_[i].pid;
            if (waitpid(pid, &status, WNOHANG) != pid || !take(pid, status, exits))
                ++i;
        }
        return exits;
    }

protected:
    /// Forks a worker child that runs `inChild` (which never returns).
    template <class InChild>
    pid_t forkChild(std::uint32_t rank, InChild&& inChild) {
        // The worker dies with the parent, even if it is already gone, and
        // unlinks the run's segments on its way; the group's Ctrl-C is the
        // parent's to act on (stop after the step).
        const pid_t pid = forkTiedChild(kParentDeathSignal);
        if (pid == 0) {
            ignoreGroupSignals();
            onParentDeathUnlinkSegments();
            inChild();
        }
        add(rank, pid);
        return pid;
    }
};

class ForkLauncher final : public ChildLauncher {
public:
    pid_t launch(std::uint32_t rank, const WorkerJob& job) override {
        return forkChild(rank, [&job]() {
            int code = 70;
            try {
                code = job.body();
            } catch (...) {
            }
            std::fflush(nullptr);
            _exit(code);
        });
    }
};

class SpawnLauncher final : public ChildLauncher {
public:
    SpawnLauncher() : executable_(engineExecutable()) {}
    pid_t launch(std::uint32_t rank, const WorkerJob& job) override {
        // Everything the child needs is prepared before fork(): after it, a
        // child of a multi-threaded process may only call async-signal-safe
        // functions until exec.
        std::vector<std::string> strings{executable_};
        strings.insert(strings.end(), job.roleArgs.begin(), job.roleArgs.end());
        const std::vector<char*> argv = execArgv(strings);
        return forkChild(rank, [&] {
            execv(executable_.c_str(), argv.data());
            _exit(127);
        });
    }

private:
    std::string executable_;
};

class ForkserverLauncher final : public WorkerProcesses {
public:
    explicit ForkserverLauncher(std::shared_ptr<ForkServer> server) : server_(std::move(server)) {
        if (!server_)
            throw RunError("forkserver: no fork server was started");
    }
    ~ForkserverLauncher() override { killAll(); }
    pid_t launch(std::uint32_t rank, const WorkerJob& job) override {
        const pid_t pid = server_->launch(job.roleArgs);
        add(rank, pid);
        return pid;
    }
    std::vector<Exit> reap() override {
        std::vector<Exit> exits;
        for (const auto& e : server_->pollExits())
            take(e.pid, e.status, exits);
        if (!server_->alive()) // the server died: its workers died with it
            while (!children_.empty())
                take(children_.front().pid, SIGKILL, exits);
        return exits;
    }

private:
    std::shared_ptr<ForkServer> server_;
};

} // namespace

std::unique_ptr<Launcher> makeProcessLauncher(StartMethod method,
                                              std::shared_ptr<ForkServer> server) {
    switch (method) {
    case StartMethod::Fork:
        return std::make_unique<ForkLauncher>();
    case StartMethod::Spawn:
        return std::make_unique<SpawnLauncher>();
    case StartMethod::Forkserver:
        break;
    }
    return std::make_unique<ForkserverLauncher>(std::move(server));
}

} // namespace hwl
