// The MPI launchers: rank 0 as a thread of a process mpirun started, or
// mpirun started by this process.
#include "mpi/mpilaunchers.h"

#include "launch/parentdeath.h"
#include "launch/workerargs.h"
#include "mpi/mpirunlog.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hwl {

namespace {

/// Rank 0 here, in a thread; the others are mpirun's.
class MpiRankLauncher final : public Launcher {
public:
    pid_t launch(std::uint32_t rank, const WorkerJob& job) override {
        if (rank != 0)
            return 0; // started by mpirun; its pid arrives with its greeting
        threads_->launch(rank, job);
        return getpid();
    }
    std::vector<Exit> reap() override { return {}; }
    std::size_t running() const override { return threads_->running(); }
    void killAll() override {}
    void join() override { threads_->join(); }
    bool processes() const override { return true; }
    bool relayed(std::uint32_t rank) const override { return rank != 0; }
    bool countsLag(std::uint32_t rank) const override { return rank != 0; }

private:
    std::unique_ptr<Launcher> threads_ = makeThreadLauncher();
};

/// The first `mpirun` on PATH, or empty.
std::string findMpirun() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', at), dirs.size());
        const std::string candidate =
            (end > at ? dirs.substr(at, end - at) : std::string(".")) + "/mpirun";
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
        at = end + 1;
    }
    return {};
}

/// The start of what mpirun wrote to its log (the cause comes first).
std::string mpirunLog(int fd) {
    std::string text(16384, '\0');
    const ssize_t n = pread(fd, text.data(), text.size(), 0);
    text.resize(n > 0 ? std::size_t(n) : 0);
    return text;
}

class MpirunLauncher final : public Launcher {
public:
    explicit MpirunLauncher(MpirunCommand command)
        : command_(std::move(command)), mpirun_(findMpirun()), program_(engineExecutable()) {
        if (mpirun_.empty())
            throw RunError("transport mpi: mpirun is not on PATH; install it (apt-get install "
                           "openmpi-bin) or add its folder to PATH");
        const std::string folder = tempDirectory();
        std::string name = folder + "/hwl-mpirun-XXXXXX.log";
        log_ = mkostemps(name.data(), 4, O_CLOEXEC);
        if (log_ < 0)
            throw RunError("transport mpi: cannot create mpirun's log in " + folder + ": " +
                           std::strerror(errno) + " (set TMPDIR to a writable folder)");
        logPath_ = name; // removed at the end unless mpirun failed
    }
    ~MpirunLauncher() override {
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGTERM);
            for (int i = 0; i < 300 && waitpid(pid_, nullptr, WNOHANG) == 0; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        close(log_);
        if (!keepLog_)
            unlink(logPath_.c_str());
    }

    pid_t launch(std::uint32_t rank, const WorkerJob& job) override;
    std::vector<Exit> reap() override {
        int status = 0;
        if (pid_ <= 0 || reaped_ || waitpid(pid_, &status, WNOHANG) != pid_)
            return {};
        reaped_ = true;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            return {{0, pid_, status, "mpirun (pid " + std::to_string(pid_) + ")"}};
        keepLog_ = true; // the run decides: reported, or removed
        const std::string text = mpirunLog(log_);
        const auto [rank, rankStatus] = firstRankDown(text);
        return {{0, pid_, status, "mpirun (pid " + std::to_string(pid_) + ")", mpirunWords(text),
                 logPath_, rank, rankStatus}};
    }
    std::size_t running() const override { return pid_ > 0 && !reaped_ ? 1 : 0; }
    void killAll() override {
        // SIGTERM first: mpirun then ends every rank, on every host.
        if (pid_ <= 0 || reaped_)
            return;
        const auto now = std::chrono::steady_clock::now();
        if (!terminated_) {
            terminated_ = true;
            terminatedAt_ = now;
            kill(pid_, SIGTERM);
        } else if (now - terminatedAt_ > std::chrono::seconds(3)) {
            kill(pid_, SIGKILL);
        }
    }
    bool processes() const override { return true; }
    bool relayed(std::uint32_t rank) const override { return rank != 0; }
    bool countsLag(std::uint32_t rank) const override { return rank != 0; }

private:
    MpirunCommand command_;
    std::string mpirun_, program_;
    int log_ = -1;
    std::string logPath_;
    pid_t pid_ = 0;
    bool reaped_ = false, terminated_ = false, keepLog_ = false;
    std::chrono::steady_clock::time_point terminatedAt_;
};

pid_t MpirunLauncher::launch(std::uint32_t rank, const WorkerJob& job) {
    if (rank != 0)
        return 0; // mpirun starts it
    std::vector<std::string> strings{mpirun_};
    for (const auto& [arg, why] : automaticMpirunArgs(command_))
        strings.push_back(arg);
    strings.insert(strings.end(), {"-np", std::to_string(command_.ranks)});
    if (!command_.hostfile.empty())
        strings.insert(strings.end(), {"--hostfile", command_.hostfile});
    strings.insert(strings.end(), command_.extraArgs.begin(), command_.extraArgs.end());
    strings.push_back(program_);
    strings.insert(strings.end(), job.roleArgs.begin(), job.roleArgs.end());
    const std::vector<char*> argv = execArgv(strings);
    // mpirun ends its job when this process dies (SIGTERM); it has a process
    // group of its own, so Ctrl-C in a terminal reaches the run (which stops
    // every rank at one step), not mpirun (which would kill them).
    const pid_t pid = forkTiedChild(SIGTERM);
    if (pid == 0) {
        setpgid(0, 0);
        dup2(log_, STDOUT_FILENO);
        dup2(log_, STDERR_FILENO);
        execv(mpirun_.c_str(), argv.data());
        _exit(127);
    }
    pid_ = pid;
    return pid;
}

} // namespace

std::unique_ptr<Launcher> makeMpiRankLauncher() {
    return std::make_unique<MpiRankLauncher>();
}

std::unique_ptr<Launcher> makeMpirunLauncher(MpirunCommand command) {
    return std::make_unique<MpirunLauncher>(std::move(command));
}

std::vector<std::pair<std::string, std::string>> automaticMpirunArgs(const MpirunCommand& command) {
    std::vector<std::pair<std::string, std::string>> args;
    if (geteuid() == 0)
        args.emplace_back("--allow-run-as-root", "this app runs as root, which mpirun refuses "
                                                 "without it");
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (command.hostfile.empty() && cores > 0 && long(command.ranks) > cores)
        args.emplace_back("--oversubscribe", std::to_string(command.ranks) + " ranks on " +
                                                 std::to_string(cores) + " cores of this machine");
    return args;
}

std::vector<std::string> splitMpirunArgs(const std::string& text, std::string& error) {
    error.clear();
    std::vector<std::string> args;
    std::string current;
    for (const char c : text + " ") {
        if (c == '"' || c == '\'' || c == '\\') {
            error = "quotes and backslashes are not supported: separate mpirun's arguments by "
                    "spaces";
            return {};
        }
        if (c == ' ' || c == '\t') {
            if (!current.empty())
                args.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    // What the app sets itself, from the experiment.
    const struct {
        const char* flag;
        const char* from;
    } own[] = {{"-np", "--workers"},
               {"-n", "--workers"},
               {"--np", "--workers"},
               {"-c", "--workers"},
               {"--hostfile", "--hostfile"},
               {"-hostfile", "--hostfile"},
               {"--machinefile", "--hostfile"},
               {"-machinefile", "--hostfile"}};
    for (const auto& a : args)
        for (const auto& o : own)
            if (a == o.flag) {
                error.assign(o.flag).append(" is set by hogwild-lab: use ").append(o.from);
                return {};
            }
    return args;
}

} // namespace hwl
