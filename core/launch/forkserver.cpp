#include "launch/forkserver.h"

#include "launch/parentdeath.h"
#include "launch/waitstatus.h"
#include "util/errors.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace hwl {

namespace {

constexpr char kLaunch = 'L';
constexpr char kPid = 'P';
constexpr char kError = 'E';
constexpr char kExit = 'X';
constexpr char kReady = 'R';
/// Kind byte + two 32-bit fields.
constexpr std::size_t kReplyBytes = 9;
/// Kind byte + sequence number.
constexpr std::size_t kRequestHeader = 5;

void put32(char* at, std::uint32_t v) {
    std::memcpy(at, &v, sizeof v);
}
std::uint32_t get32(const char* at) {
    std::uint32_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
}

void sleepMicroseconds(long us) {
    timespec ts{us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

// ---------------------------------------------------------------------------
// The server process. Everything below runs in a forked child and must never
// return into the caller's code or run its exit handlers: every path ends in
// _exit().

/// Sends one message (blocking); false when the parent is gone.
bool serverSend(int sock, const char* data, std::size_t size) {
    for (;;) {
        if (::send(sock, data, size, MSG_NOSIGNAL) >= 0)
            return true;
        if (errno != EINTR)
            return false;
    }
}

/// Closes every descriptor except 0, 1, 2 and `keep`.
void closeInheritedFds(int keep) {
    const unsigned k = static_cast<unsigned>(keep);
    bool ok = true;
    if (k > 3)
        ok = ::close_range(3, k - 1, 0) == 0;
    if (ok)
        ok = ::close_range(std::max(3u, k + 1), ~0u, 0) == 0;
    if (ok)
        return;
    // Kernel without close_range (before 5.9): close one by one.
    long maxFd = sysconf(_SC_OPEN_MAX);
    if (maxFd < 0 || maxFd > (1L << 20))
        maxFd = 1L << 20;
    for (long fd = 3; fd < maxFd; ++fd)
        if (fd != keep)
            ::close(static_cast<int>(fd));
}

/// Runs in the worker child: clean up the server's state, run the entry.
[[noreturn]] void runWorker(int sock, int sigFd, pid_t serverPid, const sigset_t& parentMask,
                            const char* payload, std::size_t size, ForkServer::Entry entry) {
    ::close(sock);
    ::close(sigFd);
    tieToParent(serverPid, kParentDeathSignal); // the entry catches it (workerProcessMain)
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP)
            ::sigaction(sig, &dfl, nullptr); // fails harmlessly for glibc's reserved signals
    ::sigprocmask(SIG_SETMASK, &parentMask, nullptr);

    int code = ForkServer::kUncaughtExceptionExitCode;
    try {
        std::vector<std::string> args;
        const char* p = payload;
        const char* end = payload + size;
        while (p < end) {
            const void* nul = std::memchr(p, '\0', static_cast<std::size_t>(end - p));
            const char* stop = nul ? static_cast<const char*>(nul) : end;
            args.emplace_back(p, stop);
            p = stop + 1;
        }
        code = entry(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hwl worker %d: uncaught exception: %s\n", static_cast<int>(getpid()),
                     e.what());
    } catch (...) {
        std::fprintf(stderr, "hwl worker %d: uncaught exception of unknown type\n",
                     static_cast<int>(getpid()));
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

/// SIGKILLs and reaps every worker still running, then exits.
[[noreturn]] void shutDownServer(const std::vector<pid_t>& workers) {
    for (pid_t pid : workers)
        ::kill(pid, SIGKILL);
    for (pid_t pid : workers)
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    _exit(0);
}

/// Reaps every exited worker and reports it; false when the parent is gone.
bool reapWorkers(int sock, std::vector<pid_t>& workers) {
    for (;;) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return true; // none left to reap (0) or no children (ECHILD)
        workers.erase(std::remove(workers.begin(), workers.end(), pid), workers.end());
        char msg[kReplyBytes];
        msg[0] = kExit;
        put32(msg + 1, static_cast<std::uint32_t>(pid));
        put32(msg + 5, static_cast<std::uint32_t>(status));
        if (!serverSend(sock, msg, sizeof msg))
            return false;
    }
}

void sendError(int sock, std::uint32_t seq, const std::string& text) {
    std::string msg(kRequestHeader, '\0');
    msg[0] = kError;
    put32(msg.data() + 1, seq);
    msg += text.substr(0, 400);
    serverSend(sock, msg.data(), msg.size());
}

/// What the server loop keeps between requests.
struct ServerState {
    int sock;
    int sigFd;                  // SIGCHLD, as a descriptor to poll
    pid_t self;                 // the server's pid, for the workers' PDEATHSIG check
    sigset_t parentMask;        // the mask workers get back
    ForkServer::Entry entry;    // what a worker runs
    std::vector<char> buf;      // the only buffer; never grows
    std::vector<pid_t> workers; // live workers only
};

/// Default SIGCHLD handling (so that workers stay ours to reap), delivered
/// through a signalfd; the group's signals ignored (ignoreGroupSignals). Returns the signalfd;
/// exits when it cannot be made. `parentMask` receives the mask from before, for workers.
int routeSignals(sigset_t& parentMask) {
    ::sigprocmask(SIG_SETMASK, nullptr, &parentMask);
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_DFL; // SIG_IGN (inherited) would make the kernel reap workers itself
    ::sigaction(SIGCHLD, &sa, nullptr);
    ignoreGroupSignals();
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &chld, nullptr);
    const int sigFd = ::signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sigFd < 0)
        _exit(1);
    return sigFd;
}

/// Forks the worker of the launch request `seq` (its arguments are the
/// `size` bytes in s.buf after the header) and replies with its pid.
void launchWorker(ServerState& s, std::uint32_t seq, std::size_t size) {
    const pid_t pid = ::fork();
    if (pid == 0)
        runWorker(s.sock, s.sigFd, s.self, s.parentMask, s.buf.data() + kRequestHeader,
                  size - kRequestHeader, s.entry);
    if (pid < 0) {
        sendError(s.sock, seq, "fork failed: " + startFailureText(errno));
        return;
    }
    s.workers.push_back(pid);
    char reply[kReplyBytes];
    reply[0] = kPid;
    put32(reply + 1, seq);
    put32(reply + 5, static_cast<std::uint32_t>(pid));
    if (!serverSend(s.sock, reply, sizeof reply))
        shutDownServer(s.workers);
}

/// Reads one message from the parent and serves it; shuts the server down
/// when the parent is gone.
void serveRequest(ServerState& s) {
    iovec iov{s.buf.data(), s.buf.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    const ssize_t n = ::recvmsg(s.sock, &msg, MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        shutDownServer(s.workers); // ECONNRESET and the like: the parent is gone
    }
    if (n == 0) // EOF (requests are never empty): the parent closed its end or died
        shutDownServer(s.workers);
    const auto size = static_cast<std::size_t>(n);
    if (size < kRequestHeader || s.buf[0] != kLaunch)
        return; // not a request; the parent never sends these
    const std::uint32_t seq = get32(s.buf.data() + 1);
    if (msg.msg_flags & MSG_TRUNC) {
        sendError(s.sock, seq,
                  "the launch request is longer than " +
                      std::to_string(ForkServer::kMaxRequestBytes) + " bytes");
        return;
    }
    launchWorker(s, seq, size);
}

[[noreturn]] void serverLoop(int sock, ForkServer::Entry entry) {
    ServerState s{sock, -1, ::getpid(), {}, entry, {}, {}};
    s.sigFd = routeSignals(s.parentMask);
    s.buf.resize(ForkServer::kMaxRequestBytes);
    s.workers.reserve(64);
    if (!serverSend(sock, &kReady, 1))
        _exit(0);

    for (;;) {
        pollfd fds[2] = {{sock, POLLIN, 0}, {s.sigFd, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            shutDownServer(s.workers);
        }
        if (fds[1].revents != 0) {
            signalfd_siginfo info;
            while (::read(s.sigFd, &info, sizeof info) > 0 || errno == EINTR) {
            }
            if (!reapWorkers(sock, s.workers))
                shutDownServer(s.workers);
        }
        if (fds[0].revents == 0)
            continue;
        if (fds[0].revents & POLLNVAL)
            shutDownServer(s.workers);
        serveRequest(s);
    }
}

[[noreturn]] void runServer(int sock, pid_t parentPid, ForkServer::Entry entry) noexcept {
    tieToParent(parentPid, SIGKILL, 0);
    try {
        closeInheritedFds(sock);
        serverLoop(sock, entry);
    } catch (...) {
    }
    _exit(1); // out of memory in the server; the parent sees EOF
}

} // namespace

// ---------------------------------------------------------------------------
// The parent side.

std::unique_ptr<ForkServer> ForkServer::start(Entry entry) {
    if (entry == nullptr)
        throw RunError("cannot start the fork server: no worker entry function");
    std::unique_ptr<ForkServer> server(new ForkServer(-1, -1)); // allocate before forking
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        throw RunError("cannot start the fork server: socketpair failed: " + errnoText(errno));
    std::fflush(nullptr); // buffered output would otherwise be written again by each worker
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        ::close(sv[0]);
        ::close(sv[1]);
        throw RunError("cannot start the fork server: fork failed: " + startFailureText(e));
    }
    if (pid == 0)
        runServer(sv[1], parent, entry);
    ::close(sv[1]);
    server->fd_ = sv[0];
    server->pid_ = pid; // from here on, the destructor cleans up
    const int flags = ::fcntl(sv[0], F_GETFL);
    if (flags < 0 || ::fcntl(sv[0], F_SETFL, flags | O_NONBLOCK) < 0)
        throw RunError("cannot start the fork server: fcntl failed: " + errnoText(errno));

    // Wait until the server has set itself up (closed inherited descriptors,
    // installed its signal handling) and says so.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kLaunchTimeoutMs);
    for (;;) {
        char c = 0;
        const ssize_t n = ::recv(sv[0], &c, 1, MSG_DONTWAIT);
        if (n == 1 && c == kReady)
            return server;
        if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            server->eof_ = true;
        if (n == 0 || server->eof_) {
            server->tryReap(1000);
            throw RunError(
                "cannot start the fork server: it " +
                (server->statusKnown_
                     ? "ended during start-up (" + describeWaitStatus(server->serverStatus_) + ")"
                     : std::string("closed its socket during start-up")));
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0)
            throw RunError("cannot start the fork server (pid " + std::to_string(pid) +
                           "): it did not report ready within " +
                           std::to_string(kLaunchTimeoutMs / 1000) + " s");
        pollfd p{sv[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left) + 1) < 0 && errno != EINTR)
            throw RunError("cannot start the fork server: poll failed: " + errnoText(errno));
    }
}

ForkServer::~ForkServer() {
    if (fd_ >= 0)
        ::close(fd_); // the server reads EOF, kills its workers and exits
    if (pid_ <= 0)
        return;
    tryReap(3000);
    if (!reaped_) { // stopped or stuck: its workers die with it (PDEATHSIG)
        ::kill(pid_, SIGKILL);
        tryReap(10000);
    }
}

void ForkServer::tryReap(int waitMs) {
    if (reaped_ || pid_ <= 0)
        return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(waitMs);
    long delayUs = 100;
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            reaped_ = true;
            statusKnown_ = true;
            serverStatus_ = status;
            return;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) { // ECHILD: someone else reaped it
            reaped_ = true;
            return;
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return;
        sleepMicroseconds(delayUs);
        delayUs = std::min(delayUs * 2, 10000L);
    }
}

bool ForkServer::alive() {
    tryReap(0);
    return !reaped_;
}

void ForkServer::throwGone(const std::string& detail) {
    std::string text =
        "cannot launch a worker: the fork server (pid " + std::to_string(pid_) + ") is gone";
    if (reaped_ && statusKnown_)
        text += " (" + describeWaitStatus(serverStatus_) + "; " + detail + ")";
    else if (reaped_)
        text += " (it was reaped elsewhere) (" + detail + ")";
    else
        text += " (" + detail + ")";
    throw RunError(text);
}

pid_t ForkServer::drain(std::uint32_t seq) {
    char buf[512];
    while (!eof_) {
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                eof_ = true; // ECONNRESET and the like: the server is gone
            break;
        }
        if (n == 0) {
            eof_ = true;
            break;
        }
        const auto size = static_cast<std::size_t>(n);
        if (buf[0] == kExit && size >= kReplyBytes) {
            pending_.push_back(
                {static_cast<pid_t>(get32(buf + 1)), static_cast<int>(get32(buf + 5))});
        } else if (buf[0] == kPid && size >= kReplyBytes) {
            if (get32(buf + 1) == seq)
                return static_cast<pid_t>(get32(buf + 5));
            // else: the late reply to a launch that timed out
        } else if (buf[0] == kError && size >= kRequestHeader && get32(buf + 1) == seq) {
            throw RunError("cannot launch a worker: the fork server (pid " + std::to_string(pid_) +
                           ") could not start it: " +
                           std::string(buf + kRequestHeader, size - kRequestHeader));
        }
    }
    return 0;
}

pid_t ForkServer::launch(const std::vector<std::string>& args) {
    std::size_t size = kRequestHeader;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].find('\0') != std::string::npos)
            throw RunError("cannot launch a worker: argument " + std::to_string(i) +
                           " contains a NUL byte");
        size += args[i].size() + 1;
    }
    if (size > kMaxRequestBytes)
        throw RunError("cannot launch a worker: its arguments take " + std::to_string(size) +
                       " bytes; the limit is " + std::to_string(kMaxRequestBytes));
    if (fd_ < 0)
        throw RunError("cannot launch a worker: the fork server is not running");
    if (eof_) {
        tryReap(1000);
        throwGone("its socket is closed");
    }

    const std::uint32_t seq = nextSeq_++;
    if (nextSeq_ == 0)
        nextSeq_ = 1; // 0 means "no request" to drain()
    std::string request(kRequestHeader, '\0');
    request.reserve(size);
    request[0] = kLaunch;
    put32(request.data() + 1, seq);
    for (const std::string& a : args) {
        request += a;
        request += '\0';
    }

    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kLaunchTimeoutMs);
    bool sent = false;
    for (;;) {
        if (!sent) {
            if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) {
                sent = true; // SOCK_SEQPACKET: the whole message or nothing
            } else if (errno == EINTR) {
                continue;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                const int e = errno;
                tryReap(1000);
                throwGone("sending the request failed: " + errnoText(e));
            }
        }
        // While the send is blocked, read anyway: the server may be blocked
        // sending exit reports.
        if (const pid_t pid = drain(sent ? seq : 0); pid > 0)
            return pid;
        if (eof_) {
            tryReap(1000);
            throwGone("it closed its socket before answering");
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0)
            throw RunError("cannot launch a worker: the fork server (pid " + std::to_string(pid_) +
                           ") did not answer within " + std::to_string(kLaunchTimeoutMs / 1000) +
                           " s (is it stopped or stuck?)");
        pollfd p{fd_, static_cast<short>(POLLIN | (sent ? 0 : POLLOUT)), 0};
        if (::poll(&p, 1, static_cast<int>(left) + 1) < 0 && errno != EINTR)
            throw RunError("cannot launch a worker: poll failed: " + errnoText(errno));
    }
}

std::vector<ForkServer::Exit> ForkServer::pollExits() {
    drain(0);
    return std::exchange(pending_, {});
}

} // namespace hwl
