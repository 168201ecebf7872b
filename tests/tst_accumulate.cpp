// Gradient accumulation (--accumulate K, optim/gradientsum.h): an update
// takes the mean gradient of K batches, which is the gradient of the K
// batches as one; so serial training with batches of b accumulated K times
// ends where batches of K*b do (dense and sparse models, with momentum), and
// N data-parallel replicas accumulating K batches of b, with one allreduce
// per update (DDP's no_sync pattern), end where serial batches of N*K*b do,
// over threads and processes. An epoch's last, shorter group is one update;
// Hogwild workers accumulate too; gpu-hogwild refuses it, data-parallel on
// cuda takes it.
#include "config/experimentconfig.h"
#include "enginetestutil.h"
#include "run/run.h"
#include "strategy/catalog.h"

#include <QtTest>

using namespace hwl;
using namespace hwl::test;

namespace {
ExperimentConfig serial(const char* model, const char* dataset) {
    ExperimentConfig c;
    c.model = model;
    c.dataset = dataset;
    c.mode = "serial";
    c.workers = 1;
    c.epochs = 2;
    c.batch = 32;
    c.momentum = 0.5;
    c.testFraction = 0;
    c.shuffle = false;
    return c;
}

void compareWithTheBigBatch(ExperimentConfig big, ExperimentConfig accumulated) {
    const auto want = runToEnd(big)->parameters();
    const auto got = runToEnd(accumulated)->parameters();
    QCOMPARE(got.size(), want.size());
    const double diff = maxAbsDiff(got, want);
    QVERIFY2(diff < 1e-5, qPrintable(QString::number(diff)));
    big.batch = accumulated.batch; // and accumulating made the difference
    QVERIFY(maxAbsDiff(runToEnd(big)->parameters(), want) > 1e-4);
}
} // namespace

class TestAccumulate : public QObject {
    Q_OBJECT

private slots:
    void serialEqualsTheBigBatch_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<double>("lr");
        QTest::newRow("mlp") << "mlp:20-16-4"
                             << "teacher:2048x20:4:16" << 0.05;
        QTest::newRow("embedding bag (sparse)") << "embedding-bag:300-8-4"
                                                << "sparse-bow:2048x300:4:8" << 0.5;
    }
    void serialEqualsTheBigBatch() {
        QFETCH(QString, model);
        QFETCH(QString, dataset);
        QFETCH(double, lr);
        ExperimentConfig big = serial(model.toUtf8().constData(), dataset.toUtf8().constData());
        big.lr = lr;
        ExperimentConfig accumulated = big;
        accumulated.batch = 16;
        accumulated.accumulate = 2;
        compareWithTheBigBatch(big, accumulated);
    }

    void dataParallelEqualsSerialWithNKb_data() {
        QTest::addColumn<int>("transport");
        QTest::newRow("threads") << int(Transport::Threads);
        QTest::newRow("processes") << int(Transport::Processes);
    }
    void dataParallelEqualsSerialWithNKb() {
        QFETCH(int, transport);
        const ExperimentConfig big = serial("mlp:20-16-4", "teacher:2048x20:4:16");
        ExperimentConfig dp = big;
        dp.mode = "data-parallel";
        dp.transport = Transport(transport);
        dp.startMethod = StartMethod::Fork;
        dp.workers = 2;
        dp.batch = 8;
        dp.accumulate = 2;
        compareWithTheBigBatch(big, dp);
    }

    // 2048 rows in groups of 3 x 16: 42 full updates and one of 2 batches.
    void anEpochsLastGroupIsOneUpdate() {
        ExperimentConfig c = serial("mlp:20-16-4", "teacher:2048x20:4:16");
        c.batch = 16;
        c.accumulate = 3;
        const auto run = runToEnd(c);
        const RunSummary s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.steps, std::uint64_t(2 * 43));
        QCOMPARE(s.samples, std::uint64_t(2 * 2048));
    }

    // Hogwild workers accumulate on their own: 4 batches per update each.
    void hogwildWorkersAccumulate() {
        ExperimentConfig c = serial("mlp:20-16-4", "teacher:2048x20:4:16");
        c.mode = "threads";
        c.workers = 2;
        c.batch = 16;
        c.accumulate = 4;
        c.lr = 0.2;
        c.testFraction = 0.1;
        const RunSummary s = runToEnd(c)->summary();
        QCOMPARE(s.state, RunState::Finished);
        // 1843 training rows shard to 922 and 921: 15 updates of 64 each, per epoch.
        QCOMPARE(s.steps, std::uint64_t(2 * 2 * 15));
        QVERIFY2(s.testAccuracy > 0.7, qPrintable(QString::number(s.testAccuracy))); // 86% here
    }

    // gpu-hogwild refuses it (its blocks update after every batch);
    // data-parallel on cuda takes it (tst_gpu checks it on a GPU machine).
    void gpuHogwildRefusesItDataParallelTakesIt() {
        ExperimentConfig c = serial("mlp:20-16-4", "teacher:2048x20:4:16");
        c.mode = "gpu-hogwild";
        c.momentum = 0;
        c.accumulate = 2;
        if (const std::string why = whyGpuModeIsNotHere(c); !why.empty())
            QSKIP(why.c_str());
        bool refused = false;
        for (const ConfigIssue& i : validateExperiment(c))
            refused = refused || i.field == "accumulate";
        QVERIFY(refused);
        c.mode = "data-parallel";
        c.device = Device::Cuda;
        c.workers = 2;
        for (const ConfigIssue& i : validateExperiment(c))
            QVERIFY2(i.field != "accumulate", i.message.c_str());
        c.accumulate = 0;
        c.mode = "serial";
        c.device = Device::Cpu;
        c.workers = 1;
        QCOMPARE(validateExperiment(c).size(), std::size_t(1)); // 0: out of 1..1024
    }
};

QTEST_GUILESS_MAIN(TestAccumulate)
#include "strategy/validation.h"
#include "tst_accumulate.moc"
