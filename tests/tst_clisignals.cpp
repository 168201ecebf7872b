// The command line under signals and system limits: Ctrl-C (and SIGTERM)
// writing a partial run under every start method, the window quitting on
// the same signals, and the process limit
// (ulimit -u) explained instead of a crash, with no segment left behind.
#include "clitest.h"
#include "io/runmanifest.h"
#include "testpaths.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace hwl::test;

class TestCliSignals : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    int outCounter_ = 0;

private slots:
    void interruptWritesPartialRun_data() {
        QTest::addColumn<bool>("withOut");
        QTest::addColumn<QStringList>("mode");
        QTest::addColumn<int>("signal");
        QTest::addColumn<bool>("toGroup");
        const QStringList spawn{"--mode", "processes", "--start-method", "spawn"};
        const QStringList forkserver{"--mode", "processes", "--start-method", "forkserver"};
        const QStringList fork{"--mode", "processes", "--start-method", "fork"};
        QTest::newRow("with --out") << true << QStringList{} << SIGINT << false;
        QTest::newRow("without --out") << false << QStringList{} << SIGINT << false;
        // Ctrl-C in a terminal, timeout(1)'s SIGTERM and a closed terminal's
        // SIGHUP signal the whole process group, workers included: they
        // ignore it and the parent stops them in order.
        QTest::newRow("processes spawn, Ctrl-C to the group") << true << spawn << SIGINT << true;
        QTest::newRow("processes forkserver, Ctrl-C to the group")
            << true << forkserver << SIGINT << true;
        QTest::newRow("processes fork, Ctrl-C to the group") << true << fork << SIGINT << true;
        QTest::newRow("processes spawn, SIGTERM to the group") << true << spawn << SIGTERM << true;
        QTest::newRow("processes forkserver, SIGTERM to the group")
            << true << forkserver << SIGTERM << true;
        QTest::newRow("processes fork, SIGHUP to the group") << true << fork << SIGHUP << true;
        QTest::newRow("threads, SIGHUP") << true << QStringList{} << SIGHUP << false;
        QTest::newRow("threads, SIGTERM") << true << QStringList{} << SIGTERM << false;
        // Pressed again while the outputs are being written: still all written.
        QTest::newRow("Ctrl-C twice") << true << QStringList{} << -SIGINT << false;
    }

    void interruptWritesPartialRun() {
        QFETCH(bool, withOut);
        QFETCH(QStringList, mode);
        QFETCH(int, signal);
        QFETCH(bool, toGroup);
        const QString out =
            tmp_.filePath(withOut ? "interrupted-" + QString::number(outCounter_++) : "unused");
        QStringList args = {"--headless", "--dataset",   "teacher:200000x50:4",
                            "--model",    "mlp:50-64-4", "--epochs",
                            "200",        "--workers",   "2"};
        args << mode;
        if (withOut)
            args << "--out" << out;
        QProcess p;
        p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
        p.setArguments(args);
        p.setChildProcessModifier([] { setpgid(0, 0); }); // its own group, like a shell job
        p.start();
        QVERIFY(p.waitForStarted(10000));
        Result r;
        r.started = true;
        r.pid = p.processId();
        // Wait for the first finished epoch: the signal handler is installed by then.
        QString seen;
        QDeadlineTimer deadline(120000);
        while (!seen.contains("epoch 1  worker") && !deadline.hasExpired() &&
               p.state() == QProcess::Running) {
            p.waitForReadyRead(200);
            seen += QString::fromUtf8(p.readAllStandardOutput());
        }
        QVERIFY2(seen.contains("epoch 1  worker"), qPrintable(seen));
        QCOMPARE(p.state(), QProcess::Running);
        // While it runs its telemetry segment is there (so the check after exit means something).
        QVERIFY2(!shmEntriesOf(r.pid).isEmpty(),
                 "no hwl-<pid>-* segment in /dev/shm while running");
        const bool twice = signal < 0;
        signal = std::abs(signal);
        QCOMPARE(::kill(toGroup ? -pid_t(r.pid) : pid_t(r.pid), signal), 0);
        for (int i = 0; twice && i < 20 && p.state() == QProcess::Running; ++i) {
            p.waitForFinished(5); // signals land during the stop and the writes
            ::kill(pid_t(r.pid), signal);
        }
        collect(p, r, 120000);
        r.out = seen + r.out;
        QVERIFY2(r.finished, qPrintable(r.describe()));
        QVERIFY2(r.status == QProcess::NormalExit, qPrintable(r.describe()));
        QVERIFY2(r.code == 128 + signal, qPrintable(r.describe()));
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
        const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP";
        QVERIFY2(r.err.contains(QStringLiteral("interrupted (%1): stopped after").arg(name)),
                 qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: stopped after"), qPrintable(r.describe()));
        if (!withOut) {
            QVERIFY(!r.out.contains("wrote "));
            QVERIFY(!QFileInfo::exists(out));
            return;
        }
        QVERIFY2(r.out.contains("(partial run)"), qPrintable(r.describe()));
        QCOMPARE(dirEntries(out), mode.isEmpty() ? kOutputFiles : kProcessOutputFiles);
        std::map<std::string, std::string> meta;
        const auto tensors =
            hwl::readSafetensors((out + "/weights.safetensors").toStdString(), &meta);
        QCOMPARE(tensors.size(), std::size_t(4));
        const int completed = std::stoi(meta["epochs_completed"]);
        QVERIFY2(completed >= 0 && completed < 200, meta["epochs_completed"].c_str());
        const QStringList csv = readLines(out + "/metrics.csv");
        QVERIFY(!csv.isEmpty());
        QCOMPARE(csv.first(), QStringLiteral("worker,epoch,step,samples,loss,time,kind,divergence,"
                                             "accuracy"));
        QCOMPARE(csv.filter(",eval,").size(), qsizetype(completed));
        QCOMPARE(readJsonObject(out + "/experiment.json").value("epochs").toInt(), 200);
    }

    // Ctrl-C while a worker is stuck (here: stopped by SIGSTOP): after 10 s
    // the parent kills it and still writes what was trained.
    void stuckWorkerDoesNotCostTheRun() {
        const QString out = tmp_.filePath("stuck");
        QProcess p;
        const QString seen = startCliUntil(
            p,
            {"--mode", "processes", "--start-method", "fork", "--dataset", "teacher:40000x20:4",
             "--model", "mlp:20-32-4", "--epochs", "1000", "--workers", "2", "--out", out},
            "epoch 1 ");
        QVERIFY2(seen.contains("epoch 1 "), qPrintable(seen));
        QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(p.processId()));
        QVERIFY(children.open(QIODevice::ReadOnly));
        const QList<QByteArray> pids = children.readAll().trimmed().split(' ');
        QVERIFY2(pids.size() == 2, children.fileName().toUtf8()); // the two fork workers
        const pid_t stuck = pid_t(pids.front().toLongLong());
        QCOMPARE(::kill(stuck, SIGSTOP), 0);
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        Result r;
        r.started = true;
        r.pid = p.processId();
        collect(p, r, 60000);
        r.out = seen + r.out;
        QVERIFY2(r.finished && r.code == 130, qPrintable(r.describe()));
        QVERIFY2(r.out.contains(QStringLiteral("(pid %1) had not stopped 10 s after the run "
                                               "asked it to, so it was killed; what was "
                                               "trained is kept")
                                    .arg(stuck)),
                 qPrintable(r.describe()));
        QVERIFY2(r.out.contains("(partial run)"), qPrintable(r.describe()));
        QCOMPARE(dirEntries(out), kProcessOutputFiles);
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
    }

    // A closed stdout (`| head -1`) costs the printing, not the run: the
    // outputs are written and the run ends as it would have.
    void closedStdoutKeepsTheRun() {
        const QString out = tmp_.filePath("closed-stdout");
        QProcess p;
        p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
        p.setArguments({"--headless", "--dataset", "teacher:20000x20:4", "--model", "mlp:20-16-4",
                        "--epochs", "30", "--out", out});
        p.start();
        QVERIFY(p.waitForStarted(10000));
        QVERIFY(p.waitForReadyRead(30000));           // the first line came
        p.closeReadChannel(QProcess::StandardOutput); // every later print meets EPIPE
        Result r;
        r.started = true;
        r.pid = p.processId();
        collect(p, r, 120000);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0,
                 qPrintable(r.describe()));
        QCOMPARE(dirEntries(out), kOutputFiles);
    }

    // A stdout nobody reads (a full pipe: a pager left waiting, or mpirun
    // ending its job) holds the printing, not the run: SIGTERM stops it and
    // the partial run is committed while the pipe is still full; the lines
    // come, all of them, once the pipe is read.
    void unreadStdoutDoesNotHoldTheStop() {
        const QString out = tmp_.filePath("unread-stdout");
        const QByteArray fifo = QFile::encodeName(tmp_.filePath("stdout.fifo"));
        QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
        const int reader = ::open(fifo.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(reader >= 0);
        const int capacity = ::fcntl(reader, F_GETPIPE_SZ);
        QVERIFY(capacity > 0);
        QProcess p;
        p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
        p.setArguments({"--headless", "--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4",
                        "--epochs", "100000", "--workers", "2", "--out", out});
        p.setStandardOutputFile(QFile::decodeName(fifo));
        p.start();
        QVERIFY(p.waitForStarted(10000));
        // Full: a writer of the same pipe could not write now.
        const int probe = ::open(fifo.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(probe >= 0);
        pollfd writable{probe, POLLOUT, 0};
        QDeadlineTimer full(60000);
        while (!full.hasExpired() && ::poll(&writable, 1, 0) == 1)
            QTest::qWait(20);
        ::close(probe);
        int held = 0;
        QCOMPARE(::ioctl(reader, FIONREAD, &held), 0);
        QVERIFY2(!full.hasExpired(), qPrintable(QString("%1 of %2 bytes").arg(held).arg(capacity)));
        QCOMPARE(::kill(pid_t(p.processId()), SIGTERM), 0);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out + "/manifest.json"), 60000);
        QCOMPARE(dirEntries(out), kOutputFiles);
        QByteArray text;
        char chunk[65536];
        QDeadlineTimer drained(60000);
        for (bool ended = false; !drained.hasExpired();) {
            const ssize_t n = ::read(reader, chunk, sizeof chunk);
            if (n > 0)
                text.append(chunk, qsizetype(n));
            else if (ended)
                break;
            else
                ended = p.waitForFinished(20);
        }
        ::close(reader);
        QCOMPARE(p.state(), QProcess::NotRunning);
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
        QVERIFY2(text.contains("\nsummary: stopped after") && text.contains("(partial run)\n"),
                 text.right(2000).constData());
    }

    // A signal while the data is still loading: the run never starts,
    // nothing is written, nothing is left behind.
    void signalWhileLoading() {
        const QString out = tmp_.filePath("while-loading");
        QProcess p;
        const QString seen = startCliUntil(p,
                                           {"--dataset", "teacher:300000x100:4", "--model",
                                            "mlp:100-16-4", "--epochs", "1000", "--out", out},
                                           "experiment: "); // the handler is in place
        QVERIFY2(seen.contains("experiment: "), qPrintable(seen));
        QCOMPARE(::kill(pid_t(p.processId()), SIGTERM), 0);
        Result r;
        r.started = true;
        r.pid = p.processId();
        collect(p, r, 120000);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(r.describe()));
        QCOMPARE(r.code, 128 + SIGTERM);
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
        // Loading stops at the signal (the loaders poll it); on a fast
        // machine the signal may land in the first epochs instead: either
        // way the run says which.
        if (r.err.contains("before training started")) {
            QVERIFY2(r.err.contains("interrupted (SIGTERM) before training started: nothing "
                                    "written"),
                     qPrintable(r.describe()));
            QVERIFY(!QFileInfo::exists(out + "/weights.safetensors"));
        } else {
            QVERIFY2(r.err.contains("interrupted (SIGTERM): stopped after"),
                     qPrintable(r.describe()));
            QCOMPARE(dirEntries(out), kOutputFiles);
        }
    }

    // The window under the same signals (its terminal's Ctrl-C, a logout's
    // SIGHUP, a service manager's SIGTERM): it quits as if closed, with
    // 128 + the signal; the run stops in order, no process or segment stays.
    void windowQuitsOnStopSignals_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM") << SIGTERM;
        QTest::newRow("SIGHUP") << SIGHUP;
        QTest::newRow("SIGINT") << SIGINT;
    }
    void windowQuitsOnStopSignals() {
        QFETCH(int, signal);
        const QString config = tmp_.filePath("window-long.json");
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(R"({"model": "mlp:20-32-4", "dataset": "teacher:40000x20:4", "mode": "processes",
                    "start-method": "fork", "workers": 2, "epochs": 100000})");
        f.close();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        p.setProcessEnvironment(env);
        p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
        p.setArguments({"--config", config, "--start"});
        p.start();
        QVERIFY(p.waitForStarted(10000));
        const pid_t pid = pid_t(p.processId());
        // Training: the two workers are its children.
        const auto children = [pid] {
            QFile f(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
            return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().split(' ').size() : 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(children() >= 3, 60000); // the fork server and two workers
        QCOMPARE(::kill(pid, signal), 0);
        Result r;
        r.started = true;
        r.pid = pid;
        collect(p, r, 60000);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 128 + signal,
                 qPrintable(r.describe()));
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
    }

    // At the system's limit on processes and threads, every place that
    // starts one (fork server, oneTBB, coordinator, worker threads and
    // processes) fails with status 1 and a message that says what to do:
    // never a crash, a hang or a segment left behind. The child runs as an
    // unused uid whose RLIMIT_NPROC is 1..8, so every start-up stage hits it.
    void processLimitIsExplained_data() {
        QTest::addColumn<QStringList>("mode");
        QTest::newRow("threads") << QStringList{"--mode", "threads", "--workers", "4"};
        QTest::newRow("fork") << QStringList{"--mode", "processes", "--start-method",
                                             "fork",   "--workers", "4"};
        QTest::newRow("forkserver")
            << QStringList{"--mode", "processes", "--start-method", "forkserver", "--workers", "4"};
    }
    void processLimitIsExplained() {
        QFETCH(QStringList, mode);
        if (::geteuid() != 0)
            QSKIP("needs root: an unprivileged process cannot switch to a fresh uid");
        int failures = 0;
        for (int limit = 1; limit <= 8; ++limit) {
            QProcess p;
            p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
            p.setArguments(QStringList{"--headless", "--model", "mlp:20-8-4", "--dataset",
                                       "teacher:2000x20:4:8", "--epochs", "3"} +
                           mode);
            p.setWorkingDirectory(tmp_.path());
            p.setChildProcessModifier([limit] {
                rlimit l{};
                ::getrlimit(RLIMIT_NPROC, &l);
                l.rlim_cur = rlim_t(limit);
                const uid_t uid = 54321; // unused: the app's processes are its only ones
                if (::setrlimit(RLIMIT_NPROC, &l) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0)
                    ::_exit(77);
            });
            Result r;
            p.start();
            r.started = p.waitForStarted(10000);
            if (!r.started)
                QSKIP("the app cannot be started as an unprivileged uid here");
            r.pid = p.processId();
            collect(p, r, 60000);
            const QString where = QStringLiteral("limit %1: ").arg(limit) + r.describe();
            if (r.code == 77)
                QSKIP("cannot switch to a fresh uid with a process limit here");
            QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(where));
            QVERIFY2(r.code == 0 || r.code == 1, qPrintable(where));
            QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(where));
            if (r.code == 1) {
                ++failures;
                QVERIFY2(r.err.contains("ulimit -u") && r.err.contains("run fewer workers"),
                         qPrintable(where));
                QVERIFY2(!r.err.contains("terminate called"), qPrintable(where));
            }
        }
        QVERIFY(failures > 0); // a limit of 1 process leaves no room for any thread
    }

    // A --sweep-parallel sweep killed with SIGKILL takes its runs with it:
    // each stops as Ctrl-C stops it and commits what it trained (a whole run,
    // stopped), none is left training under init; its scratch folder, which
    // it could not remove, goes at the next sweep's start, which says so.
    // SIGTERM to a live sweep ends it with 143, as docs/errors.md says.
    void sweepParallelKilledLeavesNoRun() {
        const QString tmpdir = tmp_.filePath("sweep-tmp"), out = tmp_.filePath("sweep-killed");
        QVERIFY(QDir().mkpath(tmpdir));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TMPDIR", tmpdir);
        const QStringList args{"--headless",
                               "--dataset",
                               "teacher:40000x20:4",
                               "--model",
                               "mlp:20-32-4",
                               "--epochs",
                               "1000",
                               "--sweep",
                               "lr=0.01,0.02",
                               "--sweep-parallel",
                               "2",
                               "--pace",
                               "200"};
        QProcess sweep;
        sweep.setProcessEnvironment(env);
        sweep.start(QString::fromUtf8(kAppBinary), args + QStringList{"--out", out});
        QVERIFY(sweep.waitForStarted(10000));
        const auto started = [&](const char* run) {
            QFile f(out + "/lr=" + run + "/output.txt");
            return f.open(QIODevice::ReadOnly) && f.readAll().contains("pace: at most 200");
        };
        QTRY_VERIFY_WITH_TIMEOUT(started("0.01") && started("0.02"), 30000); // --pace reached them
        ::kill(pid_t(sweep.processId()), SIGKILL);
        QVERIFY(sweep.waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(
            hwl::checkRunFolder((out + "/lr=0.01").toStdString(), true).whole() &&
                hwl::checkRunFolder((out + "/lr=0.02").toStdString(), true).whole(),
            30000);
        for (const char* run : {"0.01", "0.02"}) {
            const auto check = hwl::checkRunFolder((out + "/lr=" + run).toStdString(), true);
            QCOMPARE(QString::fromStdString(check.manifest.state), QString("stopped"));
        }
        QVERIFY(!QDir(tmpdir).entryList({"hwl-sweep-*"}, QDir::Dirs).isEmpty());
        QProcess next;
        next.setProcessEnvironment(env);
        next.start(QString::fromUtf8(kAppBinary),
                   QStringList{"--headless", "--dataset", "teacher:200x4:2", "--model", "mlp:4-8-2",
                               "--epochs", "1", "--mode", "serial", "--sweep", "lr=0.1,0.2",
                               "--sweep-parallel", "2", "--out", tmp_.filePath("sweep-next")});
        QVERIFY(next.waitForFinished(60000));
        const QString said = QString::fromUtf8(next.readAllStandardOutput());
        QVERIFY2(next.exitCode() == 0 &&
                     said.contains("sweep: removed 1 folder that killed sweeps left in " + tmpdir),
                 qPrintable(said));
        QCOMPARE(QDir(tmpdir).entryList({"hwl-sweep-*"}, QDir::Dirs), QStringList());
        QProcess termed;
        termed.setProcessEnvironment(env);
        termed.start(QString::fromUtf8(kAppBinary),
                     args + QStringList{"--out", tmp_.filePath("sweep-termed")});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(tmp_.filePath("sweep-termed/lr=0.02/output.txt")),
                                 30000);
        ::kill(pid_t(termed.processId()), SIGTERM);
        QVERIFY(termed.waitForFinished(30000));
        QCOMPARE(termed.exitCode(), 143);
    }
};

QTEST_GUILESS_MAIN(TestCliSignals)
#include "tst_clisignals.moc"
