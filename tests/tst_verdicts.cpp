// The verdicts' words, on summaries alone: a comparison's winner and by how
// much (and no winner within the spread), the lost-update advice following
// the pace, a run whose loss ran away called diverged whether it ended in a
// NaN or finite, a run at chance called so, counts with the locale's
// separators.
#include "form/experimentform.h"
#include "guitestmain.h"
#include "runs/runcontroller.h"
#include "strategy/catalog.h"
#include "teaching/comparisonverdict.h"
#include "teaching/verdict.h"
#include "testpaths.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
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
        QCOMPARE(v.body, QStringLiteral("hogwild ran 20% more samples per second than locked."));
        QCOMPARE(v.chart, QStringLiteral("rateChart"));
        // The banner points to the chart as the window shows it now.
        VerdictBanner banner;
        banner.showVerdict(v);
        QVERIFY2(banner.text().contains("locked. The throughput chart shows every run.\n"),
                 qPrintable(banner.text()));
        banner.setChartsOut({"rateChart"}, {});
        QVERIFY2(banner.text().contains(" The throughput chart draws every run, but the window "
                                        "has no room for it now: fold the tabs under the charts "
                                        "or make the window larger to see it.\n"),
                 qPrintable(banner.text()));
        banner.setChartsOut({"accuracyChart"}, {"rateChart"});
        QVERIFY2(banner.text().contains(" The throughput chart draws every run: tick it in the "
                                        "View menu to see it.\n"),
                 qPrintable(banner.text()));
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
        c.rows[0].divergence = 0;
        c.rows[0].summary.divergence = {0, 0};
        c.rows[1].divergence = 0.0123;
        c.rows[1].summary.divergence = {0.01, 0.02};
        v = comparisonVerdict(c);
        QVERIFY2(v.body.startsWith("data-parallel's divergence was 0 all run long, against a "
                                   "median of 0.0123 for hogwild."),
                 qPrintable(v.body));
        QCOMPARE(v.table[0].back(), QStringLiteral("divergence, final / median"));
        QCOMPARE(v.table[2].back(), QStringLiteral("0.0150 / 0.0123"));
        // A divergence below a thousandth reads as one, never "0.000000"
        // beside "0" (accumulate-hogwild's table showed both).
        c.rows[0].divergence = 1.4e-8;
        c.rows[0].summary.divergence = {2e-8};
        v = comparisonVerdict(c);
        QCOMPARE(v.table[1].back(), QStringLiteral("2.0e-8 / 1.4e-8"));
        // A median of 0 beside an end that is not (accumulate-1 ended at
        // 3.9e-7): least, not "0 all run long".
        c.rows[0].divergence = 0;
        c.rows[0].summary.divergence = {3.9e-7};
        v = comparisonVerdict(c);
        QVERIFY2(v.body.startsWith("data-parallel diverged least: a median divergence of 0 over "
                                   "its steps"),
                 qPrintable(v.body));

        c.title = "Start methods";
        c.figure = hwl::ComparedFigure::StartUp;
        c.planned = 3;
        c.rows = {comparedRow("fork", 1e5, -1, 3), comparedRow("spawn", 1e5, -1, 3),
                  comparedRow("forkserver", 1e5, -1, 3)};
        const std::vector<double> startups[] = {{0.010, 0.035}, {0.150, 0.580}, {0.036, 0.040}};
        for (int i = 0; i < 3; ++i) {
            c.rows[i].processes = true;
            c.rows[i].summary.startupSeconds = startups[i];
        }
        v = comparisonVerdict(c);
        QCOMPARE(v.body, QStringLiteral("fork started its workers soonest: all of them took their "
                                        "first step within 35.0 ms of launch, against 40.0 ms for "
                                        "forkserver (14% longer), 580 ms for spawn (16.6 times as "
                                        "long)."));
        // Ranges that overlap are within the spread: no winner among them.
        c.rows[2].summary.startupSeconds = {0.012, 0.040};
        v = comparisonVerdict(c);
        QCOMPARE(v.body,
                 QStringLiteral("fork and forkserver started their workers about as soon "
                                "(fork 10.0–35.0 ms, forkserver 12.0–40.0 ms): their "
                                "ranges overlap, so which is first depends on the machine "
                                "and the moment. Beside fork's 35.0 ms: 580 ms for spawn (16.6 "
                                "times as long)."));
        c.rows[2].summary.startupSeconds = startups[2];
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

    void aSweepOverSeedsNamesNoWinner() {
        // Regression (issue 49): "seed=1 ran 20% more samples per second than
        // seed=2": runs that differ only in their seed differ by the spread.
        EnglishNumbers english;
        ComparisonRecord c;
        c.title = "Sweep";
        c.planned = 2;
        c.seedOnly = true;
        c.rows = {comparedRow("seed=1", 1200000, 0.88, 5), comparedRow("seed=2", 1000000, 0.88, 6)};
        const Verdict v = comparisonVerdict(c);
        QCOMPARE(v.body, QStringLiteral("These runs differ only in their seed: their samples/s "
                                        "range from 1,000,000 to 1,200,000 (20% apart), the spread "
                                        "between repeats of one experiment, not a difference "
                                        "between them."));
        c.seedOnly = false;
        QVERIFY(comparisonVerdict(c).body.startsWith("seed=1 ran 20% more"));
    }

    void recordedRunsMeetTheirTexts() {
        // The comparison presets' runs as they ran on a real machine
        // (tests/data/recorded-comparisons.json, made by
        // tests/data/make_recorded_comparisons.py), and each verdict held to
        // the direction its preset's text states, or to no winner where the
        // text says the outcome depends on the machine.
        QFile file(QString::fromUtf8(hwl::test::kSourceDir) +
                   "/tests/data/recorded-comparisons.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject presets =
            QJsonDocument::fromJson(file.readAll()).object()["presets"].toObject();
        const std::vector<hwl::Preset> all = hwl::presets();
        QMap<QString, QString> bodies;
        for (auto it = presets.begin(); it != presets.end(); ++it) {
            const hwl::Preset* p = hwl::findPreset(all, it.key().toStdString());
            QVERIFY2(p, qPrintable(it.key()));
            ComparisonRecord c;
            c.title = QString::fromStdString(p->name);
            c.figure = p->compares;
            c.planned = int(p->compare.size());
            for (const QJsonValue& value : it.value().toArray()) {
                const QJsonObject r = value.toObject();
                ComparedRow row =
                    comparedRow("", r["samples_per_second"].toDouble(),
                                r["test_accuracy"].toDouble(), r["train_seconds"].toDouble());
                row.label = r["label"].toString();
                row.processes = r["processes"].toBool();
                row.divergence = r["median_divergence"].toDouble();
                for (const QJsonValue& s : r["startup_seconds"].toArray())
                    row.summary.startupSeconds.push_back(s.toDouble());
                for (const QJsonValue& d : r["final_divergence"].toArray())
                    row.summary.divergence.push_back(d.toDouble());
                c.rows << row;
            }
            QCOMPARE(c.rows.size(), qsizetype(c.planned));
            bodies[it.key()] = comparisonVerdict(c).body;
        }
        // "With 8 batches in between it sits far higher".
        QVERIFY2(bodies["accumulate-hogwild"].startsWith("accumulate-1 diverged least"),
                 qPrintable(bodies["accumulate-hogwild"]));
        // "the data-parallel run's divergence is 0 all along".
        QVERIFY2(bodies["ddp-vs-hogwild"].startsWith("data-parallel's divergence was 0"),
                 qPrintable(bodies["ddp-vs-hogwild"]));
        // "At sync-every 1 it is 0 ... The longer the interval, the higher the teeth".
        const QString sgd = bodies["local-sgd"];
        QVERIFY2(sgd.startsWith("sync-1's divergence was 0") &&
                     sgd.indexOf("sync-8") < sgd.indexOf("sync-64"),
                 qPrintable(sgd));
        // "spawn's 7-55 ms, two to five times as long"; fork and forkserver:
        // which comes first changes, "the banner says so rather than name a winner".
        const QString starts = bodies["start-methods"];
        QVERIFY2(!starts.startsWith("spawn") && !starts.contains("soonest") &&
                     (starts.startsWith("fork and forkserver started their workers about as "
                                        "soon") ||
                      starts.startsWith("forkserver and fork started their workers about as "
                                        "soon")) &&
                     starts.contains("for spawn"),
                 qPrintable(starts));
        // hogwild-vs-locked: the gain "depends on the machine and on how busy it
        // is": the verdict decides by the spread, in either direction.
        QVERIFY2(bodies["hogwild-vs-locked"].contains("about as many") ||
                     bodies["hogwild-vs-locked"].contains("more samples per second"),
                 qPrintable(bodies["hogwild-vs-locked"]));
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
    // A run with a target: where it was reached, quoted from the run; or
    // amber with the best figures it saw.
    void aTargetIsReachedOrNot() {
        ExperimentConfig c;
        c.epochs = 30;
        RunSummary s;
        s.state = RunState::Finished;
        s.outcome = LearningOutcome::Learned;
        s.evaluated = true;
        s.epochsCompleted = 4;
        s.testAccuracy = 0.912;
        s.samplesPerSecond = 48590;
        s.target.accuracy = 90;
        s.target.reached = true;
        s.target.epochs = 4;
        s.target.trainSeconds = 1.234;
        s.target.wallSeconds = 1.5;
        s.target.samples = 72000;
        s.target.steps = 563;
        Verdict v = verdictOf(c, s, 0);
        QCOMPARE(v.kind, Verdict::Fine);
        QCOMPARE(v.title, QStringLiteral("Reached test accuracy 90% at epoch 4"));
        QVERIFY2(v.body.startsWith("1.234 s of training to it (1.500 s wall), 72,000 samples, 563 "
                                   "steps; 48,590 samples per second."),
                 qPrintable(v.body));
        s.epochsCompleted = 30; // --train-past-target
        v = verdictOf(c, s, 0);
        QVERIFY2(v.body.contains("Trained on to epoch 30: test accuracy 91.20% at the end."),
                 qPrintable(v.body));
        s.target.reached = false;
        s.target.bestAccuracy = 0.8931;
        s.target.bestLoss = 0.31;
        v = verdictOf(c, s, 0);
        QCOMPARE(v.kind, Verdict::Finding);
        QCOMPARE(v.title, QStringLiteral("Target not reached in 30 epochs"));
        QVERIFY2(v.body.startsWith("Test accuracy 90% was not reached: the best test accuracy was "
                                   "89.31%, the best test loss 0.3100."),
                 qPrintable(v.body));
    }

    // A race to a target: ranked by the seconds to it, runs within 10% of
    // the first about as soon, each later place put down to the factor that
    // decided it (samples needed, or speed), a miss named with its best.
    void aRaceToATargetSaysWhichFactorDecided() {
        ComparisonRecord c;
        c.title = "Which mode reaches the target first";
        c.figure = hwl::ComparedFigure::TimeToTarget;
        const auto row = [](const char* label, double seconds, std::uint64_t samples) {
            ComparedRow r;
            r.label = label;
            r.summary.state = RunState::Finished;
            r.summary.epochsCompleted = 10;
            r.summary.target.accuracy = 75;
            r.summary.target.reached = seconds > 0;
            r.summary.target.trainSeconds = seconds;
            r.summary.target.samples = samples;
            r.summary.target.bestAccuracy = 0.741;
            // Stopped at the target: the run's rate is the one until it.
            r.summary.trainSeconds = seconds;
            r.summary.samples = samples;
            r.summary.samplesPerSecond = seconds > 0 ? double(samples) / seconds : 0;
            return r;
        };
        c.rows = {row("serial", 0.8, 360000), row("threads", 0.4, 360000),
                  row("threads-locked", 0.42, 360000), row("data-parallel", 3.2, 720000),
                  row("local-sgd", -1, 0)};
        c.planned = int(c.rows.size());
        const Verdict v = comparisonVerdict(c);
        QVERIFY2(v.body.startsWith("threads and threads-locked reached test accuracy 75% about as "
                                   "soon: within 10% of the first (threads, 0.40 s of training)"),
                 qPrintable(v.body));
        QVERIFY2(v.body.contains(" Later, in order: serial and data-parallel. The table says "
                                 "what decided each place"),
                 qPrintable(v.body));
        QVERIFY2(v.body.contains("local-sgd did not reach it in 10 epochs (best test accuracy "
                                 "74.10%)"),
                 qPrintable(v.body));
        // Each run's place in the table, in the runs' order: 0.8 s is the
        // same samples at half the speed; 3.2 s twice the samples at a
        // quarter of the speed (8 = 2 / 0.25): the speed decided both.
        QCOMPARE(v.table.front().mid(4), (QStringList{"to target s", "samples to target",
                                                      "× samples, speed", "decided by"}));
        const QList<QStringList> places{{"0.80", "360,000", "1.00, 0.50", "its speed"},
                                        {"0.40", "360,000", "1.00, 1.00", "first"},
                                        {"0.42", "360,000", "1.00, 0.95", "about as soon"},
                                        {"3.20", "720,000", "2.00, 0.25", "its speed"},
                                        {"not reached", "–", "–", "–"}};
        for (qsizetype i = 0; i < places.size(); ++i)
            QCOMPARE(v.table[i + 1].mid(4), places[i]);
        // Needing the samples decides where the speed is the same.
        c.rows = {row("threads", 0.4, 360000), row("data-parallel", 0.8, 720000)};
        const Verdict two = comparisonVerdict(c);
        QVERIFY2(two.body.startsWith("threads reached test accuracy 75% first: 0.40 s of training, "
                                     "360,000 samples at 900,000 samples/s. Later, in order: "
                                     "data-parallel."),
                 qPrintable(two.body));
        QCOMPARE(two.table[2].mid(6), (QStringList{"2.00, 1.00", "samples needed"}));
    }

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
        c.workers = 2;
        QCOMPARE(verdictOf(c, s, 0).title, QStringLiteral("A worker died"));
        QVERIFY(verdictOf(c, s, 0).body.contains("stopped the others"));
        // Every worker died (unable-to-open-shm): none was stopped by the others.
        s.workerFailures = {"worker 0 could not open the segment",
                            "worker 1 could not open the segment"};
        const Verdict all = verdictOf(c, s, 0);
        QCOMPARE(all.title, QStringLiteral("All 2 workers died"));
        QVERIFY2(!all.body.contains("stopped the others") && all.body.contains("worker 0"),
                 qPrintable(all.body));
    }

    // Issue 49: the engine's "(--lr)" reached the banner and the events; a
    // run the window makes speaks of the form's fields.
    void aDivergedRunSpeaksInTheFormsWords() {
        MainWindow w;
        ExperimentConfig c;
        c.model = "mlp:20-32-4";
        c.dataset = "teacher:2000x20:4";
        c.mode = "serial";
        c.workers = 1;
        c.epochs = 2;
        c.testFraction = 0.1;
        c.lr = 100;
        c.momentum = 0.99;
        w.form()->setConfig(c);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        const QString banner = w.verdictBanner()->text();
        QVERIFY2(banner.contains("diverged") || banner.contains("Diverged"), qPrintable(banner));
        for (const QString& said : {banner, w.eventLogText()})
            QVERIFY2(!said.contains("(--"), qPrintable(said));
        QVERIFY2(w.eventLogText().contains("(the Learning rate field)"),
                 qPrintable(w.eventLogText()));
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
        s.epochsCompleted = 1;
        QCOMPARE(verdictOf(c, s, 0).title, QStringLiteral("Finished 1 epoch"));
    }
};

HWL_GUI_TEST_MAIN(TestVerdicts)
#include "tst_verdicts.moc"
