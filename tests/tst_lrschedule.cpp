// Learning-rate schedules (optim/lrschedule.h): the rate of every step of
// six schedules equals the one PyTorch's own schedulers give
// (tests/data/lrschedule.csv, made by make_lrschedule.py with torch), what
// is not a schedule is refused with the accepted forms, the GPU modes
// refuse a schedule they cannot follow, and the steps really train at the
// scheduled rate: the epochs report it, a long warm-up barely moves the
// weights, and data-parallel replicas follow it in lockstep (their weights
// those of serial training with the big batch, under the same schedule).
#include "config/experimentconfig.h"
#include "enginetestutil.h"
#include "io/metricslog.h"
#include "optim/lrschedule.h"
#include "run/run.h"
#include "strategy/catalog.h"
#include "testpaths.h"
#include "util/errors.h"

#include <QFile>
#include <QtTest>

#include <cmath>

using namespace hwl;
using namespace hwl::test;

namespace {
ExperimentConfig small() {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:2048x20:4:16";
    c.mode = "serial";
    c.workers = 1;
    c.epochs = 3;
    c.batch = 32;
    c.lr = 0.1;
    c.momentum = 0.5;
    c.testFraction = 0;
    c.shuffle = false;
    return c;
}
} // namespace

class TestLrSchedule : public QObject {
    Q_OBJECT

private slots:
    // Every step of every case, as torch.optim.lr_scheduler computes it
    // (its recursive forms round differently in the last bits: 1e-12).
    void matchesPyTorchsTable() {
        QFile file(QString(kSourceDir) + "/tests/data/lrschedule.csv");
        QVERIFY(file.open(QIODevice::ReadOnly));
        int rows = 0;
        QSet<QString> cases;
        for (const QByteArray& raw : file.readAll().split('\n')) {
            const QString line = QString::fromUtf8(raw).trimmed();
            if (line.isEmpty() || line.startsWith('#') || line.startsWith("case,"))
                continue;
            const QStringList f = line.split(',');
            QCOMPARE(f.size(), 8);
            LrSchedule s = parseLrSchedule(f[1].toStdString());
            s.base = f[2].toDouble();
            s.epochs = f[3].toInt();
            s.warmupSteps = f[4].toInt();
            const double want = f[7].toDouble();
            const double got = s.rate(f[5].toInt(), f[6].toULongLong());
            QVERIFY2(std::fabs(got - want) <= 1e-12 * want,
                     qPrintable(line + " got " + QString::number(got, 'g', 17)));
            cases.insert(f[0]);
            ++rows;
        }
        QCOMPARE(cases.size(), 6);
        QVERIFY(rows > 90);
    }

    void refusals() {
        for (const char* spec : {"", "linear", "step", "step:2", "step:0:0.5", "step:x:0.5",
                                 "step:2:0", "step:2:1.5", "step:2:nan", "cosine:3"}) {
            QString why;
            try {
                parseLrSchedule(spec);
            } catch (const InputError& e) {
                why = e.what();
            }
            QVERIFY2(why.startsWith(QString("lr-schedule: \"%1\" is not valid: ").arg(spec)) &&
                         why.contains("Accepted forms: constant, step:EPOCHS:GAMMA"),
                     qPrintable(QString(spec) + " -> " + why));
        }
        QCOMPARE(describeLrSchedule(parseLrSchedule("step:10:0.5")), std::string("step:10:0.5"));
        ExperimentConfig c = small();
        c.lrSchedule = "steps:1:0.5";
        const auto issues = validateExperiment(c);
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues[0].field, std::string("lr-schedule"));
    }

    // gpu-hogwild's blocks step at one rate through an epoch's kernel: a
    // warm-up is refused before the run, a cosine schedule (epoch by epoch)
    // taken. Data-parallel on cuda takes both (each step's rate goes to the
    // device before the step; tst_gpu checks it on a GPU machine).
    void gpuHogwildRefusesAWarmUpDataParallelTakesIt() {
        ExperimentConfig c = small();
        c.mode = "gpu-hogwild";
        c.momentum = 0;
        c.workers = 2;
        c.warmupSteps = 10;
        if (const std::string why = whyGpuModeIsNotHere(c); !why.empty())
            QSKIP(why.c_str());
        bool refused = false;
        for (const ConfigIssue& i : validateExperiment(c))
            refused =
                refused || (i.field == "warmup-steps" &&
                            i.message.find("run each epoch at one rate") != std::string::npos);
        QVERIFY(refused);
        c.warmupSteps = 0;
        c.lrSchedule = "cosine";
        for (const ConfigIssue& i : validateExperiment(c))
            QVERIFY2(i.field != "lr-schedule", i.message.c_str());
        c.warmupSteps = 10;
        c.mode = "data-parallel";
        c.device = Device::Cuda;
        c.lrSchedule = "cosine";
        for (const ConfigIssue& i : validateExperiment(c))
            QVERIFY2(i.field != "warmup-steps" && i.field != "lr-schedule", i.message.c_str());
    }

    // The epochs report the rate their last step took: step:1:0.5 halves it.
    void epochsReportTheRate() {
        ExperimentConfig c = small();
        c.lrSchedule = "step:1:0.5";
        MetricsLog log;
        const auto run = runToEnd(c, [&log](Run& r) { log.drain(r.telemetry()); });
        QCOMPARE(run->summary().state, RunState::Finished);
        std::vector<float> rates;
        log.forEach([&](const Sample& s) {
            if (s.kind == Sample::EpochEnd)
                rates.push_back(s.lr);
        });
        QCOMPARE(rates, (std::vector<float>{0.1f, 0.05f, 0.025f}));
    }

    // A warm-up far longer than the run keeps every rate near 0: the weights
    // move a millionth of what a constant rate moves them.
    void aLongWarmUpBarelyMoves() {
        ExperimentConfig c = small();
        c.epochs = 1;
        auto start = std::make_unique<Run>(c);
        start->prepare();
        const std::vector<float> initial = start->parameters();
        const auto plain = runToEnd(c)->parameters();
        c.warmupSteps = 1 << 30;
        const auto warm = runToEnd(c)->parameters();
        const double moved = maxAbsDiff(plain, initial), barely = maxAbsDiff(warm, initial);
        QVERIFY2(moved > 1e-3 && barely < moved * 1e-6,
                 qPrintable(QString("%1 constant, %2 warming up").arg(moved).arg(barely)));
    }

    // Data-parallel replicas take the same rate at the same step: 2 replicas
    // of batch 16 end where serial batch 32 does under the same schedule.
    void dataParallelFollowsInLockstep() {
        ExperimentConfig c = small();
        c.lrSchedule = "cosine";
        c.warmupSteps = 20;
        const auto serial = runToEnd(c)->parameters();
        c.mode = "data-parallel";
        c.workers = 2;
        c.batch = 16;
        const auto parallel = runToEnd(c)->parameters();
        QVERIFY2(maxAbsDiff(parallel, serial) < 1e-5,
                 qPrintable(QString::number(maxAbsDiff(parallel, serial))));
        c.lrSchedule = "constant"; // and the schedule made a difference
        c.warmupSteps = 0;
        QVERIFY(maxAbsDiff(runToEnd(c)->parameters(), serial) > 1e-3);
    }
};

QTEST_GUILESS_MAIN(TestLrSchedule)
#include "strategy/validation.h"
#include "tst_lrschedule.moc"
