#pragma once
// ForkServer: the "forkserver" start method for worker processes (as in
// Python's multiprocessing).
//
// start() forks a small, single-threaded server process EARLY, while the
// program is still single-threaded (before any thread, GUI or CUDA state
// exists). Later, launch() asks that server over a Unix socket to fork a
// worker; the worker is a copy of the clean server, not of the (by then
// multi-threaded) parent, and runs the Entry given to start().
//
// Protocol (socketpair(AF_UNIX, SOCK_SEQPACKET), so messages keep their
// boundaries):
//   parent -> server  'L', a 32-bit sequence number, then every argument
//                     followed by '\0' (the arguments joined with '\0', plus a
//                     terminator so that an empty last argument survives).
//   server -> parent  'R'              set up and ready (once, first)
//                     'P' seq pid      the worker for request seq was forked
//                     'E' seq text     fork failed; text says why
//                     'X' pid status   a worker exited (status as waitpid())
// A launch reply for a worker is always sent before that worker's exit report.
//
// Process tree and lifetime:
//   parent --PDEATHSIG--> server --PDEATHSIG--> workers
// Each child asks the kernel (prctl(PR_SET_PDEATHSIG)) for a signal when its
// parent dies: the server gets SIGKILL, so it dies with the parent, and the
// workers kParentDeathSignal, on which a worker (workerProcessMain) unlinks
// the run's segments and exits, so the workers die with the server. PR_SET_PDEATHSIG fires when the
// *thread* that forked the child exits, so call start() from the main thread (or another thread
// that lives as long as the process). When the server reads EOF on its socket (the ForkServer was
// destroyed, or the parent died) it SIGKILLs and reaps every worker still running, then exits.
//
// The server closes every file descriptor it inherited except stdin, stdout,
// stderr and its own socket end (so a second ForkServer's server does not
// hold the first one's socket open); workers start with only stdin, stdout
// and stderr open. Signal dispositions in a worker are all SIG_DFL and its
// signal mask is the one the parent had at start(). The server ignores
// SIGINT (a Ctrl-C in the terminal reaches the parent and the workers; the
// parent decides what happens).
//
// Threading and ownership: a ForkServer is not thread-safe; use each object
// from one thread at a time. It owns the server process (its pid is a child
// of this process: do not reap it elsewhere, e.g. with waitpid(-1)) and the
// parent's socket end (close-on-exec). Processes forked from the parent
// without exec inherit that socket end too; the server sees EOF only once
// every copy is closed.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace hwl {

class ForkServer {
public:
    /// Runs in each worker child; its return value is the child's exit code.
    using Entry = int (*)(const std::vector<std::string>& args);

    /// Exit code of a worker whose entry lets an exception escape.
    static constexpr int kUncaughtExceptionExitCode = 70;
    /// How long launch() waits for the server's reply.
    static constexpr int kLaunchTimeoutMs = 5000;
    /// Largest request: the arguments, each plus one byte, plus 5 bytes.
    static constexpr std::size_t kMaxRequestBytes = 64 * 1024;

    /// Forks the server now (call while the process is single-threaded; the
    /// server never starts threads) and waits (at most 5 s) until it reports
    /// that it is set up. Flushes stdio first so buffered output is not written
    /// again by the workers. Throws RunError on failure.
    static std::unique_ptr<ForkServer> start(Entry entry);

    ForkServer(const ForkServer&) = delete;
    ForkServer& operator=(const ForkServer&) = delete;
    /// Closes the socket: the server kills (SIGKILL) any worker still running,
    /// reaps it, and exits; the destructor reaps the server. Never hangs: a
    /// server that has not exited within a few seconds (stopped, stuck) is
    /// SIGKILLed, and its workers die with it.
    ~ForkServer();

    pid_t serverPid() const { return pid_; }

    /// Asks the server to fork a worker that runs entry(args) and then
    /// _exit()s with its result (an exception escaping entry -> exit code 70;
    /// stdout and stderr are flushed first). Returns the worker's pid. Exit
    /// reports that arrive while waiting are kept for pollExits(). Throws
    /// RunError naming the cause if the server is gone, fork failed in the
    /// server, the server does not answer within 5 s, an argument contains a
    /// '\0' byte, or the request exceeds kMaxRequestBytes.
    /// After a timeout the server may still fork that worker later; its pid is
    /// then never returned, but its exit is reported like any other.
    pid_t launch(const std::vector<std::string>& args);

    struct Exit {
        pid_t pid;
        int status; ///< status as waitpid() reports it
    };
    /// Worker exits the server has reported since the last call, oldest
    /// first; never blocks. Workers still running when the server dies are
    /// killed with it and never reported.
    std::vector<Exit> pollExits();

    /// A file descriptor that becomes readable when the server has something
    /// to say (for poll(); POLLIN), then call pollExits(). Exits that launch()
    /// received while waiting for its reply are buffered and do not make the
    /// fd readable: call pollExits() after launch() too. Once the server is
    /// gone the fd stays readable (EOF); stop polling when alive() is false.
    int notifyFd() const { return fd_; }

    /// False once the server process has died (reaps it when it has).
    bool alive();

private:
    ForkServer(int fd, pid_t pid) : fd_(fd), pid_(pid) {}
    /// Reads every queued message without blocking; returns the pid of the
    /// 'P' reply for `seq` (or throws for its 'E' reply), 0 if not there yet.
    /// Marks eof_ when the server closed its end.
    pid_t drain(std::uint32_t seq);
    /// Reaps the server if it has exited (waiting up to `waitMs` for it).
    void tryReap(int waitMs);
    [[noreturn]] void throwGone(const std::string& what);

    int fd_ = -1;
    pid_t pid_ = -1;
    std::uint32_t nextSeq_ = 1;
    bool eof_ = false;
    bool reaped_ = false;
    bool statusKnown_ = false; ///< false when someone else reaped the server
    int serverStatus_ = 0;
    std::vector<Exit> pending_;
};

} // namespace hwl
