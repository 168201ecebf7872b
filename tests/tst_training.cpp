// Training end to end through the Run API: learning bars, Hogwild with one
// worker equal to serial bit for bit, multi-worker Hogwild close to serial,
// sparse updates, pause / resume / stop, and the telemetry a run leaves.
#include "backend/cpu/cpubackend.h"
#include "data/datasources.h"
#include "io/metricslog.h"
#include "model/embeddingbag.h"
#include "optim/hogwild.h"
#include "run/run.h"
#include "train/updaterule.h"
#include "util/errors.h"

#include "testutil.h"

#include <QDir>
#include <QTest>

#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>

#include <unistd.h>

using namespace hwl;
using hwl::test::teacherConfig;

namespace {

std::unique_ptr<Run> runToEnd(const ExperimentConfig& c) {
    auto run = std::make_unique<Run>(c);
    run->start();
    run->wait();
    return run;
}

std::vector<float> params(const Run& run) {
    return run.parameters();
}

int ourSegments() {
    const QString prefix = QStringLiteral("hwl-%1-").arg(getpid());
    return int(QDir("/dev/shm").entryList({prefix + "*"}, QDir::Files).size());
}
} // namespace

class TestTraining : public QObject {
    Q_OBJECT

private slots:
    void serialLearnsTeacherTask() {
        auto run = runToEnd(teacherConfig());
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 10);
        QVERIFY(s.evaluated);
        // Bar: chance is 25%; the 20-32-4 MLP reaches ~87% here.
        QVERIFY2(s.testAccuracy >= 0.80, qPrintable(QString::number(s.testAccuracy)));
        QVERIFY(s.testLoss < 0.45);
        QCOMPARE(s.samples, std::uint64_t(6400 * 10));
    }

    void serialLearnsFashionMnist() {
        if (!fashionMnistAvailable())
            QSKIP("Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)");
#ifdef HWL_THREAD_SANITIZER
        QSKIP("one worker has no race for ThreadSanitizer to check, and 3 epochs of "
              "Fashion-MNIST take minutes under it; the other builds check the bar");
#endif
        ExperimentConfig c;
        c.model = "mlp:784-128-10";
        c.dataset = "fashion-mnist";
        c.mode = "serial";
        c.workers = 1;
        c.epochs = 3;
        c.lr = 0.01;
        c.momentum = 0.9;
        auto run = runToEnd(c);
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        // Bar: 83% after 3 epochs (the default 5-epoch run reaches ~86%). It
        // was 2 epochs, which reach 83.3% with -march=native but 82.6% in the
        // portable sanitizer builds on the development machine (the same
        // weights as before the engine's restructuring, bit for bit): too
        // close to the bar. 3 epochs reach 84.6% (native) and 84.9% (portable).
        QVERIFY2(s.testAccuracy >= 0.83, qPrintable(QString::number(s.testAccuracy)));
    }

    void oneWorkerHogwildEqualsSerialBitForBit_data() {
        QTest::addColumn<QString>("split");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<bool>("shuffle");
        QTest::newRow("shard") << "shard" << 0.0 << true;
        QTest::newRow("replicate, momentum") << "replicate" << 0.9 << true;
        QTest::newRow("no shuffle, weight decay") << "shard" << 0.5 << false;
    }
    void oneWorkerHogwildEqualsSerialBitForBit() {
        QFETCH(QString, split);
        QFETCH(double, momentum);
        QFETCH(bool, shuffle);
        ExperimentConfig c = teacherConfig();
        c.epochs = 3;
        c.split = *parseDataSplit(split.toStdString());
        c.momentum = momentum;
        c.shuffle = shuffle;
        c.weightDecay = shuffle ? 0 : 1e-3;
        auto serial = runToEnd(c);
        c.mode = "threads";
        auto hogwild = runToEnd(c);
        c.mode = "threads-locked";
        auto locked = runToEnd(c);
        const auto a = params(*serial), b = params(*hogwild), l = params(*locked);
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        QVERIFY(std::memcmp(a.data(), l.data(), a.size() * sizeof(float)) == 0);
        QCOMPARE(serial->summary().testLoss, hogwild->summary().testLoss);
    }

    void hogwildReachesSerialLoss_data() {
        QTest::addColumn<int>("workers");
        QTest::addColumn<QString>("mode");
        QTest::newRow("threads x2") << 2 << "threads";
        QTest::newRow("threads x4") << 4 << "threads";
        QTest::newRow("locked x4") << 4 << "threads-locked";
    }
    void hogwildReachesSerialLoss() {
        QFETCH(int, workers);
        QFETCH(QString, mode);
        const double serialLoss = runToEnd(teacherConfig())->summary().testLoss;
        ExperimentConfig c = teacherConfig();
        c.mode = mode.toStdString();
        c.workers = workers;
        auto run = runToEnd(c);
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        // Tolerance: within 0.05 nats of the serial test loss (seen: ~0.001).
        QVERIFY2(std::abs(s.testLoss - serialLoss) < 0.05,
                 qPrintable(QStringLiteral("%1 vs serial %2").arg(s.testLoss).arg(serialLoss)));
        QCOMPARE(s.samples, std::uint64_t(6400 * 10)); // shard: each sample once per epoch
    }

    void replicateWalksWholeDatasetPerWorker() {
        ExperimentConfig c = teacherConfig();
        c.mode = "threads";
        c.workers = 3;
        c.epochs = 2;
        c.split = DataSplit::Replicate;
        auto run = runToEnd(c);
        QCOMPARE(run->summary().samples, std::uint64_t(6400 * 2 * 3));
    }

    // Staleness is the L2 distance over exactly the gradient's segments
    // (lengths that are and are not multiples of its 8 partial sums).
    void stalenessIsTheDistanceOverTheWrittenSegments() {
        std::vector<float> before(100), params(100);
        for (int i = 0; i < 100; ++i) {
            before[std::size_t(i)] = 0.01f * float(i);
            params[std::size_t(i)] = before[std::size_t(i)] + 0.001f * float(i % 7) - 0.002f;
        }
        Gradient<float> grad;
        grad.segments = {{3, 17, 0}, {40, 16, 17}, {90, 5, 33}}; // 97 is never touched
        params[97] += 1000.0f;
        double want = 0;
        for (const auto& seg : grad.segments)
            for (std::int64_t i = seg.offset; i < seg.offset + seg.length; ++i) {
                const double d = double(params[std::size_t(i)]) - double(before[std::size_t(i)]);
                want += d * d;
            }
        want = std::sqrt(want);
        const double got = hogwild::staleness(params.data(), before.data(), grad);
        QVERIFY2(std::abs(got - want) <= 1e-12 * want,
                 qPrintable(QStringLiteral("%1 vs %2").arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
        QCOMPARE(hogwild::staleness(before.data(), before.data(), grad), 0.0);
    }

    // Staleness measurements space out so that their cost (a snapshot of
    // every parameter, then a distance) stays under half a percent of the
    // time: a sparse model's snapshot costs many of its cheap steps.
    void stalenessSamplingStaysCheap() {
        // Cheap measurement: the minimum interval.
        QCOMPARE(nextMeasurementAfter(32, 1000.0, 40000.0), std::uint64_t(32));
        // 200 us for a 16 us step: 200 / (0.005 * 16) = 2500 steps.
        QCOMPARE(nextMeasurementAfter(32, 200000.0, 16000.0), std::uint64_t(2500));
        // Never so rare that a chart waits for ever: at most 4096 steps.
        QCOMPARE(nextMeasurementAfter(32, 1e9, 1000.0), std::uint64_t(4096));
        // No step time known yet (the first measurement): the minimum.
        QCOMPARE(nextMeasurementAfter(78, 1e9, 0.0), std::uint64_t(78));
        // A minimum above the cap still wins.
        QCOMPARE(nextMeasurementAfter(5000, 1e9, 1.0), std::uint64_t(5000));
    }

    void embeddingBagUpdatesOnlyUsedRows() {
        const ModelSpec spec = parseModelSpec("embedding-bag:500-8-4");
        EmbeddingBag model(spec);
        const Dataset data = makeSparseBow(64, 500, 4, 5, 9);
        std::vector<float> before(std::size_t(model.layout().total()));
        model.initialize(before.data(), 3);
        std::vector<float> after = before;
        std::vector<std::int64_t> rows{3, 17, 40, 41};
        const auto kernel =
            cpuBackend().makeKernel(model, data.view(), SgdSettings{0.5f, 0, 0}, 0, 1);
        kernel->lossAndGradient(after.data(), rows.data(), 4);
        kernel->update(after.data(), UpdateAccess::Shared);

        std::set<std::int32_t> used;
        for (auto r : rows)
            for (auto k = data.offsets[std::size_t(r)]; k < data.offsets[std::size_t(r) + 1]; ++k)
                used.insert(data.indices[std::size_t(k)]);
        QVERIFY(used.size() < 500 / 4); // the batch uses a small part of the table
        int changedRows = 0;
        for (std::int32_t row = 0; row < 500; ++row) {
            const bool changed = std::memcmp(before.data() + row * 8, after.data() + row * 8,
                                             8 * sizeof(float)) != 0;
            QCOMPARE(changed, used.count(row) == 1);
            changedRows += changed;
        }
        QCOMPARE(changedRows, int(used.size()));
        // One gradient segment per used row plus one for fc.weight + fc.bias.
        QCOMPARE(kernel->gradient().segments.size(), used.size() + 1);
        QCOMPARE(kernel->gradient().touchedCount(), std::int64_t(used.size() * 8 + 4 * 8 + 4));
    }

    void sparseHogwildLearns() {
        ExperimentConfig c;
        c.model = "embedding-bag:2000-16-4";
        c.dataset = "sparse-bow:8000x2000:4:20";
        c.mode = "threads";
        c.workers = 4;
        c.epochs = 5;
        c.lr = 0.5;
        c.momentum = 0;
        c.testFraction = 0.2;
        auto run = runToEnd(c);
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QVERIFY2(s.testAccuracy >= 0.80, qPrintable(QString::number(s.testAccuracy)));
    }

    void telemetryRecordsEveryEpochOfEveryWorker() {
        ExperimentConfig c = teacherConfig();
        c.mode = "threads";
        c.workers = 3;
        c.epochs = 4;
        Run run(c);
        MetricsLog log;
        run.start();
        while (!run.wait(std::chrono::milliseconds(20)))
            log.drain(run.telemetry());
        log.drain(run.telemetry());
        int epochEnds = 0, evals = 0, steps = 0;
        std::set<int> workersSeen;
        log.forEach([&](const Sample& s) {
            epochEnds += s.kind == Sample::EpochEnd;
            evals += s.kind == Sample::Eval;
            steps += s.kind == Sample::Step;
            if (s.kind != Sample::Eval)
                workersSeen.insert(s.worker);
        });
        QCOMPARE(epochEnds, 3 * 4);
        QCOMPARE(evals, 4);
        QVERIFY(steps > 0);
        QCOMPARE(workersSeen, (std::set<int>{0, 1, 2}));
        for (std::uint32_t r = 0; r < 3; ++r) {
            QCOMPARE(run.telemetry().worker(r).state, WorkerState::Finished);
            QVERIFY(run.telemetry().worker(r).startupSeconds >= 0);
            QCOMPARE(run.telemetry().worker(r).epochs, 4u);
        }
        QCOMPARE(run.telemetry().runState(), RunState::Finished);
        // The training window: from the first step to the last worker
        // leaving its loop, both stamped by the workers, within the wall time.
        // (Seconds since the run started, as the reader gives them.)
        double firstStep = -1, lastFinish = -1;
        for (std::uint32_t r = 0; r < 3; ++r) {
            const WorkerSnapshot w = run.telemetry().worker(r);
            QVERIFY(w.launchSeconds >= 0 && w.startupSeconds >= 0);
            const double step = w.launchSeconds + w.startupSeconds;
            QVERIFY(w.finishSeconds >= step);
            firstStep = firstStep < 0 ? step : std::min(firstStep, step);
            lastFinish = std::max(lastFinish, w.finishSeconds);
        }
        const auto s = run.summary();
        QVERIFY(s.trainSeconds > 0);
        QVERIFY(s.trainSeconds <= lastFinish - firstStep + 1e-6);
        QVERIFY(s.trainSeconds <= s.wallSeconds);
        QCOMPARE(s.samplesPerSecond, double(s.samples) / s.trainSeconds);
    }

    void pauseResumeStop() {
        ExperimentConfig c = teacherConfig();
        c.dataset = "teacher:50000x20:4:16";
        c.mode = "threads";
        c.workers = 2;
        c.epochs = 1000;
        Run run(c);
        run.start();
        auto steps = [&] {
            return run.telemetry().worker(0).steps + run.telemetry().worker(1).steps;
        };
        QTRY_VERIFY_WITH_TIMEOUT(steps() > 100, 10000);
        run.pause();
        QCOMPARE(run.telemetry().runState(), RunState::Paused);
        // Both workers reach the paused state (they check every step).
        QTRY_VERIFY_WITH_TIMEOUT(run.telemetry().worker(0).state == WorkerState::Paused &&
                                     run.telemetry().worker(1).state == WorkerState::Paused,
                                 10000);
        const auto frozen = steps();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QCOMPARE(steps(), frozen);
        run.resume();
        QTRY_VERIFY_WITH_TIMEOUT(steps() > frozen, 10000);
        run.stop();
        QVERIFY(run.wait(std::chrono::seconds(30))); // no hang
        const auto s = run.summary();
        QCOMPARE(s.state, RunState::Stopped);
        QVERIFY(s.epochsCompleted < 1000);
        QCOMPARE(run.telemetry().worker(0).state, WorkerState::Stopped);
    }

    // The pace changes the timing only: a paced serial run ends with the
    // same parameters bit for bit, and takes at least its steps' slots.
    void pacedRunIsTheSameRunSlower() {
        ExperimentConfig c = teacherConfig();
        c.dataset = "teacher:2000x20:4:16"; // 1600 training rows: 50 steps of 32 an epoch
        c.epochs = 2;
        const auto fast = runToEnd(c);
        Run paced(c);
        paced.setPace(500); // before start: kept for it
        const auto t0 = std::chrono::steady_clock::now();
        paced.start();
        QVERIFY(paced.wait());
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QCOMPARE(paced.summary().state, RunState::Finished);
        QVERIFY(params(paced) == params(*fast));
        QVERIFY2(seconds >= 99.0 / 500, qPrintable(QString::number(seconds))); // 100 steps
    }

    void singleStepWhilePaused_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("threads") << "threads";
        QTest::newRow("data-parallel (agreed pauses)") << "data-parallel";
    }
    void singleStepWhilePaused() {
        QFETCH(QString, mode);
        ExperimentConfig c = teacherConfig();
        c.dataset = "teacher:50000x20:4:16";
        c.mode = mode.toStdString();
        c.workers = 2;
        c.epochs = 1000;
        // No test set, so no epoch gate: the gate has its own test below.
        c.testFraction = 0;
        Run run(c);
        run.start();
        auto steps = [&](int r) { return run.telemetry().worker(std::uint32_t(r)).steps; };
        QTRY_VERIFY_WITH_TIMEOUT(steps(0) + steps(1) > 100, 10000);
        run.pause();
        QTRY_VERIFY_WITH_TIMEOUT(run.telemetry().worker(0).state == WorkerState::Paused &&
                                     run.telemetry().worker(1).state == WorkerState::Paused,
                                 10000);
        for (int click = 1; click <= 3; ++click) {
            const auto a = steps(0), b = steps(1);
            run.step();
            QTRY_VERIFY_WITH_TIMEOUT(steps(0) == a + 1 && steps(1) == b + 1 &&
                                         run.telemetry().worker(0).state == WorkerState::Paused &&
                                         run.telemetry().worker(1).state == WorkerState::Paused,
                                     10000);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            QCOMPARE(steps(0), a + 1); // one step, not a resume
            QCOMPARE(steps(1), b + 1);
        }
        run.stop();
        QVERIFY(run.wait(std::chrono::seconds(30)));
        QCOMPARE(run.summary().state, RunState::Stopped);
    }

    // Regression: Step did nothing when the workers were paused at the
    // epoch gate (waiting for each other and the test evaluation): a worker
    // held in the pause there never saw the gate open. Each epoch is one
    // step here, so every step ends at the gate, and every Step has to take
    // the workers through it into one step of the next epoch.
    void singleStepThroughTheEpochGate_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("workers");
        QTest::newRow("serial") << "serial" << 1;
        QTest::newRow("threads") << "threads" << 2;
    }
    void singleStepThroughTheEpochGate() {
        QFETCH(QString, mode);
        QFETCH(int, workers);
        ExperimentConfig c = teacherConfig();
        c.dataset = "teacher:1000x20:4:16"; // 800 training rows, 200 test rows
        c.mode = mode.toStdString();
        c.workers = workers;
        c.batch = 1000; // one step an epoch, whatever the split
        c.epochs = 1000;
        Run run(c);
        QVERIFY(run.canStep());
        run.setPace(200); // a few epochs before the pause, not all of them
        run.start();
        const auto n = std::uint32_t(workers);
        auto steps = [&](std::uint32_t r) { return run.telemetry().worker(r).steps; };
        auto allPaused = [&] {
            for (std::uint32_t r = 0; r < n; ++r)
                if (run.telemetry().worker(r).state != WorkerState::Paused)
                    return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(steps(0) >= 3, 10000);
        run.pause();
        QTRY_VERIFY_WITH_TIMEOUT(allPaused(), 10000);
        for (int click = 1; click <= 3; ++click) {
            std::vector<std::uint64_t> before;
            for (std::uint32_t r = 0; r < n; ++r)
                before.push_back(steps(r));
            run.step();
            QTRY_VERIFY_WITH_TIMEOUT(
                [&] {
                    for (std::uint32_t r = 0; r < n; ++r)
                        if (steps(r) != before[r] + 1)
                            return false;
                    return allPaused();
                }(),
                10000);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            for (std::uint32_t r = 0; r < n; ++r)
                QCOMPARE(steps(r), before[r] + 1); // one step, not a resume
        }
        QCOMPARE(run.telemetry().worker(0).epochs, std::uint32_t(steps(0))); // each at a gate
        const auto paused = steps(0);
        run.resume(); // and the gate still opens for running workers
        QTRY_VERIFY_WITH_TIMEOUT(steps(0) >= paused + 3, 10000);
        run.stop();
        QVERIFY(run.wait(std::chrono::seconds(30)));
        QCOMPARE(run.summary().state, RunState::Stopped);
    }

    void stopWhilePausedEnds() {
        ExperimentConfig c = teacherConfig();
        c.mode = "threads";
        c.workers = 2;
        c.epochs = 1000;
        Run run(c);
        run.start();
        run.pause();
        run.stop();
        QVERIFY(run.wait(std::chrono::seconds(30)));
        QCOMPARE(run.summary().state, RunState::Stopped);
    }

    void divergenceFailsTheRun() {
        ExperimentConfig c = teacherConfig();
        c.lr = 100;
        c.model = "mlp:20-64-4";
        c.dataset = "random:4000x20:4";
        c.epochs = 50;
        auto run = runToEnd(c);
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Failed);
        QVERIFY2(s.failure.find("training diverged") != std::string::npos, s.failure.c_str());
        QVERIFY(s.failure.find("lower the learning rate (--lr)") != std::string::npos);
    }

    void modelMustFitDataset() {
        ExperimentConfig c = teacherConfig();
        c.model = "mlp:10-4";
        Run run(c);
        try {
            run.prepare();
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("input width is 10 but the dataset has 20") !=
                         std::string::npos,
                     e.what());
        }
    }

    // Loading stops on request: the loaders poll the stop request a block
    // (or a chunk) at a time, so prepare() throws Cancelled mid-load, and a
    // stop() from another thread before prepare() is honoured at once.
    void stopDuringLoadingCancelsIt() {
        ExperimentConfig c = teacherConfig();
        c.dataset = "teacher:200000x20:4"; // ~200 blocks of rows
        const int before = ourSegments();
        {
            Run run(c);
            std::atomic<int> polls{0};
            HWL_VERIFY_THROWS(run.prepare([&] { return ++polls >= 5; }), Cancelled,
                              "stopped while loading the data: nothing was started");
            QVERIFY(polls >= 5); // asked mid-load, not only before and after
            QVERIFY(run.wait(std::chrono::milliseconds(0)));
        }
        {
            Run run(c);
            run.stop();
            HWL_VERIFY_THROWS(run.start(), Cancelled, "stopped while loading");
        }
        QCOMPARE(ourSegments(), before);
    }

    void noSegmentOutlivesItsRun() {
        const int before = ourSegments();
        {
            ExperimentConfig c = teacherConfig();
            c.mode = "threads";
            c.workers = 2;
            c.epochs = 1000;
            Run run(c);
            run.start();
            QCOMPARE(ourSegments(), before + 1); // the telemetry segment
            // Let a step happen first: on a loaded machine stop() can
            // otherwise win the race against the workers' first step.
            QTRY_VERIFY_WITH_TIMEOUT(run.telemetry().worker(0).steps > 0, 30000);
            run.stop();
            run.wait();
            QCOMPARE(ourSegments(), before);              // unlinked as the run ended...
            QVERIFY(run.telemetry().worker(0).steps > 0); // ...still readable here
        }
        QCOMPARE(ourSegments(), before);
    }
};

QTEST_GUILESS_MAIN(TestTraining)
#include "tst_training.moc"
