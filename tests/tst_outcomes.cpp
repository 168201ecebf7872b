// What a run learned, judged when it ends (telemetry/runsummary.h's
// judgeLearning): a loss that ran away but stayed finite is diverged (a
// Fashion-MNIST run at lr 50 read as a green "Finished" at 10% and a test
// loss of 111.7: issue 49), random labels are at chance, a sane run
// learned from the same start; and the rule's edges on figures alone.
#include "run/run.h"
#include "telemetry/runsummary.h"

#include "testutil.h"

#include <QTest>

#include <cmath>

using namespace hwl;
using hwl::test::teacherConfig;

class TestOutcomes : public QObject {
    Q_OBJECT

private slots:
    void aFiniteBlowUpIsCalledDiverged() {
        // Regression (issue 49): Fashion-MNIST at lr 50 ended green at 10%
        // with test loss 111.7, only a NaN being called diverged. A loss that
        // ends well above where the model started is diverged, finite or not.
        ExperimentConfig c = teacherConfig();
        c.lr = 6; // the loss ends at 162.6 (at 8 and above it becomes NaN)
        c.epochs = 2;
        auto run = hwl::test::runToEnd(c);
        const auto s = run->summary();
        QCOMPARE(s.state, RunState::Finished); // the arithmetic stayed finite
        QVERIFY2(std::isfinite(s.testLoss) && s.testLoss > 1.25 * s.startLoss,
                 qPrintable(QStringLiteral("%1 from %2").arg(s.testLoss).arg(s.startLoss)));
        QCOMPARE(s.outcome, LearningOutcome::Diverged);
        QVERIFY2(s.outcomeReason.find("above the") != std::string::npos, s.outcomeReason.c_str());
        // The same run at a sane rate learns, from the same start.
        c.lr = 0.05;
        const auto sane = hwl::test::runToEnd(c)->summary();
        QCOMPARE(sane.outcome, LearningOutcome::Learned);
        QCOMPARE(sane.startLoss, s.startLoss);
        QVERIFY(sane.testLoss < sane.startLoss);
    }

    void randomLabelsAreAtChance() {
        ExperimentConfig c = teacherConfig();
        c.dataset = "random:4000x20:4";
        c.epochs = 3;
        const auto s = hwl::test::runToEnd(c)->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.outcome, LearningOutcome::AtChance);
        QVERIFY(s.chanceAccuracy >= 0.25 && s.chanceAccuracy < 0.35); // the largest of 4 classes
        QCOMPARE(s.testRows, std::int64_t(800));
        QVERIFY2(s.outcomeReason.find("most common class") != std::string::npos,
                 s.outcomeReason.c_str());
    }

    void learningOutcomeRule() {
        // judgeLearning's edges, on figures alone.
        RunSummary s;
        s.state = RunState::Finished;
        s.epochsCompleted = 2;
        s.evaluated = true;
        s.startLoss = 2.0;
        s.testRows = 10000;
        s.chanceAccuracy = 0.1;
        const auto judged = [&](double loss, double accuracy) {
            s.testLoss = loss;
            s.testAccuracy = accuracy;
            judgeLearning(s);
            return s.outcome;
        };
        QCOMPARE(judged(0.5, 0.9), LearningOutcome::Learned);
        QCOMPARE(judged(2.49, 0.9), LearningOutcome::Learned);   // under 1.25 x the start
        QCOMPARE(judged(2.51, 0.9), LearningOutcome::Diverged);  // over it
        QCOMPARE(judged(NAN, 0.9), LearningOutcome::Diverged);   // not finite
        QCOMPARE(judged(1.9, 0.109), LearningOutcome::AtChance); // within 1 point of chance
        QCOMPARE(judged(1.9, 0.115), LearningOutcome::Learned);
        QCOMPARE(judged(98.4, 0.1), LearningOutcome::Diverged); // both: diverged says more
        s.startLoss = 0.01; // near zero: a rise of 0.05 at least
        QCOMPARE(judged(0.05, 0.9), LearningOutcome::Learned);
        QCOMPARE(judged(0.07, 0.9), LearningOutcome::Diverged);
        s.evaluated = false; // no test set: the training loss, no chance band
        s.trainLoss = 0.001;
        QCOMPARE(judged(NAN, NAN), LearningOutcome::Learned);
        s.state = RunState::Failed;
        QCOMPARE(judged(0.5, 0.9), LearningOutcome::NotJudged);
        s.state = RunState::Stopped;
        s.epochsCompleted = 0;
        QCOMPARE(judged(0.5, 0.9), LearningOutcome::NotJudged);
    }
};

QTEST_GUILESS_MAIN(TestOutcomes)
#include "tst_outcomes.moc"
