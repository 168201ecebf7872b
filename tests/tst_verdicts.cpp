// The verdicts' words, on summaries alone: a comparison's winner and by how
// much (and no winner within the spread), the lost-update advice following
// the pace, a run whose loss ran away called diverged whether it ended in a
// NaN or finite, a run at chance called so, counts with the locale's
// separators.
#include "guitestmain.h"
#include "strategy/catalog.h"
#include "teaching/comparisonverdict.h"
#include "teaching/verdict.h"
#include "testutil.h"

#include <QLocale>
#include <QTest>

using namespace hwl;
using namespace hwl::ui;

namespace {
/// English number formatting for the length of a test ("4,223,805").
struct EnglishNumbers {
    QLocale saved;
    EnglishNumbers() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    ~EnglishNumbers() { QLocale::setDefault(saved); }
};

ComparedRow comparedRow(const char* label, double rate, double accuracy, double seconds) {
    ComparedRow r;
    r.label = label;
    r.summary.state = hwl::RunState::Finished;
    r.summary.samplesPerSecond = rate;
    r.summary.evaluated = accuracy >= 0;
    r.summary.testAccuracy = accuracy;
    r.summary.trainSeconds = seconds;
    return r;
}

} // namespace

class TestVerdicts : public QObject {
    Q_OBJECT

private slots:
    void comparisonVerdictSaysWhoWonByHowMuch() {
        EnglishNumbers english;
        ComparisonRecord c;
        c.title = "Hogwild vs locked";
        c.figure = hwl::ComparedFigure::Throughput;
        c.planned = 2;
        c.rows = {comparedRow("locked", 1410000, 0.998, 12.5),
                  comparedRow("hogwild", 1692000, 0.998, 10.4)};
        Verdict v = comparisonVerdict(c);
        QCOMPARE(v.kind, Verdict::Fine);
        QCOMPARE(v.title, QStringLiteral("Hogwild vs locked: 2 runs side by side"));
        QCOMPARE(v.body, QStringLiteral("hogwild ran 20% more samples per second than locked. "
                                        "The throughput chart shows every run."));
        QCOMPARE(v.table[1], (QStringList{"locked", "1,410,000", "99.80%", "12.50"}));
        // A gap within the run-to-run spread is not called a win.
        c.rows = {comparedRow("locked", 2577140, 0.998, 12.5),
                  comparedRow("hogwild", 2591750, 0.998, 10.4)};
        v = comparisonVerdict(c);
        QVERIFY2(v.body.startsWith("hogwild and locked ran about as many samples per second: "
                                   "within 10%, the spread between repeated runs, not a win."),
                 qPrintable(v.body));
        QVERIFY(!v.body.contains("more samples per second"));

        c.figure = hwl::ComparedFigure::Divergence;
        c.rows = {comparedRow("data-parallel", 304000, 0.81, 6),
                  comparedRow("hogwild", 264000, 0.81, 7)};
        c.rows[0].meanDivergence = 0;
        c.rows[0].summary.divergence = {0, 0};
        c.rows[1].meanDivergence = 0.0123;
        c.rows[1].summary.divergence = {0.01, 0.02};
        v = comparisonVerdict(c);
        QVERIFY2(v.body.startsWith("data-parallel's divergence was 0 all run long, against a "
                                   "mean of 0.0123 for hogwild."),
                 qPrintable(v.body));
        QCOMPARE(v.table[0].back(), QStringLiteral("divergence, final / mean"));
        QCOMPARE(v.table[2].back(), QStringLiteral("0.0150 / 0.0123"));

        c.title = "Start methods";
        c.figure = hwl::ComparedFigure::StartUp;
        c.planned = 3;
        c.rows = {comparedRow("fork", 1e5, -1, 3), comparedRow("spawn", 1e5, -1, 3),
                  comparedRow("forkserver", 1e5, -1, 3)};
        const std::vector<double> startups[] = {{0.010, 0.035}, {0.150, 0.580}, {0.012, 0.040}};
        for (int i = 0; i < 3; ++i) {
            c.rows[i].processes = true;
            c.rows[i].summary.startupSeconds = startups[i];
        }
        v = comparisonVerdict(c);
        QCOMPARE(v.body, QStringLiteral("fork started its workers soonest: all of them took their "
                                        "first step within 35.0 ms of launch, against 40.0 ms for "
                                        "forkserver (14% longer), 580 ms for spawn (16.6 times as "
                                        "long)."));
        QCOMPARE(v.table[0].back(), QStringLiteral("start-up ms, min–max"));
        QCOMPARE(v.table[2].back(), QStringLiteral("150–580"));
        QCOMPARE(v.table[1][2], QStringLiteral("–")); // not evaluated

        // A tie names no winner.
        c.rows[0].summary.startupSeconds = c.rows[1].summary.startupSeconds = {0.02};
        c.rows[2].summary.startupSeconds = {0.01, 0.02};
        QCOMPARE(comparisonVerdict(c).body,
                 QStringLiteral("fork, spawn and forkserver started their workers as soon: all "
                                "within 20.0 ms of launch."));

        // Stopped after one run: said, and nothing to set side by side.
        c.rows.resize(1);
        c.rows[0].summary.state = hwl::RunState::Stopped;
        v = comparisonVerdict(c);
        QCOMPARE(v.kind, Verdict::Finding);
        QCOMPARE(v.title, QStringLiteral("Start methods: 1 of 3 runs, side by side (stopped)"));
        QVERIFY(v.body.startsWith("Fewer than two runs measured"));
        QCOMPARE(v.table[0][1], QStringLiteral("result"));
        QCOMPARE(v.table[1][1], QStringLiteral("stopped"));
    }

    void lostUpdatesVerdictFollowsThePace() {
        EnglishNumbers english;
        ExperimentConfig c;
        c.mode = "threads";
        c.workers = 2;
        c.lostUpdates = true;
        hwl::RunSummary s;
        s.state = hwl::RunState::Finished;
        s.epochsCompleted = 3000;
        s.samplesPerSecond = 1475729.4;
        s.updateWrites = {100000000, 98375000};
        s.lostUpdates = {2000000, 2223805};
        const Verdict full = verdictOf(c, s, 0);
        QCOMPARE(full.title, QStringLiteral("Finished 3,000 epochs"));
        QVERIFY2(full.body.contains("1,475,729 samples per second") &&
                     full.body.contains("4,223,805 of 198,375,000 block writes (2.13%)"),
                 qPrintable(full.body));
        QVERIFY(full.body.contains("slow the pace to see fewer"));
        const Verdict paced = verdictOf(c, s, 50);
        QVERIFY2(!paced.body.contains("slow the pace"), qPrintable(paced.body));
        QVERIFY(paced.body.contains("ran paced, at 50 steps/s per worker"));
        QCOMPARE(full.kind, Verdict::Finding); // lost updates: amber
        c.mode = "threads-locked";
        s.lostUpdates = {0, 0};
        const Verdict locked = verdictOf(c, s, 50);
        QVERIFY(locked.body.contains("Under the lock none can be"));
        QCOMPARE(locked.kind, Verdict::Fine); // none lost: green, not amber
    }

    // A run whose workers' losses ran away is called diverged, with the
    // fix, not "workers died and stopped the others".
    void divergedRunIsCalledSo() {
        ExperimentConfig c;
        RunSummary s;
        s.state = RunState::Failed;
        s.workerFailures = {"training diverged: the loss became inf at step 3 of worker 0; lower "
                            "the learning rate (--lr)",
                            "training diverged: the loss became inf at step 3 of worker 1; lower "
                            "the learning rate (--lr)"};
        const Verdict v = verdictOf(c, s, 0);
        QCOMPARE(v.title, QStringLiteral("Training diverged"));
        QVERIFY2(v.body.contains("2 workers' losses ran away") &&
                     v.body.contains("Lower the learning rate and run again") &&
                     !v.body.contains("stopped the others"),
                 qPrintable(v.body));
        s.workerFailures = {"worker 1 was killed by signal 9"};
        QCOMPARE(verdictOf(c, s, 0).title, QStringLiteral("A worker died"));
    }

    void aFiniteBlowUpAndChanceAreCalledSo() {
        // Regression (issue 49): a finite blow-up read as a green "Finished".
        ExperimentConfig c;
        RunSummary s;
        s.state = RunState::Finished;
        s.epochsCompleted = 2;
        s.evaluated = true;
        s.testLoss = 111.7;
        s.testAccuracy = 0.1;
        s.startLoss = 2.3026;
        s.testRows = 10000;
        s.chanceAccuracy = 0.1;
        judgeLearning(s);
        Verdict v = verdictOf(c, s, 0);
        QCOMPARE(v.kind, Verdict::Problem);
        QCOMPARE(v.title, QStringLiteral("Training diverged"));
        QVERIFY2(v.body.contains("111.7") && v.body.contains("2.303") &&
                     v.body.contains("Test accuracy 10.00%") &&
                     v.body.contains("lower the learning rate"),
                 qPrintable(v.body));
        s.testLoss = 2.29;
        s.testAccuracy = 0.1012;
        judgeLearning(s);
        v = verdictOf(c, s, 0);
        QCOMPARE(v.kind, Verdict::Finding);
        QCOMPARE(v.title, QStringLiteral("Learned nothing: accuracy at chance"));
        QVERIFY2(v.body.contains("10.12%") && v.body.contains("10.00%"), qPrintable(v.body));
        s.testLoss = 0.4;
        s.testAccuracy = 0.88;
        judgeLearning(s);
        QCOMPARE(verdictOf(c, s, 0).title, QStringLiteral("Finished 2 epochs"));
    }
};

HWL_GUI_TEST_MAIN(TestVerdicts)
#include "tst_verdicts.moc"
