// The command line under signals and system limits: Ctrl-C (and SIGTERM)
// writing a partial run under every start method, and the process limit
// (ulimit -u) explained instead of a crash, with no segment left behind.
#include "clitest.h"

using namespace hwl::test;

class TestCliSignals : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    int outCounter_ = 0;

private slots:
    void interruptWritesPartialRun_data() {
        QTest::addColumn<bool>("withOut");
        QTest::addColumn<QStringList>("mode");
        QTest::newRow("with --out") << true << QStringList{};
        QTest::newRow("without --out") << false << QStringList{};
        // Ctrl-C in a terminal signals the whole process group, workers included:
        // they ignore it and the parent stops them in order.
        QTest::newRow("processes spawn, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "spawn"};
        QTest::newRow("processes forkserver, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "forkserver"};
        QTest::newRow("processes fork, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "fork"};
    }

    void interruptWritesPartialRun() {
        QFETCH(bool, withOut);
        QFETCH(QStringList, mode);
        const QString out =
            tmp_.filePath(withOut ? "interrupted-" + QString::number(outCounter_++) : "unused");
        QStringList args = {"--headless", "--dataset",   "teacher:200000x50:4",
                            "--model",    "mlp:50-64-4", "--epochs",
                            "200",        "--workers",   "2"};
        args << mode;
        if (withOut)
            args << "--out" << out;
        QProcess p;
        p.setProgram(QStringLiteral(HWL_APP_BINARY));
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
        QCOMPARE(::kill(mode.isEmpty() ? pid_t(r.pid) : -pid_t(r.pid), SIGINT), 0);
        collect(p, r, 120000);
        r.out = seen + r.out;
        QVERIFY2(r.finished, qPrintable(r.describe()));
        QVERIFY2(r.status == QProcess::NormalExit, qPrintable(r.describe()));
        QVERIFY2(r.code == 130, qPrintable(r.describe()));
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
        QVERIFY2(r.err.contains("interrupted: stopped after"), qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: stopped after"), qPrintable(r.describe()));
        if (!withOut) {
            QVERIFY(!r.out.contains("wrote "));
            QVERIFY(!QFileInfo::exists(out));
            return;
        }
        QVERIFY2(r.out.contains("(partial run)"), qPrintable(r.describe()));
        QCOMPARE(dirEntries(out), kOutputFiles);
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
            p.setProgram(QStringLiteral(HWL_APP_BINARY));
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
};

QTEST_GUILESS_MAIN(TestCliSignals)
#include "tst_clisignals.moc"
