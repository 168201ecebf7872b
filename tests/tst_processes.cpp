// Process Hogwild: fork, spawn and forkserver workers on shared memory, the
// not-shared pitfall, worker deaths under both failure policies, no orphans
// and no leftover segments.
#include "io/metricslog.h"
#include "launch/forksafety.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "store/sharedsegment.h"
#include "util/errors.h"
#include "workertestmain.h"

#include "testutil.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>

#include <csignal>
#include <cstring>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hwl;

namespace {

ExperimentConfig teacher(StartMethod method, int workers) {
    ExperimentConfig c;
    c.model = "mlp:20-32-4";
    c.dataset = "teacher:8000x20:4:16";
    c.mode = "processes";
    c.startMethod = method;
    c.workers = workers;
    c.epochs = 6;
    c.lr = 0.05;
    c.momentum = 0;
    c.testFraction = 0.2;
    return c;
}

std::unique_ptr<Run> makeRun(const ExperimentConfig& c) {
    return std::make_unique<Run>(c);
}

std::unique_ptr<Run> runToEnd(const ExperimentConfig& c) {
    auto run = makeRun(c);
    run->start();
    if (!run->wait(std::chrono::seconds(120)))
        qFatal("run did not end within 120 s");
    return run;
}

std::vector<float> paramsOf(const Run& run) {
    return run.parameters();
}

QStringList ourSegments() {
    return QDir("/dev/shm").entryList({QStringLiteral("hwl-%1-*").arg(getpid())}, QDir::Files);
}

// Gone, or a zombie waiting for an (orphan-reaping) init to collect it.
bool processGone(pid_t pid) {
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const auto close = text.lastIndexOf(')');
    return close >= 0 && text.size() > close + 2 && text[close + 2] == 'Z';
}

void addMethods() {
    QTest::addColumn<int>("method");
    QTest::newRow("fork") << int(StartMethod::Fork);
    QTest::newRow("spawn") << int(StartMethod::Spawn);
    QTest::newRow("forkserver") << int(StartMethod::Forkserver);
}
} // namespace

class TestProcesses : public QObject {
    Q_OBJECT

private slots:
    void trainsToTheSerialBar_data() { addMethods(); }
    void trainsToTheSerialBar() {
        QFETCH(int, method);
        auto run = runToEnd(teacher(StartMethod(method), 2));
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        // Same bar as thread mode on this task (serial reaches ~87%).
        QVERIFY2(s.testAccuracy >= 0.80, qPrintable(QString::number(s.testAccuracy)));
        QCOMPARE(s.samples, std::uint64_t(6400 * 6));
        for (double startup : s.startupSeconds)
            QVERIFY(startup >= 0); // every worker measured launch to first step
        QVERIFY(s.workerFailures.empty());
    }

    void oneWorkerEqualsSerialBitForBit_data() {
        addMethods();
        QTest::addColumn<QString>("split");
        QTest::newRow("fork, replicate") << int(StartMethod::Fork) << "replicate";
        QTest::newRow("spawn, replicate") << int(StartMethod::Spawn) << "replicate";
    }
    void oneWorkerEqualsSerialBitForBit() {
        QFETCH(int, method);
        QString split = "shard";
        if (QTest::currentDataTag() == QStringLiteral("fork, replicate") ||
            QTest::currentDataTag() == QStringLiteral("spawn, replicate"))
            split = "replicate";
        ExperimentConfig c = teacher(StartMethod(method), 1);
        c.epochs = 3;
        c.momentum = 0.9;
        c.lr = 0.01;
        c.split = *parseDataSplit(split.toStdString());
        auto proc = runToEnd(c);
        c.mode = "serial";
        auto serial = runToEnd(c);
        const auto a = paramsOf(*proc), b = paramsOf(*serial);
        QCOMPARE(a.size(), b.size());
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        QCOMPARE(proc->summary().testLoss, serial->summary().testLoss);
    }

    void parentSeesSharedUpdates_data() { addMethods(); }
    void parentSeesSharedUpdates() {
        QFETCH(int, method);
        ExperimentConfig c = teacher(StartMethod(method), 2);
        c.epochs = 2;
        auto run = makeRun(c);
        run->prepare();
        const auto before = paramsOf(*run);
        run->start();
        run->wait();
        QVERIFY(paramsOf(*run) != before);
        QVERIFY(run->summary().explanations.empty());
    }

    void notSharedPitfallIsDetectedAndExplained_data() { addMethods(); }
    void notSharedPitfallIsDetectedAndExplained() {
        QFETCH(int, method);
        ExperimentConfig c = teacher(StartMethod(method), 3);
        c.share = false;
        c.epochs = 4;
        auto run = makeRun(c);
        run->prepare();
        const auto before = paramsOf(*run);
        MetricsLog log;
        run->start();
        while (!run->wait(std::chrono::milliseconds(20)))
            log.drain(run->telemetry());
        log.drain(run->telemetry());
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        // The parent's parameters never changed: bit for bit the initial ones.
        const auto after = paramsOf(*run);
        QVERIFY(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0);
        QCOMPARE(s.explanations.size(), std::size_t(1));
        const std::string& text = s.explanations.front();
        QVERIFY2(text.find("parameters were not shared: each of the 3 workers trained its own "
                           "copy; the exported model is the untouched initial model") == 0,
                 text.c_str());
        // Divergence from the replica mean is reported, and grows over the epochs.
        QCOMPARE(s.divergence.size(), std::size_t(3));
        for (double d : s.divergence)
            QVERIFY(d > 0);
        // Measured at each epoch's gate, with every worker parked: the
        // largest distance fans out epoch after epoch.
        std::vector<float> atGate;
        log.forEach([&](const Sample& sample) {
            if (sample.kind == Sample::Eval)
                atGate.push_back(sample.divergence);
        });
        QCOMPARE(atGate.size(), std::size_t(4));
        for (std::size_t e = 1; e < atGate.size(); ++e)
            QVERIFY2(atGate[e] > atGate[e - 1], qPrintable(QString::number(e)));
        // The test accuracy cannot move: it is measured on the untouched parameters.
        QVERIFY(s.testAccuracy < 0.5);
    }

    void sharedModeReportsStaleness() {
        // Long enough steps (~50 us) and runs (~1 s) that the two workers'
        // steps overlap even on a loaded machine that time-slices them.
        ExperimentConfig c = teacher(StartMethod::Forkserver, 2);
        c.model = "mlp:100-256-10";
        c.dataset = "teacher:20000x100:10:16";
        c.epochs = 50;
        c.lr = 0.01;
        // The run stops at the first staleness seen (a second of the 50 epochs
        // here, under a minute under AddressSanitizer; all 50 if none is).
        MetricsLog log;
        auto run = makeRun(c);
        run->start();
        int positive = 0;
        const auto count = [&](const Sample& s) {
            positive += s.kind == Sample::Step && s.divergence > 0;
        };
        while (!run->wait(std::chrono::milliseconds(20))) {
            log.drain(run->telemetry(), count);
            if (positive > 0)
                run->stop();
        }
        log.drain(run->telemetry(), count);
        QVERIFY(positive > 0); // others' updates landed between a read and a write
    }

    void killedWorkerIsReported_data() {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("policy");
        QTest::newRow("fork, stop") << int(StartMethod::Fork) << int(FailurePolicy::Stop);
        QTest::newRow("spawn, stop") << int(StartMethod::Spawn) << int(FailurePolicy::Stop);
        QTest::newRow("forkserver, stop")
            << int(StartMethod::Forkserver) << int(FailurePolicy::Stop);
        QTest::newRow("fork, continue") << int(StartMethod::Fork) << int(FailurePolicy::Continue);
        QTest::newRow("spawn, continue") << int(StartMethod::Spawn) << int(FailurePolicy::Continue);
        QTest::newRow("forkserver, continue")
            << int(StartMethod::Forkserver) << int(FailurePolicy::Continue);
    }
    void killedWorkerIsReported() {
        QFETCH(int, method);
        QFETCH(int, policy);
        ExperimentConfig c = teacher(StartMethod(method), 3);
        c.dataset = "teacher:20000x20:4:16";
        c.epochs = 300; // long enough (about a second) to be killed mid-run
        c.onWorkerFailure = FailurePolicy(policy);
        auto run = makeRun(c);
        run->start();
        auto victim = [&] { return run->telemetry().worker(1); };
        QTRY_VERIFY_WITH_TIMEOUT(victim().steps > 50 && victim().pid > 0, 30000);
        const pid_t pid = pid_t(victim().pid);
        QCOMPARE(kill(pid, SIGKILL), 0);
        QVERIFY2(run->wait(std::chrono::seconds(120)), "the parent hung after a worker died");
        const auto s = run->summary();
        QCOMPARE(s.workerFailures.size(), std::size_t(1));
        const QRegularExpression expected(
            QStringLiteral("^worker 1 \\(pid %1\\) killed by SIGKILL after \\d+ steps$").arg(pid));
        QVERIFY2(expected.match(QString::fromStdString(s.workerFailures.front())).hasMatch(),
                 s.workerFailures.front().c_str());
        if (c.onWorkerFailure == FailurePolicy::Stop) {
            QCOMPARE(s.state, RunState::Failed);
            QCOMPARE(s.failure, s.workerFailures.front());
            QVERIFY(s.epochsCompleted < 300);
        } else {
            QCOMPARE(s.state, RunState::Finished); // the others carried on to the end
            QCOMPARE(s.epochsCompleted, 300);
            QCOMPARE(run->telemetry().worker(0).state, WorkerState::Finished);
        }
        QVERIFY(processGone(pid));
    }

    void aShortDevShmRunsInMemoryFiles_data() { addMethods(); }
    void aShortDevShmRunsInMemoryFiles() {
        // /dev/shm taken to have 64 KiB free: the run's segments are memory
        // files that every start method's workers open by name (a spawned
        // worker through /proc/<parent>/fd), the run trains as it would in
        // /dev/shm, says where its segments were, and leaves nothing there.
        QFETCH(int, method);
        qputenv("HWL_SHM_FREE_BYTES", "65536");
        const auto restore = qScopeGuard([] { qunsetenv("HWL_SHM_FREE_BYTES"); });
        auto run = runToEnd(teacher(StartMethod(method), 2));
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QVERIFY2(s.testAccuracy >= 0.80, qPrintable(QString::number(s.testAccuracy)));
        const auto& notes = run->notes();
        QVERIFY2(std::any_of(notes.begin(), notes.end(),
                             [](const std::string& n) {
                                 return n.find("/dev/shm has 0 MiB free") != std::string::npos &&
                                        n.find("memory files (memfd)") != std::string::npos;
                             }),
                 qPrintable(QString::fromStdString(notes.empty() ? "no notes" : notes.back())));
        QVERIFY(ourSegments().isEmpty());
        run.reset();
        QVERIFY(SharedSegment::choosePlace(0).empty()); // back to /dev/shm for the next tests
    }

    void segmentsArePrivate() {
        ExperimentConfig c = teacher(StartMethod::Spawn, 2);
        c.share = false;
        c.epochs = 1000; // stopped below
        auto run = makeRun(c);
        run->prepare();
        const auto names = ourSegments();
        // telemetry, parameters, data and one replica per worker
        QVERIFY2(names.size() >= 5, qPrintable(names.join(' ')));
        for (const auto& name : names) {
            struct stat st {};
            QCOMPARE(stat(qPrintable("/dev/shm/" + name), &st), 0);
            QCOMPARE(int(st.st_mode & 0777), 0600);
        }
        run->start();
        // A spawned worker's command line (readable by every local user in
        // ps) names the experiment's segment, never the experiment itself.
        QString cmdline;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const qint64 pid = run->telemetry().worker(0).pid;
                QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
                cmdline = pid > 0 && f.open(QIODevice::ReadOnly)
                              ? QString::fromUtf8(f.readAll().replace('\0', ' '))
                              : QString();
                return cmdline.contains("--worker-role");
            }(),
            30000);
        QVERIFY2(cmdline.contains("--experiment-segment=/hwl-"), qPrintable(cmdline));
        QVERIFY2(!cmdline.contains("mlp:20-32-4"), qPrintable(cmdline));
        run->stop();
        run->wait();
    }

    void fiftyRunsLeaveNothingBehind() {
        const int before = int(ourSegments().size());
        for (int i = 0; i < 50; ++i) {
            ExperimentConfig c = teacher(StartMethod(i % 3), 2);
            c.dataset = i % 5 == 4 ? "teacher:40000x20:4:16" : "teacher:1000x20:4:16";
            c.epochs = i % 5 == 4 ? 200 : 1;
            c.share = i % 7 != 3;
            auto run = makeRun(c);
            run->start();
            if (i % 5 == 4) { // kill a worker mid-run
                auto w = [&] { return run->telemetry().worker(0); };
                QTRY_VERIFY_WITH_TIMEOUT(w().steps > 10 && w().pid > 0, 30000);
                kill(pid_t(w().pid), SIGKILL);
            }
            QVERIFY(run->wait(std::chrono::seconds(120)));
            if (i % 5 == 4)
                QCOMPARE(run->summary().state, RunState::Failed);
            else
                QCOMPARE(run->summary().state, RunState::Finished);
        }
        QCOMPARE(int(ourSegments().size()), before);
    }

    // A child process plays the app: it starts a long run, reports its
    // workers' pids and is then killed with SIGKILL (no clean-up of its
    // own). The workers die with it and unlink the run's segments on their
    // way: none is left in /dev/shm once they are gone.
    void workersDieWithTheirParent_data() { addMethods(); }
    void workersDieWithTheirParent() {
        QFETCH(int, method);
        int fds[2];
        QCOMPARE(pipe(fds), 0);
        const pid_t parent = fork();
        if (parent == 0) {
            if (StartMethod(method) == StartMethod::Forkserver)
                startForkServer();
            ExperimentConfig c = teacher(StartMethod(method), 2);
            c.dataset = "teacher:40000x20:4:16";
            c.epochs = 100000;
            Run run(c);
            run.start();
            while (run.telemetry().worker(0).pid == 0 || run.telemetry().worker(1).pid == 0 ||
                   run.telemetry().worker(1).steps == 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            const pid_t pids[2] = {pid_t(run.telemetry().worker(0).pid),
                                   pid_t(run.telemetry().worker(1).pid)};
            (void)!write(fds[1], pids, sizeof pids);
            pause();
            _exit(0);
        }
        close(fds[1]);
        pid_t workers[2] = {0, 0};
        QCOMPARE(read(fds[0], workers, sizeof workers), ssize_t(sizeof workers));
        close(fds[0]);
        const QString prefix = QStringLiteral("hwl-%1-").arg(parent);
        QVERIFY(!QDir("/dev/shm").entryList({prefix + "*"}, QDir::Files).isEmpty());
        kill(parent, SIGKILL);
        waitpid(parent, nullptr, 0);
        QTRY_VERIFY_WITH_TIMEOUT(processGone(workers[0]) && processGone(workers[1]), 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(
            QDir("/dev/shm").entryList({prefix + "*"}, QDir::Files).isEmpty(),
            qPrintable(QDir("/dev/shm").entryList({prefix + "*"}, QDir::Files).join(", ")), 30000);
    }

    void forkChecks() {
        // CUDA initialised before fork: refused, naming cause and fix (stand-in fact).
        auto refused = checkStartMethod(StartMethod::Fork, /*cudaInitialised=*/true, 1);
        QVERIFY(refused.error.find("already initialised CUDA") != std::string::npos);
        QVERIFY(refused.error.find("--start-method spawn or forkserver") != std::string::npos);
        for (auto method : {StartMethod::Spawn, StartMethod::Forkserver})
            QVERIFY(checkStartMethod(method, true, 8).error.empty());
        // fork from a multi-threaded process: a warning that recommends forkserver.
        const auto warned = checkStartMethod(StartMethod::Fork, false, 3);
        QVERIFY(warned.error.empty());
        QCOMPARE(warned.warnings.size(), std::size_t(1));
        QVERIFY(warned.warnings[0].find("runs 3 threads") != std::string::npos);
        QVERIFY(warned.warnings[0].find("forkserver") != std::string::npos);
        QVERIFY(checkStartMethod(StartMethod::Fork, false, 1).warnings.empty());
        QVERIFY(!cudaInitialisedInThisProcess()); // this test process never initialised CUDA
        // A real fork run (the run's own coordinator thread exists) carries the warning.
        auto run = makeRun(teacher(StartMethod::Fork, 2));
        run->prepare();
        QCOMPARE(run->notes().size(), std::size_t(1));
        QVERIFY(run->notes()[0].find("fork() from a process that runs") == 0);
    }

    void noShareNeedsProcessMode() {
        ExperimentConfig c = teacher(StartMethod::Fork, 2);
        c.mode = "threads";
        c.share = false;
        bool reported = false;
        for (const auto& issue : validateExperiment(c))
            reported = reported || (issue.field == "share" &&
                                    issue.message.find("mode processes only") != std::string::npos);
        QVERIFY(reported);
    }

    // The CUDA module is loaded only by what needs a GPU: after every CPU
    // process mode above ran from this process, none of the CUDA runtime,
    // cuBLAS, cuBLASLt, NCCL or the module is mapped here.
    void cpuRunsMapNoCudaLibrary() {
        QFile maps("/proc/self/maps");
        QVERIFY(maps.open(QIODevice::ReadOnly));
        const QByteArray text = maps.readAll();
        QVERIFY(text.contains("libhwl") || text.contains("tst_processes"));
        for (const char* lib : {"libcudart", "libcublas", "libnccl", "libhwl_cuda", "libcuda.so"})
            QVERIFY2(!text.contains(lib), lib);
    }
};

HWL_WORKER_TEST_MAIN(TestProcesses)

#include "strategy/validation.h"
#include "tst_processes.moc"
