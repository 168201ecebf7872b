// The fork server: exit reporting, argument transport, concurrency, signals,
// lifetime (destruction, parent death, server death) and resource hygiene.
#include "launch/forkserver.h"
#include "testutil.h"
#include "util/errors.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hwl;

namespace {

// ---- Worker entries (they run in the forked worker process) ----------------

/// args[0] picks the behaviour:
///   exit N            return N
///   sleep MS [N]      sleep MS milliseconds, return N (default 0)
///   write PATH ARGS.. write every argument after PATH to PATH, each followed by '\0'
///   throw             throw std::runtime_error
int testEntry(const std::vector<std::string>& args) {
    if (args.empty())
        return 100;
    const std::string& cmd = args[0];
    if (cmd == "exit" && args.size() == 2)
        return std::stoi(args[1]);
    if (cmd == "sleep" && args.size() >= 2) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::stol(args[1])));
        return args.size() >= 3 ? std::stoi(args[2]) : 0;
    }
    if (cmd == "write" && args.size() >= 2) {
        std::ofstream out(args[1], std::ios::binary);
        for (std::size_t i = 2; i < args.size(); ++i)
            out << args[i] << '\0';
        return out.good() ? 0 : 101;
    }
    if (cmd == "throw")
        throw std::runtime_error("test entry throws on purpose");
    return 102;
}

// ---- Helpers ---------------------------------------------------------------

/// Waits for `pid`'s exit report (polling notifyFd), keeping other reports in
/// `others`. Returns its wait status, or nothing after 10 s.
std::optional<int> waitExit(ForkServer& server, pid_t pid, std::map<pid_t, int>& others,
                            int timeoutMs = 10000) {
    QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        for (const ForkServer::Exit& e : server.pollExits())
            others[e.pid] = e.status;
        if (auto it = others.find(pid); it != others.end()) {
            const int status = it->second;
            others.erase(it);
            return status;
        }
        if (deadline.hasExpired())
            return std::nullopt;
        pollfd p{server.notifyFd(), POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(std::min<qint64>(deadline.remainingTime(), 100)));
    }
}

std::optional<int> waitExit(ForkServer& server, pid_t pid) {
    std::map<pid_t, int> others;
    return waitExit(server, pid, others);
}

/// One line of /proc/<pid>/stat: the state letter and the parent pid.
bool procStat(pid_t pid, char& state, pid_t& ppid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line))
        return false;
    const auto close = line.rfind(')'); // the command name may contain spaces and ')'
    if (close == std::string::npos || close + 4 > line.size())
        return false;
    state = line[close + 2];
    ppid = static_cast<pid_t>(std::stol(line.substr(close + 4)));
    return true;
}

/// True when the process no longer exists or is a zombie (dead, not yet
/// reaped by whoever adopted it).
bool gone(pid_t pid) {
    if (::kill(pid, 0) == -1 && errno == ESRCH)
        return true;
    char state = 0;
    pid_t ppid = 0;
    if (!procStat(pid, state, ppid))
        return true;
    return state == 'Z' || state == 'X';
}

int countFds(pid_t pid) {
    std::error_code ec;
    int n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return ec ? -1 : n;
}

/// Zombie children of `parent` (scans /proc).
int countZombieChildren(pid_t parent) {
    int n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        char state = 0;
        pid_t ppid = 0;
        if (procStat(static_cast<pid_t>(std::stol(name)), state, ppid) && ppid == parent &&
            state == 'Z')
            ++n;
    }
    return n;
}

/// The targets of /proc/<pid>/fd/* ("socket:[123]", "/dev/null", ...).
QStringList fdTargets(pid_t pid) {
    QStringList out;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        std::error_code ec2;
        out << QString::fromStdString(std::filesystem::read_symlink(it->path(), ec2).string());
    }
    return out;
}

bool readFull(int fd, void* data, std::size_t size, int timeoutMs) {
    auto* p = static_cast<char*>(data);
    QDeadlineTimer deadline(timeoutMs);
    while (size > 0) {
        pollfd pfd{fd, POLLIN, 0};
        const int r = ::poll(&pfd, 1, static_cast<int>(deadline.remainingTime()));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

class TestForkServer : public QObject {
    Q_OBJECT

private slots:
    void exitCodeIsReported() {
        auto server = ForkServer::start(testEntry);
        QVERIFY(server->alive());
        QVERIFY(server->serverPid() > 0);
        const pid_t pid = server->launch({"exit", "3"});
        QVERIFY(pid > 0);
        QVERIFY(pid != server->serverPid());
        std::vector<ForkServer::Exit> seen;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const auto& e : server->pollExits())
                    seen.push_back(e);
                return !seen.empty();
            }(),
            10000);
        QCOMPARE(seen.size(), std::size_t(1));
        QCOMPARE(seen[0].pid, pid);
        QVERIFY(WIFEXITED(seen[0].status));
        QCOMPARE(WEXITSTATUS(seen[0].status), 3);
        QVERIFY(server->pollExits().empty());
    }

    void argumentsArriveIntact() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("args.bin").toStdString();
        const std::vector<std::string> payload = {
            "",        "with space", "  two  spaces ",       "", "tab\there", "new\nline",
            "ünïcødé", "-x",         std::string(5000, 'a'), ""};
        std::vector<std::string> args = {"write", path};
        args.insert(args.end(), payload.begin(), payload.end());

        auto server = ForkServer::start(testEntry);
        const pid_t pid = server->launch(args);
        const auto status = waitExit(*server, pid);
        QVERIFY(status.has_value());
        QVERIFY(WIFEXITED(*status));
        QCOMPARE(WEXITSTATUS(*status), 0);

        std::string expected;
        for (const auto& a : payload) {
            expected += a;
            expected += '\0';
        }
        const QByteArray written = hwl::test::readBytes(path);
        QCOMPARE(written, QByteArray(expected.data(), qsizetype(expected.size())));

        // Zero arguments reach the entry as an empty vector (it returns 100).
        const pid_t none = server->launch({});
        const auto noneStatus = waitExit(*server, none);
        QVERIFY(noneStatus.has_value());
        QVERIFY(WIFEXITED(*noneStatus));
        QCOMPARE(WEXITSTATUS(*noneStatus), 100);
    }

    void badArgumentsAreRejected() {
        auto server = ForkServer::start(testEntry);
        HWL_VERIFY_THROWS(server->launch({"exit", std::string("a\0b", 3)}), RunError,
                          "argument 1 contains a NUL byte");
        HWL_VERIFY_THROWS(server->launch({std::string(ForkServer::kMaxRequestBytes, 'x')}),
                          RunError, "the limit is");
        // The server is still usable.
        const pid_t pid = server->launch({"exit", "4"});
        const auto status = waitExit(*server, pid);
        QVERIFY(status.has_value());
        QCOMPARE(WEXITSTATUS(*status), 4);
    }

    void concurrentWorkersAllReport() {
        auto server = ForkServer::start(testEntry);
        std::map<pid_t, int> expected;
        for (int i = 0; i < 4; ++i) {
            const pid_t pid = server->launch({"sleep", "300", std::to_string(10 + i)});
            QVERIFY(pid > 0);
            QVERIFY(!expected.count(pid));
            expected[pid] = 10 + i;
        }
        std::map<pid_t, int> seen;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const auto& e : server->pollExits())
                    seen[e.pid] = e.status;
                return seen.size() >= expected.size();
            }(),
            10000);
        QCOMPARE(seen.size(), expected.size());
        for (const auto& [pid, code] : expected) {
            QVERIFY(seen.count(pid));
            QVERIFY(WIFEXITED(seen[pid]));
            QCOMPARE(WEXITSTATUS(seen[pid]), code);
        }
    }

    void killedWorkerReportsSignal() {
        auto server = ForkServer::start(testEntry);
        const pid_t pid = server->launch({"sleep", "60000"});
        QCOMPARE(::kill(pid, SIGKILL), 0);
        const auto status = waitExit(*server, pid);
        QVERIFY(status.has_value());
        QVERIFY(WIFSIGNALED(*status));
        QCOMPARE(WTERMSIG(*status), SIGKILL);
    }

    void throwingEntryExits70() {
        auto server = ForkServer::start(testEntry);
        const pid_t pid = server->launch({"throw"});
        const auto status = waitExit(*server, pid);
        QVERIFY(status.has_value());
        QVERIFY(WIFEXITED(*status));
        QCOMPARE(WEXITSTATUS(*status), 70);
        QCOMPARE(ForkServer::kUncaughtExceptionExitCode, 70);
    }

    void destroyingKillsRunningWorkers() {
        auto server = ForkServer::start(testEntry);
        const pid_t serverPid = server->serverPid();
        const pid_t worker = server->launch({"sleep", "60000"});
        QVERIFY(!gone(worker));
        server.reset();
        QTRY_VERIFY_WITH_TIMEOUT(gone(worker), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(gone(serverPid), 10000);
        // The destructor reaped the server: no zombie is left behind.
        QVERIFY(::kill(serverPid, 0) == -1 && errno == ESRCH);
    }

    void parentDeathKillsServerAndWorkers() {
        int fds[2];
        QCOMPARE(::pipe2(fds, O_CLOEXEC), 0);
        std::fflush(nullptr);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            ::close(fds[0]);
            pid_t pids[2] = {0, 0};
            try {
                auto server = ForkServer::start(testEntry);
                pids[0] = server->serverPid();
                pids[1] = server->launch({"sleep", "60000"});
                if (::write(fds[1], pids, sizeof pids) != sizeof pids)
                    _exit(2);
                for (;;)
                    ::pause(); // until the test kills this process
            } catch (...) {
                _exit(3);
            }
        }
        ::close(fds[1]);
        pid_t pids[2] = {0, 0};
        const bool got = readFull(fds[0], pids, sizeof pids, 10000);
        ::close(fds[0]);
        ::kill(child, SIGKILL);
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        QVERIFY2(got, "the child did not report its server and worker pids");
        QVERIFY(pids[0] > 0 && pids[1] > 0);
        QTRY_VERIFY_WITH_TIMEOUT(gone(pids[0]), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(gone(pids[1]), 10000);
    }

    void launchAfterServerKilledThrows() {
        auto server = ForkServer::start(testEntry);
        const pid_t serverPid = server->serverPid();
        const std::string who = "fork server (pid " + std::to_string(serverPid) + ")";
        QCOMPARE(::kill(serverPid, SIGKILL), 0);
        HWL_VERIFY_THROWS(server->launch({"exit", "0"}), RunError, who + " is gone");
        QTRY_VERIFY_WITH_TIMEOUT(!server->alive(), 10000);
        HWL_VERIFY_THROWS(server->launch({"exit", "0"}), RunError, "killed by SIGKILL");
        QVERIFY(server->pollExits().empty());
        server.reset(); // must not hang or throw
    }

    void stoppedServerTimesOutAndDestructorDoesNotHang() {
        auto server = ForkServer::start(testEntry);
        const pid_t serverPid = server->serverPid();
        const pid_t worker = server->launch({"sleep", "60000"});
        QCOMPARE(::kill(serverPid, SIGSTOP), 0);
        HWL_VERIFY_THROWS(server->launch({"exit", "0"}), RunError, "did not answer within 5 s");
        server.reset(); // SIGKILLs the stopped server after a grace period
        QVERIFY(::kill(serverPid, 0) == -1 && errno == ESRCH);
        QTRY_VERIFY_WITH_TIMEOUT(gone(worker), 10000);
    }

    void twoServersAtOnce() {
        auto a = ForkServer::start(testEntry);
        auto b = ForkServer::start(testEntry);
        QVERIFY(a->serverPid() != b->serverPid());
        // b's server must not hold a's socket (or a would never see EOF).
        struct stat st {};
        QCOMPARE(::fstat(a->notifyFd(), &st), 0);
        const QString aSocket = QStringLiteral("socket:[%1]").arg(qulonglong(st.st_ino));
        QVERIFY2(!fdTargets(b->serverPid()).contains(aSocket),
                 qPrintable(fdTargets(b->serverPid()).join(' ')));
        QCOMPARE(countFds(a->serverPid()), countFds(b->serverPid()));

        const pid_t wa = a->launch({"exit", "5"});
        const pid_t wb = b->launch({"exit", "6"});
        const auto sa = waitExit(*a, wa);
        const auto sb = waitExit(*b, wb);
        QVERIFY(sa && sb);
        QCOMPARE(WEXITSTATUS(*sa), 5);
        QCOMPARE(WEXITSTATUS(*sb), 6);

        // Destroying a leaves b working.
        const pid_t sleeper = a->launch({"sleep", "60000"});
        const pid_t aPid = a->serverPid();
        a.reset();
        QVERIFY(gone(aPid));
        QTRY_VERIFY_WITH_TIMEOUT(gone(sleeper), 10000);
        QVERIFY(b->alive());
        const pid_t wb2 = b->launch({"exit", "7"});
        const auto sb2 = waitExit(*b, wb2);
        QVERIFY(sb2.has_value());
        QCOMPARE(WEXITSTATUS(*sb2), 7);
    }

    void manySequentialLaunchesLeakNothing() {
        auto server = ForkServer::start(testEntry);
        const pid_t serverPid = server->serverPid();
        const int serverFds = countFds(serverPid);
        const int ownFds = countFds(::getpid());
        QVERIFY(serverFds > 0);
        std::map<pid_t, int> others;
        for (int i = 0; i < 200; ++i) {
            const pid_t pid = server->launch({"exit", std::to_string(i % 50)});
            const auto status = waitExit(*server, pid, others);
            QVERIFY2(status.has_value(), qPrintable(QStringLiteral("launch %1").arg(i)));
            QVERIFY(WIFEXITED(*status));
            QCOMPARE(WEXITSTATUS(*status), i % 50);
        }
        QVERIFY(others.empty());
        QCOMPARE(countZombieChildren(serverPid), 0);
        QCOMPARE(countFds(serverPid), serverFds);
        QCOMPARE(countFds(::getpid()), ownFds);

        // Launching faster than exits are collected (the reports queue up in
        // the socket while launch() keeps working) also leaves nothing behind.
        std::vector<pid_t> burst;
        for (int i = 0; i < 200; ++i)
            burst.push_back(server->launch({"exit", "1"}));
        for (pid_t pid : burst) {
            const auto status = waitExit(*server, pid, others);
            QVERIFY(status.has_value());
            QCOMPARE(WEXITSTATUS(*status), 1);
        }
        QVERIFY(others.empty());
        QCOMPARE(countZombieChildren(serverPid), 0);
        QCOMPARE(countFds(serverPid), serverFds);
    }

    void workerStartsWithOnlyStdio() {
        // The worker inherits nothing from the parent but 0, 1, 2: write the
        // worker's own fd list through an entry that lists /proc/self/fd.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("fds.txt").toStdString();
        auto server = ForkServer::start(+[](const std::vector<std::string>& args) -> int {
            std::vector<int> fds;
            for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
                fds.push_back(std::stoi(e.path().filename().string()));
            std::FILE* out = std::fopen(args.at(0).c_str(), "w"); // opened after listing
            if (!out)
                return 1;
            for (int fd : fds)
                std::fprintf(out, "%d\n", fd);
            std::fclose(out);
            return 0;
        });
        const pid_t pid = server->launch({path});
        const auto status = waitExit(*server, pid);
        QVERIFY(status.has_value());
        QCOMPARE(WEXITSTATUS(*status), 0);
        const QList<QByteArray> lines = hwl::test::readBytes(path).trimmed().split('\n');
        for (const QByteArray& line : lines) {
            // 0..2 plus the directory_iterator's own descriptor.
            const int fd = line.toInt();
            QVERIFY2(fd <= 3, qPrintable(QStringLiteral("worker has fd %1 open").arg(fd)));
        }
    }

    // The server's own error reply: fork() fails in the server (its process
    // limit, lowered for it alone, is reached), launch() throws naming the
    // cause and what to do, and the server keeps serving once the limit is
    // lifted. Runs in a child that drops root to an unused uid, so that the
    // limit counts only that child and its server.
    void forkFailureInTheServerIsReported() {
        if (::geteuid() != 0)
            QSKIP("needs root: an unprivileged process cannot switch to a fresh uid");
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(fds[0]);
            auto finish = [&](int code, const std::string& text) {
                (void)!::write(fds[1], text.data(), text.size());
                _exit(code);
            };
            const uid_t uid = 54322; // unused (tst_cli uses 54321): only this child and its server
            if (::setgid(uid) != 0 || ::setuid(uid) != 0)
                finish(77, "cannot switch to uid 54322");
            rlimit limit{};
            if (::getrlimit(RLIMIT_NPROC, &limit) != 0)
                finish(77, "cannot read RLIMIT_NPROC");
            const rlim_t hard = limit.rlim_max;
            try {
                auto server = ForkServer::start(&testEntry);
                // Only the server's limit drops (the owner may lower it), to
                // 1 process: the uid already runs 2, so its next fork() fails.
                const rlimit one{1, hard};
                if (::prlimit(server->serverPid(), RLIMIT_NPROC, &one, nullptr) != 0)
                    finish(77, "cannot lower the server's RLIMIT_NPROC");
                try {
                    server->launch({"exit", "0"});
                    finish(1, "launch succeeded past the process limit");
                } catch (const RunError& e) {
                    const std::string what = e.what();
                    if (what.find("fork failed") == std::string::npos ||
                        what.find("ulimit -u") == std::string::npos)
                        finish(2, "unexpected message: " + what);
                }
                // Lift the server's soft limit to its hard one (allowed for
                // the owner): the same server now forks again.
                const rlimit lifted{hard, hard};
                if (::prlimit(server->serverPid(), RLIMIT_NPROC, &lifted, nullptr) != 0)
                    finish(3, "prlimit failed");
                const pid_t pid = server->launch({"exit", "5"});
                std::map<pid_t, int> others;
                const auto status = waitExit(*server, pid, others);
                if (!status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 5)
                    finish(4, "the server did not recover");
            } catch (const std::exception& e) {
                finish(5, std::string("unexpected exception: ") + e.what());
            }
            finish(0, "");
        }
        ::close(fds[1]);
        std::string text;
        char buf[512];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
            text.append(buf, std::size_t(n));
        ::close(fds[0]);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
            QSKIP(text.c_str());
        QVERIFY2(WEXITSTATUS(status) == 0, text.c_str());
    }
};

QTEST_GUILESS_MAIN(TestForkServer)
#include "tst_forkserver.moc"
