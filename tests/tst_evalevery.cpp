// Evaluations inside an epoch (--eval-every N): every N steps of each worker
// the workers wait while the test set is evaluated, as at an epoch's end, in
// every CPU mode; the evaluation changes nothing the workers compute; a
// worker with a longer slice gates alone; a target is met between epoch ends
// and said so ("during epoch"), in summary.json and metrics.csv too; a run
// with no test set, with more evaluations in an epoch than a run holds, or
// of a GPU mode is refused and says why.
#include "io/metricslog.h"
#include "io/runsummaryfile.h"
#include "run/run.h"
#include "strategy/validation.h"
#include "telemetry/runsummary.h"
#include "util/errors.h"

#include "enginetestutil.h"
#include "testutil.h"
#include "workertestmain.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <vector>

using namespace hwl;
using hwl::test::runToEnd;
using hwl::test::startRefusal;
using hwl::test::teacherConfig;

namespace {

/// The teacher task (6400 training rows) for 2 epochs of `mode`.
ExperimentConfig evalConfig(const char* mode, int workers, int evalEvery) {
    ExperimentConfig c = teacherConfig();
    c.mode = mode;
    c.workers = workers;
    c.epochs = 2;
    c.evalEvery = evalEvery;
    return c;
}

/// Runs `c` to its end and returns its evaluations, in order.
std::vector<Sample> evaluationsOf(const ExperimentConfig& c, RunSummary* summary = nullptr,
                                  MetricsLog* keep = nullptr) {
    MetricsLog local;
    MetricsLog& log = keep ? *keep : local;
    const auto run = runToEnd(c, [&](Run& r) { log.drain(r.telemetry()); });
    if (summary)
        *summary = run->summary();
    std::vector<Sample> evals;
    log.forEach([&](const Sample& s) {
        if (s.kind == Sample::Eval)
            evals.push_back(s);
    });
    return evals;
}

} // namespace

class TestEvalEvery : public QObject {
    Q_OBJECT

private slots:
    void evaluatesInsideEveryEpoch_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("workers");
        QTest::addColumn<QString>("transport");
        QTest::addColumn<bool>("share");
        QTest::newRow("serial") << "serial" << 1 << "" << true;
        QTest::newRow("threads") << "threads" << 2 << "" << true;
        QTest::newRow("threads-locked") << "threads-locked" << 2 << "" << true;
        QTest::newRow("processes") << "processes" << 2 << "" << true;
        QTest::newRow("processes, not shared") << "processes" << 2 << "" << false;
        QTest::newRow("data-parallel threads") << "data-parallel" << 2 << "threads" << true;
        QTest::newRow("data-parallel processes") << "data-parallel" << 2 << "processes" << true;
    }
    void evaluatesInsideEveryEpoch() {
        QFETCH(QString, mode);
        QFETCH(int, workers);
        QFETCH(QString, transport);
        QFETCH(bool, share);
        ExperimentConfig c = evalConfig(qPrintable(mode), workers, 30);
        c.share = share;
        if (!transport.isEmpty())
            c.transport = *parseTransport(transport.toStdString());
        RunSummary s;
        const std::vector<Sample> evals = evaluationsOf(c, &s);
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 2);
        // 6400 rows in steps of 32: each worker's share of an epoch, and a
        // gate after every 30 of its steps but its last.
        const int steps = 6400 / 32 / workers;
        const int perEpoch = 1 + (steps - 1) / 30;
        QCOMPARE(int(evals.size()), 2 * perEpoch);
        for (std::size_t i = 0; i < evals.size(); ++i) {
            const int k = int(i) % perEpoch + 1; // the k-th of its epoch
            QCOMPARE(evals[i].epoch, std::uint32_t(i) / std::uint32_t(perEpoch) + 1);
            // Every worker waited at the gate: all of their steps, exactly.
            const std::uint64_t inEpoch =
                k < perEpoch ? std::uint64_t(k * 30 * workers) : std::uint64_t(steps * workers);
            QCOMPARE(evals[i].step,
                     (evals[i].epoch - 1) * std::uint64_t(steps * workers) + inEpoch);
            QCOMPARE(evals[i].samples, evals[i].step * 32);
            QVERIFY(evals[i].accuracy > 0 && evals[i].loss > 0);
        }
        QCOMPARE(evals.back().loss, float(s.testLoss));
    }

    // The evaluations read the parameters while every worker waits: what
    // serial and data-parallel compute (deterministic) is the same bit for
    // bit with and without them.
    void evaluatingChangesNothingTrained_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("workers");
        QTest::newRow("serial") << "serial" << 1;
        QTest::newRow("data-parallel") << "data-parallel" << 2;
    }
    void evaluatingChangesNothingTrained() {
        QFETCH(QString, mode);
        QFETCH(int, workers);
        const ExperimentConfig inside = evalConfig(qPrintable(mode), workers, 7);
        ExperimentConfig ends = inside;
        ends.evalEvery = 0;
        const auto a = runToEnd(inside), b = runToEnd(ends);
        QCOMPARE(a->summary().testLoss, b->summary().testLoss);
        QCOMPARE(a->summary().trainLoss, b->summary().trainLoss);
        QCOMPARE(a->parameters(), b->parameters());
    }

    // Worker 0's slice is one row longer (6400 rows over 3): with batches of
    // 2133 it takes two steps an epoch, the others one. It gates alone after
    // its first while the others wait at the epoch's end, and nothing hangs.
    void aLongerSliceGatesAlone() {
        ExperimentConfig c = evalConfig("threads", 3, 1);
        c.batch = 2133;
        c.lr = 0.01;
        RunSummary s;
        const std::vector<Sample> evals = evaluationsOf(c, &s);
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(int(evals.size()), 4); // per epoch: inside (worker 0's), then the end
        QCOMPARE(evals[0].epoch, 1u);
        QCOMPARE(evals[0].step, 3u); // every worker's first step
        QCOMPARE(evals[1].step, 4u); // worker 0's second: the epoch's end
        QCOMPARE(evals[1].samples, 6400u);
        QCOMPARE(evals[3].samples, 12800u);
    }

    void aTargetMetInsideAnEpoch() {
        ExperimentConfig c = evalConfig("threads", 2, 5);
        c.epochs = 10;
        c.targetAccuracy = 80;
        RunSummary s;
        MetricsLog log;
        const std::vector<Sample> evals = evaluationsOf(c, &s, &log);
        QVERIFY2(s.target.reached, s.target.outcomeText(s.epochsCompleted).c_str());
        QCOMPARE(s.state, RunState::Finished);
        // The teacher task reaches 80% within its first epoch: between ends.
        QVERIFY(s.target.duringEpoch);
        QCOMPARE(s.target.epochs, 1);
        QCOMPARE(s.epochsCompleted, 0);
        QCOMPARE(s.target.samples, s.samples); // stopped right there
        QCOMPARE(s.target.samples, evals.back().samples);
        QVERIFY(100 * double(evals.back().accuracy) >= 80);
        for (std::size_t i = 0; i + 1 < evals.size(); ++i)
            QVERIFY(100 * double(evals[i].accuracy) < 80);
        const std::string text = s.target.outcomeText(s.epochsCompleted);
        QVERIFY2(text.find("test accuracy 80% reached during epoch 1,") == 0, text.c_str());
        // summary.json keeps "during", and a file without it reads as at the end.
        const auto now = std::chrono::system_clock::now();
        const RunRecord record{c, c.mode, 0, s, {}, now, now, {}, {}};
        std::string json = runSummaryJson(record);
        QVERIFY2(json.find("\"during_epoch\": true") != std::string::npos, json.c_str());
        QVERIFY(runSummaryFromJson(json, "summary.json").target.duringEpoch);
        json.replace(json.find("\"during_epoch\": true"), 20, "\"during_epoch\": 1");
        try {
            runSummaryFromJson(json, "summary.json");
            QFAIL("a target.during_epoch of 1 was read");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("target.during_epoch"), e.what());
        }
        // metrics.csv: the target row follows the evaluation that reached it.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string file = dir.filePath("metrics.csv").toStdString();
        log.writeCsv(file, {}, &s.target);
        const QStringList rows = QString::fromUtf8(hwl::test::readBytes(file)).split('\n');
        const auto target = std::find_if(rows.begin(), rows.end(),
                                         [](const QString& r) { return r.contains(",target,"); });
        QVERIFY(target != rows.end() && target != rows.begin());
        QVERIFY2((target - 1)->contains(QString(",%1,").arg(s.target.samples)) &&
                     (target - 1)->contains(",eval,"),
                 qPrintable(*(target - 1)));
    }

    void refusals() {
        ExperimentConfig c = evalConfig("serial", 1, 10);
        c.testFraction = 0;
        QString why = startRefusal(c);
        QVERIFY2(why.startsWith("eval-every: there is no test set to evaluate") &&
                     why.contains("--test-fraction"),
                 qPrintable(why));
        // 70000 rows of batch 1: an evaluation after every step is more than a run holds.
        c = evalConfig("serial", 1, 1);
        c.dataset = "random:70000x4:2";
        c.model = "mlp:4-4-2";
        c.testFraction = 0.1;
        c.batch = 1;
        why = startRefusal(c);
        QVERIFY2(why.startsWith("eval-every: 1 steps make 62999 evaluations in each epoch of "
                                "63000 steps, more than the 32766") &&
                     why.contains("set --eval-every 2 or more"),
                 qPrintable(why));
        // The GPU modes evaluate on the device at epoch ends: the field table
        // leaves them out whatever this build has, and where it validates
        // gpu-hogwild (a build with CUDA), the field is refused there by name.
        const std::string modes = fieldModesText(*findField("eval-every"));
        QVERIFY2(modes.find("serial") != std::string::npos &&
                     modes.find("processes") != std::string::npos &&
                     modes.find("gpu-hogwild") == std::string::npos,
                 modes.c_str());
        c = evalConfig("gpu-hogwild", 1, 10);
        if (hwl::test::whyGpuModeIsNotHere(c).empty()) {
            bool named = false;
            for (const ConfigIssue& issue : validateExperiment(c))
                named = named || (issue.field == "eval-every" &&
                                  issue.message.find("applies to mode") != std::string::npos);
            QVERIFY(named);
        }
        // Out of range.
        c = evalConfig("serial", 1, -1);
        const auto issues = validateExperiment(c);
        QVERIFY(!issues.empty() && issues.front().field == "eval-every");
    }
};

HWL_WORKER_TEST_MAIN(TestEvalEvery)
#include "tst_evalevery.moc"
