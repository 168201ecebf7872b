// The run list: finished runs kept as bounded curves, persisted across
// restarts (a damaged file set aside, never a crash), metrics.csv and --out
// folders opened into it with every malformed file refused by line, and the
// window keeping each run (unticked) and overlaying the ticked ones: a
// comparison its own, another task's on loss and accuracy only when the user
// ticked it.
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "guitestmain.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/runstablemodel.h"
#include "teaching/verdict.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include "io/metricslog.h"
#include "telemetry/sample.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QThread>

#include <limits>
#include <set>

using namespace hwl;
using namespace hwl::ui;

namespace {

Sample stepSample(int worker, std::uint64_t step, float loss) {
    Sample s;
    s.kind = Sample::Step;
    s.worker = worker;
    s.epoch = 1;
    s.step = step;
    s.samples = step * 32;
    s.time = double(step) / 1000.0;
    s.loss = loss;
    return s;
}

Sample evalSample(std::uint64_t allSteps, float loss, float accuracy) {
    Sample s;
    s.kind = Sample::Eval;
    s.worker = -1;
    s.step = allSteps;
    s.samples = allSteps * 32;
    s.time = double(allSteps) / 2000.0;
    s.loss = loss;
    s.accuracy = accuracy;
    return s;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

/// Two threads, 2 epochs of a small task: a comparison's run that ends in
/// a second or so.
ExperimentConfig smallHogwild() {
    ExperimentConfig a;
    a.model = "mlp:20-16-4";
    a.dataset = "teacher:2000x20:4:16";
    a.mode = "threads";
    a.workers = 2;
    a.epochs = 2;
    return a;
}

/// A metrics.csv as the engine writes it: two workers, 1000 steps each at
/// loss 2 then 1, an evaluation at 50% then 75%.
MetricsLog twoWorkerLog() {
    MetricsLog log;
    for (std::uint64_t step = 1; step <= 1000; ++step)
        for (int w = 0; w < 2; ++w)
            log.append(stepSample(w, step, step <= 500 ? 2.0f : 1.0f));
    log.append(evalSample(1000, 1.5f, 0.5f));
    log.append(evalSample(2000, 0.9f, 0.75f));
    return log;
}

/// The Runs tab's table as the view shows it (sorted and filtered).
QAbstractItemModel* runTable(const MainWindow& w) {
    return w.runListPanel()->table()->model();
}

/// Ticks or unticks row `row` of the table, as a click on its box does.
bool tick(QAbstractItemModel* table, int row, bool ticked) {
    return table->setData(table->index(row, 0), ticked ? Qt::Checked : Qt::Unchecked,
                          Qt::CheckStateRole);
}

} // namespace

class TestRunList : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void curvesAreBoundedMeans() {
        CurveBuilder b;
        const std::uint64_t steps = 100000;
        for (std::uint64_t step = 1; step <= steps; ++step)
            for (int w = 0; w < 4; ++w)
                b.add(stepSample(w, step, float(w))); // workers 0..3: mean 1.5
        b.add(evalSample(4 * steps, 0.5f, 0.875f));
        SavedRun run;
        b.finish(run);
        QCOMPARE(run.workers, 4);
        QVERIFY(run.trainLoss.size() <= 2 * RunLibrary::kCurvePoints);
        QVERIFY(run.trainLoss.size() >= RunLibrary::kCurvePoints / 2);
        double lastStep = 0;
        for (const ChartSample& c : run.trainLoss) {
            QCOMPARE(c.value, 1.5); // every bin holds all four workers alike
            QVERIFY(c.step > lastStep);
            lastStep = c.step;
        }
        QVERIFY(lastStep > 0.99 * double(steps));
        // An evaluation counts all workers' steps; the curve shows them per worker.
        QCOMPARE(run.accuracy.size(), 1);
        QCOMPARE(run.accuracy[0].step, double(steps));
        QCOMPARE(run.accuracy[0].value, 87.5);
        QCOMPARE(run.testAccuracy, double(0.875f));
    }

    void metricsCsvOpensAsTheLogItCameFrom() {
        const MetricsLog log = twoWorkerLog();
        const QString dir = QDir(tmp_.path()).filePath("out-a");
        QVERIFY(QDir().mkpath(dir));
        log.writeCsv(QDir(dir).filePath("metrics.csv").toStdString());
        ExperimentConfig c;
        c.model = "mlp:20-16-4";
        c.mode = "threads-locked";
        writeFile(QDir(dir).filePath("experiment.json"), QByteArray::fromStdString(c.toJson()));

        QString why;
        const SavedRun opened = RunLibrary::fromPath(dir, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(opened.name, QStringLiteral("out-a")); // the folder's name
        QVERIFY2(opened.description.contains("mlp:20-16-4") &&
                     opened.description.contains("threads-locked"),
                 qPrintable(opened.description));
        const SavedRun live = RunLibrary::fromLog(log);
        QCOMPARE(opened.trainLoss.size(), live.trainLoss.size());
        for (qsizetype i = 0; i < live.trainLoss.size(); ++i) {
            QCOMPARE(opened.trainLoss[i].step, live.trainLoss[i].step);
            QCOMPARE(opened.trainLoss[i].value, live.trainLoss[i].value);
        }
        QCOMPARE(opened.trainLoss.front().value, 2.0);
        QCOMPARE(opened.trainLoss.back().value, 1.0);
        QCOMPARE(opened.testLoss.size(), 2);
        QCOMPARE(opened.accuracy.back().value, 75.0);
        // What it trained, from its experiment.json (the loss and accuracy
        // charts draw another workload's run only when ticked by the user).
        QCOMPARE(opened.model, QStringLiteral("mlp:20-16-4"));
        QCOMPARE(opened.dataset, QString::fromStdString(c.dataset));
        QVERIFY(opened.trained("mlp:20-16-4", opened.dataset));
        QVERIFY(!opened.trained("mlp:20-16-4", "teacher:9x20:4"));
        QVERIFY(RunLibrary::fromPath(QDir(tmp_.path()).filePath("nope"), &why).model.isEmpty());
        // The file itself opens too, named after its folder.
        QCOMPARE(RunLibrary::fromPath(QDir(dir).filePath("metrics.csv"), &why).name,
                 QStringLiteral("out-a"));
    }

    void curvesCarryThroughputAndDivergence() {
        // Two workers, 32 samples a step, one step a millisecond each: 32,000
        // samples/s per worker; divergence 0.5 and 1.5: a mean of 1.
        CurveBuilder b;
        const std::uint64_t steps = 20000;
        for (std::uint64_t step = 1; step <= steps; ++step)
            for (int w = 0; w < 2; ++w) {
                Sample s = stepSample(w, step, 1.0f);
                s.divergence = 0.5f + float(w);
                b.add(s);
            }
        Sample diverged = stepSample(0, steps, 1.0f); // an infinite one is no mean
        diverged.divergence = std::numeric_limits<float>::infinity();
        b.add(diverged);
        SavedRun run;
        b.finish(run);
        QVERIFY(!run.throughput.isEmpty() && !run.divergence.isEmpty());
        // Rates over windows (a bin's milliseconds are noise): about
        // kThroughputPoints of them, the last at the run's end.
        QVERIFY2(run.throughput.size() >= RunLibrary::kThroughputPoints / 2 &&
                     run.throughput.size() <= RunLibrary::kThroughputPoints + 1,
                 qPrintable(QString::number(run.throughput.size())));
        QVERIFY(run.divergence.size() <= 2 * RunLibrary::kCurvePoints);
        for (const ChartSample& c : run.throughput)
            QVERIFY2(qAbs(c.value - 32000.0) < 1.0, qPrintable(QString::number(c.value)));
        for (const ChartSample& c : run.divergence)
            QVERIFY2(qAbs(c.value - 1.0) < 1e-3, qPrintable(QString::number(c.value)));
        QCOMPARE(run.throughput.back().step, run.trainLoss.back().step);
    }

    void anOldListLoadsAndTheNewFieldsRoundTrip() {
        // A runs.json written before runs knew their model, dataset,
        // throughput, divergence and start-up: it loads, and keeps its ticks.
        const QString file = QDir(tmp_.path()).filePath("old/runs.json");
        QVERIFY(QDir().mkpath(QFileInfo(file).absolutePath()));
        writeFile(file, "{\"version\": 1, \"runs\": [{\"name\": \"old\", \"color\": "
                        "\"#1b9e77\", \"visible\": true, \"description\": \"mlp on teacher\", "
                        "\"workers\": 2, \"samplesPerSecond\": 1000, \"testAccuracy\": 0.5, "
                        "\"trainLoss\": [[1, 32, 0.1, 2.0]], \"testLoss\": [], "
                        "\"accuracy\": []}]}");
        {
            RunLibrary lib(file);
            QCOMPARE(lib.load(), QString());
            QCOMPARE(lib.size(), 1);
            const SavedRun& old = lib.runs()[0];
            QVERIFY(old.visible && !old.userTicked);
            QVERIFY(old.model.isEmpty() && old.dataset.isEmpty());
            QVERIFY(old.throughput.isEmpty() && old.divergence.isEmpty());
            QVERIFY(old.startupSeconds.isEmpty());
            QVERIFY(!old.trained("", "")); // not known: never the same workload
            SavedRun next = RunLibrary::fromLog(twoWorkerLog());
            next.name = "new";
            next.model = "mlp:20-16-4";
            next.dataset = "teacher:2000x20:4:16";
            next.startupSeconds = {0.012, -1};
            QVERIFY(!next.visible); // a kept run is not overlaid until ticked
            QVERIFY(!next.throughput.isEmpty());
            QCOMPARE(lib.add(next), QString());
            QCOMPARE(lib.setVisible(1, true, /*byUser=*/true), QString());
            QVERIFY(lib.runs()[1].userTicked);
        }
        RunLibrary again(file);
        QCOMPARE(again.load(), QString());
        const SavedRun& next = again.runs()[1];
        QCOMPARE(next.model, QStringLiteral("mlp:20-16-4"));
        QCOMPARE(next.dataset, QStringLiteral("teacher:2000x20:4:16"));
        QCOMPARE(next.startupSeconds, (QList<double>{0.012, -1}));
        QVERIFY(next.visible && next.userTicked);
        QCOMPARE(next.throughput.size(), RunLibrary::fromLog(twoWorkerLog()).throughput.size());
        QCOMPARE(next.divergence.size(), next.trainLoss.size());
        // A comparison unticks them all, in one save.
        QCOMPARE(again.untickAll(), QString());
        QVERIFY(!again.runs()[0].visible && !again.runs()[1].visible);
        QVERIFY(!again.runs()[1].userTicked);
    }

    void malformedFilesAreRefusedByLine_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray header = "worker,epoch,step,samples,loss,time,kind,divergence,accuracy\n";
        QTest::newRow("not ours") << QByteArray("a,b,c\n1,2,3\n")
                                  << "it is neither a Hogwild Lab metrics.csv";
        QTest::newRow("empty") << QByteArray() << "it is neither a Hogwild Lab metrics.csv";
        QTest::newRow("header only") << header << "holds no training steps";
        QTest::newRow("fields") << header + "0,1,1,32,0.5,0.1,step,0\n"
                                << "line 2: 8 fields";
        QTest::newRow("number") << header + "0,1,1,32,0.5,0.1,step,0,0\n0,1,x,32,0.5,0.1,step,0,0\n"
                                << "line 3: the step \"x\" is not a number";
        QTest::newRow("kind") << header + "0,1,1,32,0.5,0.1,jump,0,0\n"
                              << "the kind \"jump\"";
        QTest::newRow("time") << header + "0,1,1,32,0.5,-4,step,0,0\n"
                              << "out of range";
        QTest::newRow("long line") << header + QByteArray(4000, '1') + "\n"
                                   << "longer than 512 bytes";
        QTest::newRow("binary") << header + QByteArray("\0\x01\xff,\n", 5) << "line 2";
    }
    void malformedFilesAreRefusedByLine() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const QString path = QDir(tmp_.path()).filePath("bad.csv");
        writeFile(path, bytes);
        QString why;
        const SavedRun run = RunLibrary::fromPath(path, &why);
        QVERIFY(run.name.isEmpty());
        QVERIFY2(why.contains(expected) && why.contains("bad.csv"), qPrintable(why));
    }

    void missingPathsAreNamed() {
        QString why;
        QVERIFY(RunLibrary::fromPath(QDir(tmp_.path()).filePath("nope.csv"), &why).name.isEmpty());
        QVERIFY2(why.contains("does not exist"), qPrintable(why));
        const QString empty = QDir(tmp_.path()).filePath("empty-folder");
        QVERIFY(QDir().mkpath(empty));
        QVERIFY(RunLibrary::fromPath(empty, &why).name.isEmpty());
        QVERIFY2(why.contains("holds no metrics.csv"), qPrintable(why));
    }

    void theListSurvivesARestart() {
        const QString file = QDir(tmp_.path()).filePath("lib/runs.json");
        {
            RunLibrary lib(file);
            QCOMPARE(lib.load(), QString());
            SavedRun a = RunLibrary::fromLog(twoWorkerLog());
            a.name = "first";
            SavedRun b = a;
            b.name = "second";
            QCOMPARE(lib.add(a), QString());
            QCOMPARE(lib.add(b), QString());
            QCOMPARE(lib.setVisible(0, false), QString());
            QCOMPARE(lib.rename(1, "  renamed  "), QString());
            QVERIFY(lib.runs()[0].color != lib.runs()[1].color);
        }
        RunLibrary again(file);
        QCOMPARE(again.load(), QString());
        QCOMPARE(again.size(), 2);
        QCOMPARE(again.runs()[0].name, QStringLiteral("first"));
        QVERIFY(!again.runs()[0].visible);
        QCOMPARE(again.runs()[1].name, QStringLiteral("renamed"));
        QCOMPARE(again.runs()[1].trainLoss.size(), again.runs()[0].trainLoss.size());
        QCOMPARE(again.runs()[1].accuracy.back().value, 75.0);
        QCOMPARE(again.remove(0), QString());
        QCOMPARE(again.size(), 1);
    }

    void aDamagedListIsSetAside() {
        const QString file = QDir(tmp_.path()).filePath("damaged/runs.json");
        QVERIFY(QDir().mkpath(QFileInfo(file).absolutePath()));
        writeFile(file, "{\"version\": 1, \"runs\": [");
        RunLibrary lib(file);
        const QString why = lib.load();
        QVERIFY2(why.contains("could not be read") && why.contains("runs.json.bad"),
                 qPrintable(why));
        QCOMPARE(lib.size(), 0);
        QVERIFY(QFile::exists(file + ".bad"));
        QVERIFY(!QFile::exists(file));
        // A list from a later version is not misread either.
        writeFile(file, "{\"version\": 7, \"runs\": []}");
        QVERIFY(lib.load().contains("not a version 1 run list"));
    }

    void theListKeepsTheNewestRuns() {
        RunLibrary lib(QDir(tmp_.path()).filePath("cap/runs.json"));
        SavedRun r = RunLibrary::fromLog(twoWorkerLog());
        std::set<QRgb> colours;
        for (int i = 0; i < 12; ++i) { // one at a time, as runs end
            r.name = QString::number(i);
            r.color = QColor();
            QCOMPARE(lib.add(r), QString());
            colours.insert(lib.runs().back().color.rgb());
        }
        QCOMPARE(int(colours.size()), 12); // no colour repeats among the first twelve
        QList<SavedRun> more;              // the rest at once, as a folder of runs comes
        for (int i = 12; i < RunLibrary::kMaxRuns + 3; ++i) {
            r.name = QString::number(i);
            more.append(r);
        }
        QCOMPARE(lib.addAll(more), QString());
        QCOMPARE(lib.size(), RunLibrary::kMaxRuns);
        QCOMPARE(lib.runs().front().name, QStringLiteral("3"));
        QCOMPARE(lib.runs().back().name, QString::number(RunLibrary::kMaxRuns + 2));
        // All of them read back.
        RunLibrary again(lib.file());
        QCOMPARE(again.load(), QString());
        QCOMPARE(again.size(), RunLibrary::kMaxRuns);
    }

    void theWindowKeepsAndOverlaysRuns() {
        ExperimentConfig c;
        c.model = "mlp:20-16-4";
        c.dataset = "teacher:2000x20:4:16";
        c.mode = "serial";
        c.workers = 1;
        c.epochs = 2;
        int before = 0;
        {
            MainWindow w;
            before = w.runLibrary()->size();
            w.form()->setConfig(c);
            w.startRun();
            QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 60000);
            QCOMPARE(w.runLibrary()->size(), before + 1);
            const SavedRun& kept = w.runLibrary()->runs().back();
            QVERIFY2(kept.name.contains("serial"), qPrintable(kept.name));
            QVERIFY(!kept.trainLoss.isEmpty());
            QVERIFY(kept.testAccuracy >= 0);
            // Kept, not overlaid, and the log says so rightly.
            QVERIFY(!kept.visible);
            QCOMPARE(w.lossChart()->overlayCount(), 0);
            QVERIFY(w.eventLogText().contains("tick it under Runs to overlay it"));
            QAbstractItemModel* table = runTable(w);
            QTRY_COMPARE(table->rowCount(), w.runLibrary()->size());
            for (int i = 0; i < table->rowCount(); ++i)
                QVERIFY(tick(table, i, false));
            QCOMPARE(w.lossChart()->overlayCount(), 0);
            // Ticked, it is not drawn over its own live curves...
            QVERIFY(tick(table, table->rowCount() - 1, true));
            QVERIFY(w.runLibrary()->runs().back().visible);
            QCOMPARE(w.lossChart()->overlayCount(), 0);
            // ...but lies under the next run's (train and test loss, accuracy).
            w.startRun();
            QCOMPARE(w.lossChart()->overlayCount(), 2);
            QVERIFY(w.accuracyChart()->overlayCount() >= 1);
            w.lossChart()->refresh();
            QVERIFY(!w.lossChart()->displayedPoints(TrainingChart::overlaySeries(0)).isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 60000);
            QCOMPARE(w.runLibrary()->size(), before + 2);
            QCOMPARE(w.lossChart()->overlayCount(), 2); // the second one is live
        }
        MainWindow restarted; // the list survives the restart
        QCOMPARE(restarted.runLibrary()->size(), before + 2);
        QTRY_COMPARE(runTable(restarted)->rowCount(), before + 2);
        // The run ticked by hand stays ticked.
        QVERIFY(restarted.runLibrary()->runs()[before].visible);
    }

    void aComparisonMakesEachRunAndOverlaysThem() {
        MainWindow w;
        const int before = w.runLibrary()->size();
        const ExperimentConfig a = smallHogwild();
        ExperimentConfig b = a;
        b.mode = "threads-locked";
        QVERIFY(w.startComparison({{"hogwild", a}, {"locked", b}}));
        QCOMPARE(w.comparisonRun(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.runLibrary()->size(), before + 2, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.comparisonRun() == -1, 30000);
        QCOMPARE(w.controller()->run()->config().mode, std::string("threads-locked"));
        // Two workers on as many cores (or more): the charts redraw less.
        QCOMPARE(w.runCharts()->coresShared(), 2 >= QThread::idealThreadCount());
        const QList<SavedRun>& runs = w.runLibrary()->runs();
        // Named by their labels first: "#3 hogwild · <the preset>", which a
        // legend short of room cuts to "#3 hogwild".
        const QRegularExpression named("^#[0-9]+ (hogwild|locked)( · |$)");
        QVERIFY2(named.match(runs[before].name).captured(1) == "hogwild",
                 qPrintable(runs[before].name));
        QVERIFY2(named.match(runs[before + 1].name).captured(1) == "locked",
                 qPrintable(runs[before + 1].name));
        // The first under the second's live curves, train and test loss;
        // every chart of the comparison fits both runs.
        QCOMPARE(w.lossChart()->overlayCount(), 2);
        QVERIFY(w.rateChart()->overlaysFitAxes());
        QVERIFY(w.lossChart()->overlaysFitAxes());
        QVERIFY(w.eventLogText().contains("Comparison done"));
        // Beside the overlay the live workers carry the live run's label.
        QCOMPARE(w.lossChart()->liveName(), QStringLiteral("locked"));
        {
            // A new window overlays none of the runs the comparison ticked.
            MainWindow restarted;
            QVERIFY(!restarted.runLibrary()->runs()[before].visible);
            QVERIFY(!restarted.runLibrary()->runs()[before + 1].visible);
            QCOMPARE(restarted.lossChart()->overlayCount(), 0);
        }
        // Stop ends a comparison at the run going.
        QVERIFY(w.startComparison({{"one", a}, {"two", b}}));
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        QTest::qWait(500); // no next run starts
        QVERIFY(!w.controller()->busy());
        QCOMPARE(w.comparisonRun(), -1);
    }

    void overlaysServeTheLesson() {
        // After Fashion-MNIST runs, forgot-to-share must not show their
        // 85% curves over its "accuracy stays flat at 9%".
        MainWindow w;
        QCOMPARE(w.runLibrary()->clear(), QString());
        QVERIFY(w.applyPreset("forgot-to-share"));
        const ExperimentConfig lesson = w.form()->config();
        SavedRun other = RunLibrary::fromLog(twoWorkerLog());
        other.name = "another task";
        other.model = "mlp:784-128-10";
        other.dataset = "fashion-mnist";
        other.visible = true; // ticked by a comparison, not by the user
        SavedRun same = other;
        same.name = "the same task";
        same.model = QString::fromStdString(lesson.model);
        same.dataset = QString::fromStdString(lesson.dataset);
        QCOMPARE(w.runLibrary()->add(other), QString());
        QCOMPARE(w.runLibrary()->add(same), QString());
        // On every chart only the run of this task: another task's
        // throughput and divergence mislead as much as its accuracy.
        QCOMPARE(w.lossChart()->overlayCount(), 2); // its train and test loss
        QCOMPARE(w.accuracyChart()->overlayCount(), 1);
        QCOMPARE(w.rateChart()->overlayCount(), 1);
        QCOMPARE(w.divergenceChart()->overlayCount(), 1);
        QVERIFY(!w.eventLogText().contains("because you ticked it"));
        // Ticked by the user, the other task is drawn, and the log says so once.
        QAbstractItemModel* table = runTable(w);
        QTRY_COMPARE(table->rowCount(), 2);
        QVERIFY(tick(table, 0, false));
        QTRY_COMPARE(table->rowCount(), 2); // reread (queued)
        QCOMPARE(table->index(0, 0).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        QCOMPARE(w.lossChart()->overlayCount(), 2);
        QVERIFY(tick(table, 0, true));
        QVERIFY(w.runLibrary()->runs()[0].userTicked);
        QCOMPARE(w.lossChart()->overlayCount(), 4);
        QCOMPARE(w.accuracyChart()->overlayCount(), 2);
        QCOMPARE(w.rateChart()->overlayCount(), 2);
        QCOMPARE(w.eventLogText().count("because you ticked it"), 1);
        QVERIFY2(w.eventLogText().contains("\"another task\" trained mlp:784-128-10 on "
                                           "fashion-mnist"),
                 qPrintable(w.eventLogText()));
        QCOMPARE(w.runLibrary()->clear(), QString());
    }

    void aComparisonOverlaysOnlyItsOwnRuns() {
        MainWindow w;
        QCOMPARE(w.runLibrary()->clear(), QString());
        const ExperimentConfig a = smallHogwild();
        ExperimentConfig b = a;
        b.mode = "threads-locked";
        SavedRun earlier = RunLibrary::fromLog(twoWorkerLog());
        earlier.name = "earlier";
        earlier.model = QString::fromStdString(a.model);
        earlier.dataset = QString::fromStdString(a.dataset);
        earlier.visible = earlier.userTicked = true;
        QCOMPARE(w.runLibrary()->add(earlier), QString());
        // Paced, each run lasts at least a second or so: long enough for the
        // polls below to see "Run 2 of 2" before it ends, however fast the
        // machine (unpaced, 2 epochs of 2000 rows can end between two polls).
        w.paceBox()->setValue(40);
        QVERIFY(w.startComparison({{"hogwild", a}, {"locked", b}}));
        // Runs from before it are unticked, not deleted.
        QCOMPARE(w.runLibrary()->size(), 1);
        QVERIFY(!w.runLibrary()->runs()[0].visible);
        QCOMPARE(w.lossChart()->overlayCount(), 0);
        // On screen while it goes: which run of how many.
        auto* status = w.findChild<QLabel*>("comparisonStatus");
        QVERIFY(status);
        QCOMPARE(status->text(), QStringLiteral("Run 1 of 2: hogwild"));
        QVERIFY(!status->isHidden());
        QTRY_COMPARE_WITH_TIMEOUT(status->text(), QStringLiteral("Run 2 of 2: locked"), 60000);
        // The first run, finished, lies under the second.
        QCOMPARE(w.lossChart()->overlayCount(), 2);
        QCOMPARE(w.rateChart()->overlayCount(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.comparisonRun() == -1, 60000);
        const QList<SavedRun>& runs = w.runLibrary()->runs();
        QCOMPARE(runs.size(), 3);
        QVERIFY(!runs[0].visible);
        QVERIFY(runs[1].visible && runs[2].visible); // ticked by the comparison
        QVERIFY(!runs[1].userTicked);
        QCOMPARE(runs[1].model, QString::fromStdString(a.model));
        QCOMPARE(runs[1].startupSeconds.size(), 2);
        QVERIFY(!runs[1].throughput.isEmpty() && !runs[1].divergence.isEmpty());
        // The last run is on the charts live: only the first is overlaid.
        QCOMPARE(w.lossChart()->overlayCount(), 2);
        QCOMPARE(w.rateChart()->overlayCount(), 1);
        QCOMPARE(w.divergenceChart()->overlayCount(), 1);
        QVERIFY(w.eventLogText().contains("overlaid on the charts as a run of the comparison"));
        QVERIFY(!w.eventLogText().contains("tick it under Runs to overlay it"));
        QVERIFY(status->isHidden());
        // The verdict is the comparison's table (no preset: it compares samples/s).
        const QString verdict = w.verdictBanner()->text();
        QVERIFY2(verdict.startsWith("Comparison: 2 runs side by side\n"), qPrintable(verdict));
        QVERIFY2(verdict.contains("samples per second than") ||
                     verdict.contains("samples per second as") ||
                     verdict.contains("about as many samples per second"),
                 qPrintable(verdict));
        QVERIFY(verdict.contains("\nrun | samples/s | test accuracy | train s\n"));
        QVERIFY(verdict.contains("\nhogwild | ") && verdict.contains("\nlocked | "));
        QCOMPARE(w.runLibrary()->clear(), QString());
    }

    void theWindowOpensRuns() {
        MainWindow w;
        const int before = w.runLibrary()->size();
        const QString dir = QDir(tmp_.path()).filePath("out-b");
        QVERIFY(QDir().mkpath(dir));
        twoWorkerLog().writeCsv(QDir(dir).filePath("metrics.csv").toStdString());
        QString why;
        QVERIFY2(w.openRun(dir, true, &why), qPrintable(why));
        QCOMPARE(w.runLibrary()->size(), before + 1);
        QCOMPARE(w.runLibrary()->runs().back().name, QStringLiteral("out-b"));
        QVERIFY(w.eventLogText().contains("Opened run \"out-b\""));
        // A run of another workload than the charts show is added unticked,
        // and the log says what it trained.
        const QString other = QDir(tmp_.path()).filePath("out-cnn");
        QVERIFY(QDir().mkpath(other));
        twoWorkerLog().writeCsv(QDir(other).filePath("metrics.csv").toStdString());
        ExperimentConfig cnn;
        cnn.model = "cnn:mnist";
        cnn.dataset = "fashion-mnist";
        QFile json(QDir(other).filePath("experiment.json"));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write(QByteArray::fromStdString(cnn.toJson()));
        json.close();
        QVERIFY2(w.openRun(other, true, &why), qPrintable(why));
        QCOMPARE(w.runLibrary()->runs().back().model, QStringLiteral("cnn:mnist"));
        QVERIFY(!w.runLibrary()->runs().back().visible);
        QVERIFY(w.eventLogText().contains("It trained cnn:mnist on fashion-mnist"));
        QVERIFY(!w.openRun(QDir(tmp_.path()).filePath("nope"), true, &why));
        QVERIFY(why.contains("does not exist"));
        QVERIFY(w.eventLogText().contains("Could not open the run"));
        QCOMPARE(w.runLibrary()->size(), before + 2);
    }
};

HWL_GUI_TEST_MAIN(TestRunList)
#include "tst_runlist.moc"
