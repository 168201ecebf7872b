#include "launch/processlauncher.h"

#include "util/errors.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hwl {

namespace {
std::string selfExecutable() {
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        throw RunError(std::string("spawn: cannot find this program through /proc/self/exe: ") +
                       std::strerror(errno));
    path[n] = '\0';
    return path;
}

// In a freshly forked child: die with the parent, even if it is already gone.
// Ctrl-C in a terminal reaches the whole process group; the parent decides
// what it means (stop after the current step), so workers ignore it.
void becomeWorker(pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    signal(SIGINT, SIG_IGN);
}
} // namespace

ProcessLauncher::ProcessLauncher(StartMethod method, std::shared_ptr<ForkServer> server)
    : method_(method), server_(std::move(server)) {
    if (method_ == StartMethod::Spawn)
        executable_ = selfExecutable();
    if (method_ == StartMethod::Forkserver && !server_)
        throw RunError("forkserver: no fork server was started");
}

ProcessLauncher::~ProcessLauncher() {
    killAll();
    for (const auto& c : children_)
        if (method_ != StartMethod::Forkserver)
            waitpid(c.pid, nullptr, 0);
}

pid_t ProcessLauncher::launch(std::uint32_t rank, const std::function<int()>& forkedBody,
                              const std::vector<std::string>& roleArgs) {
    pid_t pid = -1;
    if (method_ == StartMethod::Forkserver) {
        pid = server_->launch(roleArgs);
    } else {
        // Everything the child needs is prepared before fork(): after it, a
        // child of a multi-threaded process may only call async-signal-safe
        // functions until exec (spawn).
        std::vector<std::string> argvStrings;
        std::vector<char*> argv;
        if (method_ == StartMethod::Spawn) {
            argvStrings.push_back(executable_);
            argvStrings.insert(argvStrings.end(), roleArgs.begin(), roleArgs.end());
            for (auto& a : argvStrings)
                argv.push_back(a.data());
            argv.push_back(nullptr);
        }
        const pid_t parent = getpid();
        std::fflush(nullptr);
        pid = fork();
        if (pid < 0)
            throw RunError(std::string("cannot start worker ") + std::to_string(rank) +
                           ": fork failed: " + startFailureText(errno));
        if (pid == 0) {
            becomeWorker(parent);
            if (method_ == StartMethod::Spawn) {
                execv(executable_.c_str(), argv.data());
                _exit(127);
            }
            int code = 70;
            try {
                code = forkedBody();
            } catch (...) {
            }
            std::fflush(nullptr);
            _exit(code);
        }
    }
    children_.push_back({rank, pid});
    return pid;
}

std::vector<ProcessLauncher::Exit> ProcessLauncher::reap() {
    std::vector<Exit> exits;
    auto take = [&](pid_t pid, int status) {
        for (auto it = children_.begin(); it != children_.end(); ++it)
            if (it->pid == pid) {
                exits.push_back({it->rank, pid, status});
                children_.erase(it);
                return;
            }
    };
    if (method_ == StartMethod::Forkserver) {
        for (const auto& e : server_->pollExits())
            take(e.pid, e.status);
        if (!server_->alive()) // the server died: its workers died with it
            while (!children_.empty())
                take(children_.front().pid, SIGKILL);
        return exits;
    }
    for (std::size_t i = 0; i < children_.size();) {
        int status = 0;
        const pid_t r = waitpid(children_[i].pid, &status, WNOHANG);
        if (r == children_[i].pid)
            take(r, status);
        else
            ++i;
    }
    return exits;
}

std::size_t ProcessLauncher::running() const {
    return children_.size();
}

void ProcessLauncher::killAll() {
    for (const auto& c : children_)
        kill(c.pid, SIGKILL);
}

std::string ProcessLauncher::describe(int status) {
    if (WIFSIGNALED(status)) {
        const char* abbrev = sigabbrev_np(WTERMSIG(status));
        return std::string("killed by ") + (abbrev ? "SIG" + std::string(abbrev)
                                                   : "signal " + std::to_string(WTERMSIG(status)));
    }
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 127)
            return "could not execute the worker program (exit status 127)";
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "ended (status " + std::to_string(status) + ")";
}

} // namespace hwl
