// The GPU modes on a CUDA device (CTest label "gpu"). Where there is no
// device (or no CUDA backend in the build) every test reports SKIP with the
// reason, and CTest shows the test as skipped, never passed. With a device:
// the device step equals the CPU step on the same batch; CUDA graph replay
// equals eager launches; replicas stay bit-identical; the device's test
// evaluation equals the CPU's (MLP and embedding bag, several chunks); data-parallel with R
// replicas of batch b equals serial training with batch R*b; gpu-hogwild's
// racy updates lose some, atomic ones none; NCCL with one rank works; fork
// is refused once this process initialised CUDA.
#include "backend/backend.h"
#include "data/datasources.h"
#include "model/mlp.h"
#include "run/devices.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "util/errors.h"

#ifdef HWL_HAVE_CUDA
#include "strategy/devicestrategy.h"
#endif

#include "testutil.h"

#include <QTest>

#include <cmath>
#include <numeric>

using namespace hwl;
using namespace hwl::test;

namespace {

ExperimentConfig gpuConfig(const char* mode) {
    ExperimentConfig c;
    c.mode = mode;
    c.dataset = "teacher:4096x20:4:16";
    c.model = "mlp:20-32-4";
    c.epochs = 2;
    c.batch = 16;
    c.lr = 0.05;
    c.startMethod = StartMethod::Spawn;
    return c;
}

#ifdef HWL_HAVE_CUDA
struct Fixture {
    std::unique_ptr<Model> model = makeModel(parseModelSpec("mlp:20-32-16-4"));
    Dataset data = makeTeacher(512, 20, 4, 8, 3);
    std::vector<float> params;
    Fixture() {
        params.resize(std::size_t(model->layout().total()));
        model->initialize(params.data(), 7);
    }
    cuda::ReplicaSettings settings(int replicas, bool eager) const {
        cuda::ReplicaSettings s;
        s.mlp = mlpShape(*model);
        s.replicasPerGpu = replicas;
        s.batch = 16;
        s.sgd = {0.05f, 0.9f, 0.001f};
        s.eager = eager;
        return s;
    }
    cuda::HostData host() const { return hostData(data.view()); }
    /// Replica r's rows: positions r, r + R, ... of the file order.
    static std::vector<std::vector<std::int32_t>> strided(int replicas, int rows) {
        std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(replicas));
        for (int i = 0; i < rows; ++i)
            out[std::size_t(i % replicas)].push_back(i);
        return out;
    }
};
#endif

} // namespace

class TestGpu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const DeviceList list = listDevices();
        if (list.devices.empty())
            QSKIP(qPrintable("no CUDA device to test on: " +
                             QString::fromStdString(list.unavailable)));
        qInfo("%s", describeDevices(list).c_str());
    }

#ifdef HWL_HAVE_CUDA
    void deviceStepEqualsCpuStep() {
        Fixture f;
        auto gpu = cuda::ReplicaTrainer::create(f.settings(1, true), f.host());
        gpu->setParameters(f.params.data());
        gpu->setEpochRows(Fixture::strided(1, 16));
        gpu->enqueueSteps(0, 1, false);
        const float gpuLoss = gpu->finishSteps().at(0);
        std::vector<float> after(f.params.size());
        gpu->copyParameters(0, after.data());

        auto cpu = cpuBackend().makeKernel(*f.model, f.data.view(), {0.05f, 0.9f, 0.001f}, 0, 1);
        std::vector<std::int64_t> rows(16);
        std::iota(rows.begin(), rows.end(), 0);
        std::vector<float> cpuParams = f.params;
        const float cpuLoss = cpu->lossAndGradient(cpuParams.data(), rows.data(), 16);
        cpu->update(cpuParams.data(), UpdateAccess::Private);
        QVERIFY2(std::abs(gpuLoss - cpuLoss) <= 1e-5f * std::max(1.0f, cpuLoss),
                 qPrintable(QStringLiteral("%1 vs %2").arg(gpuLoss).arg(cpuLoss)));
        QVERIFY2(maxAbsDiff(after, cpuParams) < 1e-5,
                 qPrintable(QString::number(maxAbsDiff(after, cpuParams))));
    }

    void graphReplayEqualsEager() {
        Fixture f;
        std::vector<std::vector<float>> results;
        for (bool eager : {true, false}) {
            auto t = cuda::ReplicaTrainer::create(f.settings(2, eager), f.host());
            t->setParameters(f.params.data());
            t->setEpochRows(Fixture::strided(2, 500)); // 250 rows each: a short last batch
            t->enqueueSteps(0, 16, false);
            t->finishSteps();
            std::vector<float> p(f.params.size());
            t->copyParameters(1, p.data());
            results.push_back(p);
        }
        QCOMPARE(results[1], results[0]);
    }

    void replicasStayBitIdentical() {
        Fixture f;
        auto t = cuda::ReplicaTrainer::create(f.settings(4, false), f.host());
        t->setParameters(f.params.data());
        t->setEpochRows(Fixture::strided(4, 512));
        t->enqueueSteps(0, 8, false);
        t->finishSteps();
        std::vector<float> first(f.params.size()), other(f.params.size());
        t->copyParameters(0, first.data());
        QVERIFY(first != f.params);
        for (int r = 1; r < 4; ++r) {
            t->copyParameters(r, other.data());
            QCOMPARE(other, first);
        }
        for (double d : t->divergences())
            QCOMPARE(d, 0.0);
    }

    // The device's evaluation against the CPU's, over several chunks of
    // 4096 rows (the last one short): the MLP and the embedding bag.
    void deviceEvaluationEqualsCpu_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp:20-32-16-4";
        QTest::newRow("embedding bag") << "embedding-bag:300-8-4";
    }
    void deviceEvaluationEqualsCpu() {
        QFETCH(QString, model);
        const bool bag = model.startsWith("embedding");
        const auto m = makeModel(parseModelSpec(model.toStdString()));
        const Dataset test =
            bag ? makeSparseBow(9000, 300, 4, 10, 8) : makeTeacher(9000, 20, 4, 8, 3);
        std::vector<float> params(static_cast<std::size_t>(m->layout().total()));
        m->initialize(params.data(), 7);
        cuda::HogwildSettings s; // a holder of the parameters on the device
        s.bag = bag;
        if (bag)
            s.bagShape = bagShape(*m);
        else
            s.mlp = mlpShape(*m);
        s.blocks = 1;
        s.groups = 1;
        auto holder = cuda::HogwildTrainer::create(s, hostData(test.view()));
        holder->setParameters(params.data());
        const cuda::BagShape shape = bag ? bagShape(*m) : cuda::BagShape{};
        const auto evaluator = cuda::Evaluator::create(
            bag ? cuda::MlpShape{} : mlpShape(*m), bag ? &shape : nullptr, hostData(test.view()));
        const cuda::EvalTotals got = evaluator->evaluate(holder->deviceParameters());
        const EvalResult want = cpuBackend().evaluate(*m, params.data(), test.view());
        QCOMPARE(got.count, want.count);
        QVERIFY2(std::abs(got.lossSum - want.lossSum) <= 1e-5 * std::max(1.0, want.lossSum),
                 qPrintable(QStringLiteral("%1 vs %2").arg(got.lossSum).arg(want.lossSum)));
        QVERIFY(std::abs(double(got.correct - want.correct)) <= 2); // near ties may differ
    }

    void ncclWithOneRank() {
        const std::string why = cuda::ncclOneRankCheck();
        QVERIFY2(why.empty(), why.c_str());
    }
#endif

    void dataParallelEqualsSerialWithTheBigBatch() {
        ExperimentConfig c = gpuConfig("data-parallel");
        c.device = Device::Cuda;
        c.workers = 4;
        c.replicasPerGpu = 4;
        c.shuffle = false;
        c.testFraction = 0;
        const auto gpu = runToEnd(c);
        QCOMPARE(gpu->summary().state, RunState::Finished);
        const auto parallel = gpu->parameters();
        c.mode = "serial";
        c.device = Device::Cpu;
        c.workers = 1;
        c.replicasPerGpu = 1;
        c.batch = 64;
        const auto serial = runToEnd(c)->parameters();
        const double diff = maxAbsDiff(parallel, serial);
        QVERIFY2(diff < 1e-4, qPrintable(QString::number(diff)));
    }

    // A run's test figures come from the device, and equal the CPU's
    // evaluation of the parameters it exports.
    void runEvaluatesOnTheDevice() {
        ExperimentConfig c = gpuConfig("data-parallel");
        c.device = Device::Cuda;
        c.testFraction = 0.25;
        const auto run = runToEnd(c);
        const RunSummary s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QVERIFY(std::any_of(s.remarks.begin(), s.remarks.end(), [](const std::string& r) {
            return r.find("evaluated on the device") != std::string::npos;
        }));
        const DatasetSplit data = loadDataset(c.datasetSpec(), c.testFraction, c.seed);
        const auto model = makeModel(c.modelSpec());
        const auto params = run->parameters();
        const EvalResult cpu = cpuBackend().evaluate(*model, params.data(), data.test.view());
        QVERIFY2(std::abs(s.testLoss - cpu.meanLoss()) <= 1e-5,
                 qPrintable(QStringLiteral("%1 vs %2").arg(s.testLoss).arg(cpu.meanLoss())));
    }

    void gpuHogwildLosesUpdatesOnlyWhenRacy() {
        ExperimentConfig c = gpuConfig("gpu-hogwild");
        c.momentum = 0;
        c.model = "mlp:20-8-4"; // few weights: blocks write the same ones at once
        c.blocks = 2048;
        c.workers = 4;
        for (UpdateKind kind : {UpdateKind::Racy, UpdateKind::Atomic}) {
            c.update = kind;
            auto run = runToEnd(c);
            QCOMPARE(run->summary().state, RunState::Finished);
            std::uint64_t writes = 0, lost = 0;
            for (const auto& w : run->telemetry().workers()) {
                writes += w.updateWrites;
                lost += w.lostUpdates;
            }
            QVERIFY(writes > 0);
            if (kind == UpdateKind::Racy)
                QVERIFY2(lost > 0, "racy updates lost none");
            else
                QCOMPARE(lost, std::uint64_t(0));
        }
    }

    void forkIsRefusedAfterCudaInit() {
        ExperimentConfig c = gpuConfig("processes");
        c.startMethod = StartMethod::Fork;
        c.cudaBeforeFork = true;
        Run run(c);
        try {
            run.prepare();
            QFAIL("fork after CUDA was not refused");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("already initialised CUDA") != std::string::npos,
                     e.what());
        }
    }
};

int main(int argc, char** argv) {
    if (int code = 0; runWorkerRoleIfRequested(argc, argv, code))
        return code;
    TestGpu t;
    return QTest::qExec(&t, argc, argv);
}
#include "tst_gpu.moc"
