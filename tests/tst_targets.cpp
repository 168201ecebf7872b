// A target to train to (--target-accuracy, --target-loss): the run stops at
// the first evaluation that reaches it, in every CPU mode, and records where
// (training and wall seconds, samples, steps, epochs); one that is not
// reached runs its epochs and keeps the best figures; --train-past-target
// trains on; a run with no test set, or whose weights reach the target
// before training, is refused and says why; summary.json keeps it whole.
#include "io/runscompare.h"
#include "io/runstable.h"
#include "io/runsummaryfile.h"
#include "io/targetrace.h"
#include "run/run.h"
#include "telemetry/runsummary.h"
#include "util/errors.h"

#include "enginetestutil.h"
#include "testutil.h"
#include "workertestmain.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace hwl;
using hwl::test::runToEnd;
using hwl::test::startRefusal;
using hwl::test::teacherConfig;

namespace {

/// The teacher task: about 85% after its first epoch, 90% later.
ExperimentConfig targetConfig(const char* mode, int workers) {
    ExperimentConfig c = teacherConfig();
    c.mode = mode;
    c.workers = workers;
    c.epochs = 12;
    c.targetAccuracy = 80;
    return c;
}

/// What the command line writes into summary.json for `run`.
RunRecord recordOf(const Run& run) {
    const auto now = std::chrono::system_clock::now();
    return RunRecord{run.config(), run.config().mode, 0, run.summary(), {}, now, now, {}, {}};
}

} // namespace

class TestTargets : public QObject {
    Q_OBJECT

private slots:
    void stopsWhereTheTargetIsReached_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("workers");
        QTest::addColumn<QString>("transport");
        QTest::newRow("serial") << "serial" << 1 << "";
        QTest::newRow("threads") << "threads" << 2 << "";
        QTest::newRow("threads-locked") << "threads-locked" << 2 << "";
        QTest::newRow("processes") << "processes" << 2 << "";
        QTest::newRow("data-parallel threads") << "data-parallel" << 2 << "threads";
        QTest::newRow("data-parallel processes") << "data-parallel" << 2 << "processes";
    }
    void stopsWhereTheTargetIsReached() {
        QFETCH(QString, mode);
        QFETCH(int, workers);
        QFETCH(QString, transport);
        ExperimentConfig c = targetConfig(qPrintable(mode), workers);
        if (!transport.isEmpty()) {
            const auto parsed = parseTransport(transport.toStdString());
            QVERIFY(parsed);
            c.transport = *parsed;
        }
        const auto run = runToEnd(c);
        const RunSummary s = run->summary();
        QCOMPARE(s.state, RunState::Finished); // stopped by its target: finished, not stopped
        QVERIFY2(s.target.reached, s.target.outcomeText(s.epochsCompleted).c_str());
        QVERIFY2(s.epochsCompleted < c.epochs, qPrintable(QString::number(s.epochsCompleted)));
        QCOMPARE(s.target.epochs, s.epochsCompleted); // it stopped at that evaluation
        QVERIFY(100 * s.testAccuracy >= c.targetAccuracy);
        // Every worker parked at the gate: the samples and steps to the
        // target are the run's.
        QCOMPARE(s.target.samples, s.samples);
        QCOMPARE(s.target.steps, s.steps);
        QVERIFY(s.target.trainSeconds > 0 && s.target.trainSeconds <= s.trainSeconds * 1.0001);
        QVERIFY(s.target.wallSeconds >= s.target.trainSeconds &&
                s.target.wallSeconds <= s.wallSeconds);
        QCOMPARE(s.target.bestAccuracy, s.testAccuracy);
    }

    void aTargetNotReachedRunsItsEpochs() {
        ExperimentConfig c = targetConfig("threads", 2);
        c.epochs = 3;
        c.targetAccuracy = 99.9; // the teacher task stays near 90%
        const RunSummary s = runToEnd(c)->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 3);
        QVERIFY(!s.target.reached);
        QVERIFY(s.target.bestAccuracy >= s.testAccuracy && s.target.bestLoss <= s.testLoss);
        const std::string text = s.target.outcomeText(s.epochsCompleted);
        QVERIFY2(text.find("test accuracy 99.9% not reached in 3 epochs; best") == 0, text.c_str());
    }

    void aLossTargetAndTrainingPastIt() {
        ExperimentConfig c = targetConfig("serial", 1);
        c.epochs = 4;
        c.targetAccuracy = 0;
        c.targetLoss = 0.6;
        c.trainPastTarget = true;
        const RunSummary s = runToEnd(c)->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 4); // trained on
        QVERIFY(s.target.reached);
        QVERIFY2(s.target.epochs < 4, qPrintable(QString::number(s.target.epochs)));
        QVERIFY(s.target.samples < s.samples);
        QVERIFY(s.target.bestLoss <= 0.6);
        QVERIFY(s.target.outcomeText(4).find("test loss 0.6 reached at epoch") == 0);
        // The time as its two factors: the samples it took over their rate.
        TargetResult t;
        t.accuracy = 90;
        t.reached = true;
        t.epochs = 3;
        t.trainSeconds = 0.5;
        t.wallSeconds = 0.75;
        t.samples = 1000;
        t.steps = 10;
        QCOMPARE(QString::fromStdString(t.outcomeText(3)),
                 QString("test accuracy 90% reached at epoch 3, after 0.5 s of training (0.75 s "
                         "wall): 1000 samples (10 steps) at 2000 samples/s"));
    }

    void refusals() {
        ExperimentConfig c = targetConfig("serial", 1);
        c.testFraction = 0;
        QString why = startRefusal(c);
        QVERIFY2(why.startsWith("target-accuracy: the target is measured on the test set") &&
                     why.contains("--test-fraction"),
                 qPrintable(why));
        c = targetConfig("serial", 1);
        c.targetAccuracy = 5; // 4 classes: a quarter right before any training
        why = startRefusal(c);
        QVERIFY2(why.contains("the initial weights already reach test accuracy 5%") &&
                     why.contains("nothing to train to"),
                 qPrintable(why));
        c.targetAccuracy = 0;
        c.targetLoss = 1e5;
        QVERIFY2(startRefusal(c).startsWith("target-loss: the initial weights already reach"),
                 qPrintable(startRefusal(c)));
        // Out of range: the field table's refusal.
        c.targetLoss = 0;
        for (const double bad : {-1.0, 100.5, double(NAN)}) {
            c.targetAccuracy = bad;
            const auto issues = validateExperiment(c);
            QVERIFY(!issues.empty() && issues.front().field == "target-accuracy");
        }
    }

    void summaryJsonKeepsTheTarget() {
        ExperimentConfig c = targetConfig("threads", 2);
        const auto run = runToEnd(c);
        RunRecord record = recordOf(*run);
        const RunSummary back = runSummaryFromJson(runSummaryJson(record), "summary.json");
        const TargetResult& t = run->summary().target;
        QVERIFY(back.target.reached);
        QCOMPARE(back.target.accuracy, 80.0);
        QCOMPARE(back.target.loss, 0.0);
        QCOMPARE(back.target.epochs, t.epochs);
        QCOMPARE(back.target.samples, t.samples);
        QCOMPARE(back.target.steps, t.steps);
        QCOMPARE(back.target.trainSeconds, t.trainSeconds);
        QCOMPARE(float(back.target.bestAccuracy), float(t.bestAccuracy));
        // A run without one writes none.
        c.targetAccuracy = 0;
        const auto plain = runToEnd(c);
        QVERIFY(runSummaryJson(recordOf(*plain)).find("\"target\"") == std::string::npos);
        // Bad target figures are refused by name.
        std::string text = runSummaryJson(record);
        const auto at = text.find("\"reached\": true");
        QVERIFY(at != std::string::npos);
        text.replace(at, 15, "\"reached\": \"yes\"");
        try {
            runSummaryFromJson(text, "summary.json");
            QFAIL("a target.reached of \"yes\" was read");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("target.reached"), e.what());
        }
    }

    // The race over repeats (io/targetrace.h): places by the median seconds
    // to the target; about as soon as the first where the median lies within
    // the first's range, or within 10% where the first ran once; an entrant
    // that never reached it is last.
    void theRaceRanksByTheMedian() {
        auto entrant = [](const char* label, std::vector<double> seconds) {
            RaceEntrant e{label, {}};
            for (const double s : seconds) {
                RunSummary r;
                r.target.accuracy = 80;
                r.target.reached = s > 0;
                r.target.trainSeconds = s;
                r.target.samples = 1000;
                r.samplesPerSecond = 1000 / s;
                e.runs.push_back(r);
            }
            return e;
        };
        const auto places =
            raceToTarget({entrant("never", {0, 0, 0}), entrant("slow", {1.3, 2.0, 2.1}),
                          entrant("first", {1.0, 1.2, 1.4}), entrant("close", {1.1, 1.35, 3.0})});
        QCOMPARE(places.size(), std::size_t(4));
        QCOMPARE(places[0].label, std::string("first"));
        QCOMPARE(places[0].seconds.median, 1.2);
        QCOMPARE(places[0].seconds.lo, 1.0);
        QCOMPARE(places[0].seconds.hi, 1.4);
        QVERIFY(!places[0].aboutFirst);
        QCOMPARE(places[1].label, std::string("close"));
        QVERIFY(places[1].aboutFirst); // 1.35 within 1.0-1.4
        QCOMPARE(places[2].label, std::string("slow"));
        QVERIFY(!places[2].aboutFirst); // 2.0 beyond 1.4, though 1.3 is within
        QCOMPARE(places[3].label, std::string("never"));
        QVERIFY(!places[3].reached());
        QCOMPARE(places[3].runs, std::size_t(3));
        // One run each: no spread measured, kAboutEqual's 10%.
        const auto single = raceToTarget(
            {entrant("b", {1.09}), entrant("a", {1.0}), entrant("c", {1.2}), entrant("d", {0})});
        QCOMPARE(single[0].label, std::string("a"));
        QVERIFY(single[1].label == "b" && single[1].aboutFirst);
        QVERIFY(single[2].label == "c" && !single[2].aboutFirst);
        QVERIFY(single[3].label == "d" && !single[3].reached());
    }

    // Repeats as MLPerf treats them: the time to target is the median (and
    // mean ± sd) over the runs that reached it, with how many did; a run
    // that did not is counted, never dropped, and sorts last.
    void repeatsTellTheMedianAndHowManyReached() {
        std::vector<FolderRun> runs;
        const double seconds[] = {1.0, 3.0, NAN};
        for (int i = 0; i < 3; ++i) {
            ExperimentConfig c = targetConfig("threads", 2);
            c.seed = std::uint64_t(i + 1);
            TableRun row;
            row.label = "seed=" + std::to_string(i + 1);
            row.started = true;
            row.summary.state = RunState::Finished;
            row.summary.target.accuracy = 80;
            row.summary.target.reached = !std::isnan(seconds[i]);
            row.summary.target.trainSeconds = seconds[i];
            row.summary.target.samples = 1000;
            runs.push_back(folderRunOf(c, row));
        }
        RunsTable grouped = runsTable(runs, true);
        QVERIFY(grouped.grouped);
        const auto cell = [](const RunsTable& t, std::size_t row, const char* column) {
            const auto at = std::find(t.header.begin(), t.header.end(), column);
            return at == t.header.end()
                       ? QString("no column %1").arg(column)
                       : QString::fromStdString(t.cells[row][at - t.header.begin()]);
        };
        QCOMPARE(cell(grouped, 0, "target_seconds"),
                 QString("median 2, 2 ± 1.414 (2 of 3 reached)"));
        QCOMPARE(cell(grouped, 0, "target"), QString("1 not reached, 2 reached"));
        const std::string csv = formatRunsTable(grouped, TableFormat::Csv);
        QVERIFY2(csv.find("target_seconds_mean,target_seconds_sd,target_seconds_median") !=
                     std::string::npos,
                 csv.c_str());
        QVERIFY2(csv.find(",2,1.41421,2,") != std::string::npos, csv.c_str());
        // One row per run: the one that did not reach it is last, both ways.
        for (const bool descending : {false, true}) {
            RunsTable t = runsTable(runs, false);
            QVERIFY(sortRunsTable(t, "target_seconds", descending));
            QCOMPARE(cell(t, 2, "target"), QString("not reached"));
            QCOMPARE(cell(t, 0, "target_seconds"), QString(descending ? "3" : "1"));
        }
        // None reached: said in words, and no column of no figures.
        for (FolderRun& r : runs)
            r.run.summary.target.reached = false;
        QCOMPARE(cell(runsTable(runs, true), 0, "target"), QString("3 not reached"));
        QCOMPARE(cell(runsTable(runs, true), 0, "target_seconds"),
                 QString("no column target_seconds"));
    }
};

HWL_WORKER_TEST_MAIN(TestTargets)
#include "tst_targets.moc"
