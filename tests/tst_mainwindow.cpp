// The desktop window end to end (offscreen): a run fills one series per
// worker and the worker table, pause / resume / stop leave no segment
// behind, experiments round-trip through files, exports write valid files,
// Start follows the form's validity, comparisons end side by side.
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "io/tensorfile.h"
#include "launch/devices.h"
#include "run/workerrole.h"
#include "runs/runlibrary.h"
#include "runs/workertablemodel.h"
#include "teaching/verdict.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/experimentfiles.h"
#include "window/mainwindow.h"
#include "workertestmain.h"

#include <QAction>
#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <unistd.h>

using namespace hwl;
using namespace hwl::ui;

namespace {

ExperimentConfig smallRun(int workers, int epochs) {
    ExperimentConfig c;
    c.model = "mlp:20-32-4";
    c.dataset = "teacher:20000x20:4:16";
    c.mode = "threads";
    c.workers = workers;
    c.epochs = epochs;
    c.lr = 0.05;
    c.momentum = 0;
    c.testFraction = 0.1;
    return c;
}

int ourSegments() {
    return int(
        QDir("/dev/shm").entryList({QStringLiteral("hwl-%1-*").arg(getpid())}, QDir::Files).size());
}

/// A comparison preset's runs, shortened to `epochs` (and `dataset` when given).
std::vector<PresetRun> shortened(const char* id, int epochs, const char* dataset = nullptr) {
    const std::vector<Preset> all = presets();
    std::vector<PresetRun> runs = findPreset(all, id)->compare;
    for (PresetRun& r : runs) {
        r.config.epochs = epochs;
        if (dataset)
            r.config.dataset = dataset;
    }
    return runs;
}

/// The verdict banner's table rows (after the title and the body).
QList<QStringList> tableOf(const QString& verdict) {
    QList<QStringList> rows;
    for (const QString& line : verdict.split('\n').mid(2))
        rows << line.split(QStringLiteral(" | "));
    return rows;
}

quint64 totalSteps(const WorkerTableModel* m) {
    quint64 steps = 0;
    for (const auto& r : m->rows())
        steps += r.worker.steps;
    return steps;
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void runFillsSeriesAndTableThenStopLeavesNothing() {
        MainWindow w;
        w.show();
        w.form()->setConfig(smallRun(3, 1000));
        QVERIFY(w.startAction()->isEnabled());
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(w.workerModel()->rowCount(), 3, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(totalSteps(w.workerModel()) > 300, 30000);
        for (int r = 0; r < 3; ++r)
            QTRY_VERIFY_WITH_TIMEOUT(!w.lossChart()->rawPoints(r).isEmpty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.lossChart()->rawPoints(TrainingChart::kTestSeries).isEmpty(),
                                 30000); // an epoch ended and the test set was evaluated
        QVERIFY(!w.divergenceChart()->rawPoints(0).isEmpty());
        QVERIFY(!w.startAction()->isEnabled()); // one run at a time
        QCOMPARE(ourSegments(), 1);
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 10000);
        QVERIFY(w.eventLogText().contains("Run stopped after"));
        for (const auto& row : w.workerModel()->rows())
            QCOMPARE(row.worker.state, WorkerState::Stopped);
        QVERIFY(w.startAction()->isEnabled());
        QCOMPARE(ourSegments(), 0); // unlinked as the run ended
        w.close();
    }

    void lostUpdatesAreChartedAndTabled() {
        MainWindow w;
        ExperimentConfig c = smallRun(4, 1000);
        c.model = "embedding-bag:8-16-2";
        c.dataset = "sparse-bow:20000x8:2:4";
        c.lostUpdates = true;
        w.form()->setConfig(c);
        QVERIFY(w.form()->config().lostUpdates); // the box shows it and keeps it
        w.startRun();
        QVERIFY(!w.lostUpdatesChart()->isHidden());
        for (int r = 0; r < 4; ++r)
            QTRY_VERIFY_WITH_TIMEOUT(!w.lostUpdatesChart()->rawPoints(r).isEmpty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(w.workerModel()->rows().size() == 4 &&
                                     w.workerModel()->rows()[0].worker.updateWrites > 0,
                                 30000);
        const QString cell =
            w.workerModel()
                ->data(w.workerModel()->index(0, WorkerTableModel::LostUpdates), Qt::DisplayRole)
                .toString();
        QVERIFY2(cell.contains(" of "), qPrintable(cell));
        QVERIFY(w.divergenceChart()->title().contains("staleness")); // shown as it fits
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 10000);

        // Serial: no lost-update chart, and no flat-zero divergence chart.
        c.mode = "serial";
        c.workers = 1;
        c.lostUpdates = false;
        c.epochs = 1;
        w.form()->setConfig(c);
        w.startRun();
        QVERIFY(w.lostUpdatesChart()->isHidden());
        QVERIFY(w.divergenceChart()->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
    }

    void noSegmentOutlivesTheWindow() {
        const int before = ourSegments();
        {
            MainWindow w;
            w.form()->setConfig(smallRun(2, 2));
            w.startRun();
            QTRY_VERIFY_WITH_TIMEOUT(w.controller()->run() && w.controller()->run()->finished(),
                                     60000);
        }
        QCOMPARE(ourSegments(), before);
    }

    void pauseAndResume() {
        MainWindow w;
        w.form()->setConfig(smallRun(2, 1000));
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(totalSteps(w.workerModel()) > 100, 30000);
        w.togglePause();
        QCOMPARE(w.pauseAction()->text(), QStringLiteral("&Resume"));
        QTRY_VERIFY_WITH_TIMEOUT(w.workerModel()->rows().size() == 2 &&
                                     w.workerModel()->rows()[0].worker.state ==
                                         WorkerState::Paused &&
                                     w.workerModel()->rows()[1].worker.state == WorkerState::Paused,
                                 10000);
        const quint64 frozen = totalSteps(w.workerModel());
        QTest::qWait(200);
        QCOMPARE(totalSteps(w.workerModel()), frozen);
        w.togglePause();
        QCOMPARE(w.pauseAction()->text(), QStringLiteral("&Pause"));
        QTRY_VERIFY_WITH_TIMEOUT(totalSteps(w.workerModel()) > frozen, 10000);
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 10000);
    }

    // The experiment of the last started run is kept as the run starts, so a
    // new window (after a restart or a crash) can bring it back.
    void lastStartedExperimentIsKept() {
        QSettings().remove("lastStartedExperiment");
        ExperimentConfig c = smallRun(2, 2);
        c.seed = 4242;
        c.lr = 0.037;
        c.batch = 48;
        {
            MainWindow w;
            QVERIFY(!w.files()->openLastStarted(true)); // nothing started yet
            w.form()->setConfig(c);
            w.startRun();
            QTRY_VERIFY_WITH_TIMEOUT(w.controller()->run() && !w.controller()->busy(), 60000);
        }
        MainWindow w;
        w.form()->setConfig(ExperimentConfig::defaults());
        QVERIFY(w.files()->openLastStarted(true));
        QCOMPARE(QString::fromStdString(w.form()->config().toJson()),
                 QString::fromStdString(c.toJson()));
        // A corrupt value is refused and changes nothing.
        QSettings().setValue("lastStartedExperiment", "{not json");
        w.form()->setConfig(ExperimentConfig::defaults());
        QVERIFY(!w.files()->openLastStarted(true));
        QCOMPARE(QString::fromStdString(w.form()->config().toJson()),
                 QString::fromStdString(ExperimentConfig::defaults().toJson()));
    }

    void savedExperimentRestoresEveryField() {
        MainWindow w;
        ExperimentConfig c = smallRun(3, 7);
        c.mode = "processes";
        c.startMethod = StartMethod::Spawn;
        c.share = false;
        c.onWorkerFailure = FailurePolicy::Continue;
        c.batch = 64;
        c.lr = 0.125;
        c.momentum = 0.5;
        c.weightDecay = 0.001;
        c.seed = 1234;
        c.split = DataSplit::Replicate;
        c.testFraction = 0.25;
        c.shuffle = false;
        w.form()->setConfig(c);
        const QString path = tmp_.filePath("saved.json");
        QVERIFY(w.files()->saveExperiment(path, true));
        w.form()->setConfig(ExperimentConfig::defaults());
        QVERIFY(w.files()->openExperiment(path, true));
        QCOMPARE(QString::fromStdString(w.form()->config().toJson()),
                 QString::fromStdString(c.toJson()));
        // Recent experiments persist.
        QVERIFY(QSettings().value("recentExperiments").toStringList().contains(path));
        // A broken file is refused and changes nothing.
        QFile bad(tmp_.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"workers\": \"many\"}");
        bad.close();
        QVERIFY(!w.files()->openExperiment(bad.fileName(), true));
        QCOMPARE(QString::fromStdString(w.form()->config().toJson()),
                 QString::fromStdString(c.toJson()));
        QVERIFY(w.eventLogText().contains("field \"workers\" must be an integer"));
    }

    void exportsWriteValidFiles() {
        MainWindow w;
        QVERIFY(!w.files()->exportWeights(tmp_.filePath("early.safetensors"), true)); // nothing yet
        w.form()->setConfig(smallRun(2, 2));
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(w.controller()->run() && !w.controller()->busy(), 60000);
        const QString st = tmp_.filePath("w.safetensors"), npz = tmp_.filePath("w.npz"),
                      csv = tmp_.filePath("m.csv");
        QVERIFY(w.files()->exportWeights(st, true));
        QVERIFY(w.files()->exportWeights(npz, true));
        QVERIFY(w.files()->exportMetrics(csv, true));
        const auto tensors = readSafetensors(st.toStdString());
        QCOMPARE(tensors.size(), std::size_t(4));
        QCOMPARE(tensors[0].name, std::string("0.weight"));
        QCOMPARE(tensors[0].shape, (std::vector<std::int64_t>{32, 20}));
        // The exported values are the run's parameters.
        const std::vector<float> params = w.controller()->run()->parameters();
        QVERIFY(std::equal(tensors[0].data.begin(), tensors[0].data.end(), params.begin()));
        QFile z(npz);
        QVERIFY(z.open(QIODevice::ReadOnly));
        QCOMPARE(z.read(2), QByteArray("PK"));
        // File > Export model (ONNX): ModelProto's first field, ir_version 7.
        QStringList actions;
        for (QAction* a : w.findChildren<QAction*>())
            actions << a->text();
        QVERIFY(actions.contains(QStringLiteral("Export model (&ONNX)…")));
        QVERIFY(w.files()->exportWeights(tmp_.filePath("w.onnx"), true));
        QFile o(tmp_.filePath("w.onnx"));
        QVERIFY(o.open(QIODevice::ReadOnly) && o.read(2) == QByteArray("\x08\x07", 2));
        QFile m(csv);
        QVERIFY(m.open(QIODevice::ReadOnly));
        QCOMPARE(m.readLine().trimmed(),
                 QByteArray("worker,epoch,step,samples,loss,time,kind,divergence,accuracy"));
        QVERIFY(m.readAll().count(",eval,") == 2);
        QVERIFY(!w.files()->exportWeights("/proc/nope/w.safetensors", true)); // unwritable: refused
    }

    // A start that fails while loading (a malformed CSV the form cannot see
    // into), then closing the window: it closes at once (it used to wait
    // forever for a run that never started).
    void closingAfterAFailedStartReturns() {
        QTemporaryDir dir;
        const QString csv = dir.filePath("bad.csv");
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("0,1,2\n1,2\n");
        f.close();
        QElapsedTimer closing;
        {
            MainWindow w;
            ExperimentConfig c = smallRun(2, 1);
            c.model = "mlp:2-4-2";
            c.dataset = "csv:" + csv.toStdString();
            c.testFraction = 0;
            w.form()->setConfig(c);
            QVERIFY(w.startAction()->isEnabled());
            QTimer dismiss; // the "Could not start" box, as the user would
            connect(&dismiss, &QTimer::timeout, [] {
                if (QWidget* box = QApplication::activeModalWidget())
                    box->close();
            });
            dismiss.start(50);
            w.startRun();
            QTRY_VERIFY_WITH_TIMEOUT(w.eventLogText().contains("line 2 has 2 columns"), 30000);
            const QString banner = w.verdictBanner()->text(); // said over the charts too
            QVERIFY(banner.startsWith("The run could not start\n") && banner.contains("2 columns"));
            closing.start();
        } // ~MainWindow, ~RunController
        QVERIFY2(closing.elapsed() < 10000, "closing the window hung");
    }

    // Stop while the data loads: the loading stops (it polls the request),
    // nothing starts, the log says so without an error box, and Start is
    // available again. Quitting in that state goes the same way.
    void stopWhileLoadingStopsTheLoading() {
        MainWindow w;
        ExperimentConfig c = smallRun(2, 1);
        c.dataset = "teacher:2000000x20:4"; // seconds to generate, were it not stopped
        c.model = "mlp:20-8-4";
        w.form()->setConfig(c);
        w.startRun();
        w.stopAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.eventLogText().contains("Stopped: stopped while loading the "
                                                           "data: nothing was started"),
                                 30000);
        QVERIFY(!w.eventLogText().contains("Could not start"));
        QVERIFY(w.startAction()->isEnabled());
    }

    void startFollowsFormValidity() {
        MainWindow w;
        w.form()->setConfig(smallRun(2, 1));
        QVERIFY(w.startAction()->isEnabled());
        ExperimentConfig bad = smallRun(2, 1);
        bad.model = "mlp:21-32-4"; // does not fit the 20-feature dataset
        w.form()->setConfig(bad);
        QVERIFY(!w.form()->isValid());
        QVERIFY(!w.startAction()->isEnabled());
        w.form()->setConfig(smallRun(2, 1));
        QVERIFY(w.startAction()->isEnabled());
    }

    // Issue 26 item 4: Start's tooltip says which field is wrong and why, in
    // the form's words, when that field is scrolls below view.
    void startSaysWhichFieldIsWrong() {
        MainWindow w;
        ExperimentConfig bad = smallRun(2, 1);
        bad.momentum = 1;
        w.form()->setConfig(bad);
        QVERIFY(!w.startAction()->isEnabled());
        QCOMPARE(w.startAction()->toolTip(),
                 QString("Momentum must be a number in [0, 1) (got 1)"));
        bad.lr = 0; // another problem, higher up: it is named first
        w.form()->setConfig(bad);
        QVERIFY(w.startAction()->toolTip().startsWith("Learning rate must be"));
        w.form()->setConfig(smallRun(2, 1));
        QVERIFY(w.startAction()->isEnabled());
        QVERIFY(!w.startAction()->toolTip().contains("must be"));
    }

    // Issue 26 item 4: the window looks for a GPU once, in the background, at
    // start; with none, a GPU mode cannot be started (no modal box, nothing
    // wiped) and Start says why.
    void gpuProbeAtStartDisablesGpuModes() {
        if (!cudaBuilt())
            QSKIP("built without CUDA: the GPU modes are listed as not built");
        MainWindow w;
        QTRY_VERIFY_WITH_TIMEOUT(w.form()->gpuAvailabilityKnown(), 35000);
        const DeviceList list = listDevices();
        QCOMPARE(w.form()->gpuAvailable(), !list.devices.empty());
        if (!list.devices.empty())
            QSKIP("this machine has a GPU");
        ExperimentConfig gpu = smallRun(2, 1);
        gpu.mode = "gpu-hogwild";
        gpu.momentum = 0;
        w.form()->setConfig(gpu);
        QVERIFY(!w.startAction()->isEnabled());
        const QString sentence =
            ExperimentForm::noGpuSentence(QString::fromStdString(list.unavailable));
        QCOMPARE(w.startAction()->toolTip(), "Mode: " + sentence);
        w.startRun(); // refused before anything is wiped
        QVERIFY(!w.controller()->busy());
        QVERIFY(!w.eventLogText().contains("Could not start"));
    }

    // Issue 26 item 9: at a 1440 px window every column of the Workers
    // table shows, unscrolled, with 16 workers' large numbers.
    // The window's accuracy chart never ticks past 100% (above it only room
    // for the label's upper half), nor below 0, even with a run overlaid
    // whose accuracy padding would take it there.
    void accuracyAxisStaysWithin0And100() {
        MainWindow w;
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrainingChart* chart = w.accuracyChart();
        chart->show();
        chart->setSmoothing(0); // the raw 99.8, which padding would take past 100
        chart->setWorkerCount(0, true);
        chart->appendPoints(TrainingChart::kTestSeries, {{1, 32, 0.1, 9.0}, {2, 64, 0.2, 99.8}});
        chart->refresh();
        auto* y = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical).value(0));
        QVERIFY(y && y->min() >= 0);
        QCOMPARE(y->categoriesLabels().last(), QStringLiteral("100"));
        const double above =
            (y->max() - 100) / (y->max() - y->min()) * chart->chart()->plotArea().height();
        QVERIFY2(above >= 0 && above <= QFontMetricsF(y->labelsFont()).height(),
                 qPrintable(QString::number(above)));
    }

    void workerTableFitsAt1440() {
        MainWindow w;
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTableView* table = nullptr;
        for (QTableView* t : w.findChildren<QTableView*>())
            if (t->model() == w.workerModel())
                table = t;
        QVERIFY(table);
        w.workerModel()->setRows(hwl::test::largeRows());
        QCoreApplication::processEvents();
        QHeaderView* header = table->horizontalHeader();
        QVERIFY2(
            header->length() <= table->viewport()->width(),
            qPrintable(
                QStringLiteral("%1 > %2").arg(header->length()).arg(table->viewport()->width())));
        for (int c = 0; c < WorkerTableModel::Count; ++c)
            QVERIFY(header->sectionViewportPosition(c) + header->sectionSize(c) <=
                    table->viewport()->width());
    }

    // The Help dialogs' titles are the menu's words without "&".
    void helpDialogTitleHasNoMnemonic() {
        MainWindow w;
        QAction* modes = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "&Modes and pitfalls")
                modes = a;
        QVERIFY(modes);
        QString title;
        QTimer poll;
        connect(&poll, &QTimer::timeout, &w, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                title = box->windowTitle();
                box->accept();
            }
        });
        poll.start(10);
        modes->trigger();
        QCOMPARE(title, QString("Modes and pitfalls"));
    }

    // Data-parallel over MPI from the window: mpirun starts rank 1, whose
    // telemetry reaches the chart and the table (with the rank's host), and
    // Stop stops both ranks at one step.
    void mpiRunFromTheWindow() {
        if (const QString why = test::whyMpiCannotRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        MainWindow w;
        ExperimentConfig c = smallRun(2, 1000);
        c.mode = "data-parallel";
        c.transport = Transport::Mpi;
        w.form()->setConfig(c);
        QVERIFY2(w.startAction()->isEnabled(),
                 qPrintable(QStringList(w.form()->problems().values()).join("; ")));
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(w.workerModel()->rowCount(), 2, 60000);
        for (int r = 0; r < 2; ++r)
            QTRY_VERIFY_WITH_TIMEOUT(!w.lossChart()->rawPoints(r).isEmpty(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.lossChart()->rawPoints(TrainingChart::kTestSeries).isEmpty(),
                                 60000); // an epoch ended and the test set was evaluated
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        QCOMPARE(w.controller()->run()->summary().state, RunState::Stopped);
        const auto& rows = w.workerModel()->rows();
        QCOMPARE(rows.size(), 2);
        for (const auto& row : rows) {
            QCOMPARE(row.worker.state, WorkerState::Stopped);
            QCOMPARE(row.worker.steps, rows[0].worker.steps); // stopped after the same step
            const QString id = w.workerModel()
                                   ->index(int(row.worker.rank), WorkerTableModel::Id)
                                   .data()
                                   .toString();
            const QString host = QString::fromStdString(row.worker.host);
            QVERIFY2(!host.isEmpty() && id.endsWith(" on " + host), qPrintable(id));
        }
        QVERIFY(w.eventLogText().contains("bit-identical"));
    }

    void notSharedPitfallIsExplainedInTheLog() {
        MainWindow w;
        QVERIFY(!w.applyPreset("no-such-scene"));
        QVERIFY(w.applyPreset("Forgot to share parameters (fork)")); // by its name
        QVERIFY(w.applyPreset("forgot-to-share"));                   // or its --preset id
        QVERIFY(w.explanationText().contains("share", Qt::CaseInsensitive));
        // The preset's 30 epochs take minutes under a sanitizer; two show it.
        ExperimentConfig shorter = w.form()->config();
        shorter.epochs = 2;
        w.form()->setConfig(shorter);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(w.controller()->run() && !w.controller()->busy(), 120000);
        QVERIFY2(w.eventLogText().contains("parameters were not shared"),
                 qPrintable(w.eventLogText()));
        QVERIFY(w.eventLogText().contains("fork() from a process that runs")); // GUI has threads
        QCOMPARE(w.workerModel()->rowCount(), 3);
        QVERIFY(w.workerModel()->rows()[0].process);
    }

    void comparisonPresetEndsSideBySide() {
        // hogwild-vs-locked end to end, with 3 epochs a run instead of 1500.
        MainWindow w;
        QVERIFY(w.applyPreset("hogwild-vs-locked"));
        QVERIFY(w.startComparison(shortened("hogwild-vs-locked", 3)));
        auto* status = w.findChild<QLabel*>("comparisonStatus");
        QVERIFY(status);
        QCOMPARE(status->text(), QStringLiteral("Run 1 of 2: locked"));
        QVERIFY(!status->isHidden());
        QVERIFY(w.verdictBanner()->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.comparisonRun() == -1, 60000);
        QVERIFY(status->isHidden());
        const QString verdict = w.verdictBanner()->text();
        QVERIFY(!w.verdictBanner()->isHidden());
        QVERIFY2(verdict.startsWith("Hogwild vs locked: 2 runs side by side\n"),
                 qPrintable(verdict));
        // Which won depends on the machine's load; within 10% it is called even.
        static const QRegularExpression won(
            "^((hogwild|locked) ran [0-9.,]+(% more samples per second than| times as many "
            "samples per second as) (locked|hogwild)\\.|(hogwild|locked) and (locked|hogwild) ran "
            "about as many samples per second: within 10%.*\\.) The throughput chart shows every "
            "run\\.$");
        QVERIFY2(won.match(verdict.section('\n', 1, 1)).hasMatch(), qPrintable(verdict));
        const QList<QStringList> table = tableOf(verdict);
        QCOMPARE(table.size(), 3);
        QCOMPARE(table[0], (QStringList{"run", "samples/s", "test accuracy", "train s"}));
        QCOMPARE(table[1][0], QStringLiteral("locked"));
        QCOMPARE(table[2][0], QStringLiteral("hogwild"));
        for (int row = 1; row <= 2; ++row) {
            bool ok = false;
            QVERIFY(QLocale().toDouble(table[row][1], &ok) > 0 && ok); // grouped as the locale
            QVERIFY(QLocale().toDouble(table[row][3], &ok) >= 0 && ok);
        }
        // The throughput chart shows both runs: the first as an overlay that
        // the axes fit, the last live.
        QCOMPARE(w.rateChart()->overlayCount(), 1);
        QVERIFY(w.rateChart()->overlaysFitAxes());
        QCOMPARE(w.rateChart()->workerCount(), 2);
        const QList<SavedRun>& runs = w.runLibrary()->runs();
        QVERIFY(runs.size() >= 2 && runs.back().visible && runs[runs.size() - 2].visible);
    }

    void divergenceComparisonShowsItsFigure() {
        // ddp-vs-hogwild on a small task: the divergence column and sentence.
        MainWindow w;
        QVERIFY(w.applyPreset("ddp-vs-hogwild"));
        QVERIFY(w.startComparison(shortened("ddp-vs-hogwild", 2, "teacher:4000x100:10")));
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.comparisonRun() == -1, 60000);
        const QString verdict = w.verdictBanner()->text();
        QVERIFY2(verdict.startsWith("DDP vs Hogwild on the same data: 2 runs side by side\n"),
                 qPrintable(verdict));
        // Data-parallel's replicas never differ; a run this short may not
        // catch Hogwild's staleness either (the sentence then says a tie).
        const QString sentence = verdict.section('\n', 1, 1);
        QVERIFY2(sentence.startsWith("data-parallel's divergence was 0 all run long, against a "
                                     "median of ") ||
                     sentence.startsWith("data-parallel and hogwild had the same median "
                                         "divergence over their steps: 0."),
                 qPrintable(verdict));
        QVERIFY2(sentence.endsWith(". The divergence chart shows every run."), qPrintable(verdict));
        const QList<QStringList> table = tableOf(verdict);
        QCOMPARE(table.size(), 3);
        QCOMPARE(table[0].back(), QStringLiteral("divergence, final / median"));
        QCOMPARE(table[1].front(), QStringLiteral("data-parallel"));
        QCOMPARE(table[1].back(), QStringLiteral("0 / 0"));
        QCOMPARE(w.divergenceChart()->overlayCount(), 1); // data-parallel; hogwild is live
        QVERIFY(w.divergenceChart()->overlaysFitAxes());
        QVERIFY(w.rateChart()->overlaysFitAxes()); // every chart of a comparison (issue 49)
        QVERIFY(!w.divergenceChart()->isHidden());
    }
};

HWL_WORKER_TEST_MAIN_WITH(TestMainWindow, QApplication)

#include "tst_mainwindow.moc"
