// The window's charts as parts, without a MainWindow: RunCharts (which
// charts a run shows, telemetry turned into points and marks), the toolbar's
// ChartControls, the ChartGrid fitted to its room, and PresentationMode
// folding a window's parts for a projector and putting them back.
#include "charts/chartlabels.h"
#include "charts/trainingchart.h"
#include "guitestmain.h"
#include "teaching/verdict.h"
#include "testutil.h"
#include "window/chartcontrols.h"
#include "window/chartgrid.h"
#include "window/presentationmode.h"
#include "window/runcharts.h"

#include "config/modes.h"

#include <QAction>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QMainWindow>
#include <QSignalSpy>
#include <QSlider>
#include <QSplitter>
#include <QTabWidget>
#include <QToolBar>

using namespace hwl;
using namespace hwl::ui;

namespace {

Sample step(int worker, std::uint64_t n) {
    Sample s;
    s.kind = Sample::Step;
    s.worker = worker;
    s.step = n;
    s.samples = 32 * n;
    s.time = 0.01 * double(n);
    s.loss = 2.0f / float(n);
    s.divergence = 0.1f;
    s.lr = 0.05f;
    return s;
}

Sample epochEnd(std::uint32_t epoch) {
    Sample s = step(0, 10 * epoch);
    s.kind = Sample::EpochEnd;
    s.epoch = epoch;
    return s;
}

/// The charts inside a widget of the test's, as a layout would hold them.
struct HeldCharts {
    QWidget host;
    RunCharts charts;
    HeldCharts() {
        for (TrainingChart* chart : charts.all())
            chart->setParent(&host);
    }
};

} // namespace

class TestWindowCharts : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< the View menu's ticks, apart from the user's

private slots:
    void telemetryBecomesPointsAndMarks() {
        HeldCharts held;
        RunCharts& charts = held.charts;
        ExperimentConfig c;
        c.workers = 2;
        c.lrSchedule = "step:1:0.5";
        charts.prepare(c, nullptr);
        QCOMPARE(charts.loss()->workerCount(), 2);
        QVERIFY(charts.loss()->hasTestSeries());
        QVERIFY(charts.learningRate()->property("relevant").toBool());
        QSignalSpy logged(&charts, &RunCharts::eventLogged);
        QSignalSpy due(&charts, &RunCharts::redrawDue);

        QList<Sample> batch;
        for (std::uint64_t n = 1; n <= 10; ++n)
            batch << step(0, n) << step(1, n);
        batch << epochEnd(1) << epochEnd(2); // of 100 epochs: every 2nd is said
        Sample eval = step(0, 20);           // counts both workers' steps
        eval.kind = Sample::Eval;
        eval.epoch = 2;
        eval.accuracy = 0.8f;
        batch << eval;
        charts.addSamples(batch, 100, 2, true);
        QCOMPARE(charts.loss()->rawPoints(0).size(), 10);
        QCOMPARE(charts.divergence()->rawPoints(1).size(), 10);
        QCOMPARE(charts.learningRate()->rawPoints(1).size(), 10);
        const QList<ChartSample>& test = charts.loss()->rawPoints(TrainingChart::kTestSeries);
        QCOMPARE(test.size(), 1);
        QCOMPARE(test[0].step, 10.0); // per worker
        QCOMPARE(charts.accuracy()->rawPoints(TrainingChart::kTestSeries)[0].value, 80.0);
        QCOMPARE(charts.loss()->markers(TrainingChart::Marker::EpochEnd).size(), 1);
        QCOMPARE(logged.size(), 2); // epoch 2's mean loss and its test figures
        QVERIFY(logged[0][0].toString().startsWith("Epoch 2: worker 0"));
        QVERIFY(due.wait(1000));

        // Without a test set an evaluation draws nothing.
        charts.addSamples({eval}, 100, 2, false);
        QCOMPARE(charts.loss()->rawPoints(TrainingChart::kTestSeries).size(), 1);

        // A dead worker is marked once, where its curve ends; a running one
        // adds its rate.
        WorkerRow dead, alive;
        dead.worker.rank = 1;
        dead.worker.state = WorkerState::Failed;
        dead.worker.steps = 10;
        alive.worker.state = WorkerState::Running;
        alive.worker.steps = 12;
        alive.samplesPerSecond = 640;
        charts.addWorkerRows({dead, alive}, 1.5);
        charts.addWorkerRows({dead, alive}, 2.0);
        QCOMPARE(charts.loss()->markers(TrainingChart::Marker::WorkerDeath).size(), 1);
        QCOMPARE(charts.rate()->rawPoints(0).size(), 2);
        QCOMPARE(charts.rate()->rawPoints(0)[1].value, 640.0);
        charts.prepare(c, nullptr); // a new run: its deaths are its own
        charts.addWorkerRows({dead}, 0.5);
        QCOMPARE(charts.loss()->markers(TrainingChart::Marker::WorkerDeath).size(), 1);
    }

    void aRunShowsTheChartsItHas() {
        HeldCharts held;
        RunCharts& charts = held.charts;
        QSignalSpy layout(&charts, &RunCharts::layoutChanged);
        ExperimentConfig one;
        one.mode = modes::serial;
        one.workers = 1;
        charts.prepare(one, nullptr);
        QVERIFY(layout.size() > 0);
        QVERIFY(charts.divergence()->isHidden()); // one worker: no divergence
        QVERIFY(charts.lostUpdates()->isHidden());
        QVERIFY(charts.learningRate()->isHidden()); // a constant rate
        QVERIFY(!charts.rate()->isHidden());
        ExperimentConfig counted;
        counted.workers = 2;
        counted.lostUpdates = true;
        charts.prepare(counted, nullptr);
        QVERIFY(!charts.lostUpdates()->isHidden());
        QVERIFY(!charts.divergence()->isHidden());
        // The View menu's tick hides a chart the run has, and is kept.
        RunCharts::setTicked(charts.lostUpdates(), false);
        charts.show(charts.lostUpdates(), true);
        QVERIFY(charts.lostUpdates()->isHidden());
        QVERIFY(charts.lostUpdates()->property("relevant").toBool());
        QVERIFY(!RunCharts::ticked(charts.lostUpdates()));
        RunCharts::setTicked(charts.lostUpdates(), true);
        charts.show(charts.lostUpdates(), true);
        QVERIFY(!charts.lostUpdates()->isHidden());
        // A comparison fits every chart's axes to all its runs (issue 49:
        // ddp-vs-hogwild's earlier throughput lay off the rate chart);
        // without one, the bounded figures' charts (rate, accuracy) still
        // hold every run, the loss and divergence fit the live run.
        ComparisonRecord compared;
        compared.figure = ComparedFigure::Divergence;
        charts.prepare(counted, &compared);
        for (TrainingChart* chart : {charts.rate(), charts.divergence(), charts.loss()})
            QVERIFY(chart->overlaysFitAxes());
        charts.prepare(counted, nullptr);
        QVERIFY(charts.rate()->overlaysFitAxes() && charts.accuracy()->overlaysFitAxes());
        QVERIFY(!charts.loss()->overlaysFitAxes() && !charts.divergence()->overlaysFitAxes());
    }

    // Redraws wait their cost over the budget: a tenth of a core, a fiftieth
    // while the run's workers take every core (4 to 10 Hz then).
    void redrawsYieldToWorkersThatTakeEveryCore() {
        QCOMPARE(RunCharts::redrawIntervalMs(2, false), RunCharts::kMinRedrawMs);
        QCOMPARE(RunCharts::redrawIntervalMs(2, true), 100);
        QCOMPARE(RunCharts::redrawIntervalMs(10, false), RunCharts::kMaxRedrawMs);
        QCOMPARE(RunCharts::redrawIntervalMs(10, true), RunCharts::kSharedMaxRedrawMs);
        QCOMPARE(RunCharts::redrawIntervalMs(0.1, true), RunCharts::kMinRedrawMs);
        HeldCharts held;
        QVERIFY(!held.charts.coresShared());
        held.charts.setCoresShared(true);
        QVERIFY(held.charts.coresShared());
    }

    void controlsApplyToEveryChart() {
        HeldCharts held;
        QToolBar bar;
        ChartControls controls(&held.charts, &bar);
        QSignalSpy redraw(&controls, &ChartControls::redrawRequested);
        // Smoothing: every chart but the test accuracy's, whose evaluations
        // are drawn as measured (its last point is the run's figure).
        const auto expected = [&](TrainingChart* chart, double w) {
            return chart == held.charts.accuracy() ? 0.0 : w;
        };
        for (TrainingChart* chart : held.charts.all())
            QCOMPARE(chart->smoothing(), expected(chart, 0.6));
        controls.smoothing()->setValue(30);
        controls.xAxis()->setCurrentIndex(1);
        controls.logScale()->setChecked(true);
        for (TrainingChart* chart : held.charts.all()) {
            QCOMPARE(chart->smoothing(), expected(chart, 0.3));
            QCOMPARE(chart->xAxis(), TrainingChart::XAxis::Samples);
            QVERIFY(chart->logScale());
        }
        QCOMPARE(redraw.size(), 3);
        // Many workers: the mean and band, on every chart but the accuracy's.
        QVERIFY(!controls.suggestBand(2));
        QVERIFY(controls.suggestBand(ChartControls::kBandWorkers));
        QVERIFY(held.charts.loss()->bandView());
        QVERIFY(!held.charts.accuracy()->bandView());
        QVERIFY(!controls.suggestBand(2));
        QVERIFY(!controls.band()->isChecked());
        controls.band()->click(); // the user's choice stays
        QVERIFY(!controls.suggestBand(2));
        QVERIFY(controls.band()->isChecked());
    }

    void gridFitsItsRoom() {
        RunCharts charts;
        auto* verdict = new VerdictBanner;
        ChartGrid grid(&charts, verdict);
        ExperimentConfig c;
        c.workers = 2;
        c.lostUpdates = true;
        charts.prepare(c, nullptr);
        charts.show(charts.accuracy(), true);
        grid.resize(1200, 1100);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        QTRY_COMPARE(grid.shownRows(), 2);
        grid.resize(1200, 250); // the loss chart alone still reads
        QTRY_COMPARE(grid.shownRows(), 0);
        QVERIFY(!charts.loss()->isHidden());
        grid.resize(1200, 1100);
        QTRY_COMPARE(grid.shownRows(), 2);
        // A verdict takes room over the charts, bounded.
        verdict->showVerdict({Verdict::Finding, "A finding", QString(40, 'x'), {}, {}, {}});
        QTRY_VERIFY(grid.findChild<QWidget*>("verdictArea")->isVisible());
        QVERIFY(grid.findChild<QWidget*>("verdictArea")->height() <= ChartGrid::kBannerMax);
        // A long one (a six-run table) gets a third of a tall grid, the
        // charts keeping their two rows; no more than kBannerMax in a short one.
        QStringList lines;
        for (int i = 0; i < 16; ++i)
            lines << QStringLiteral("run %1: a line of its table").arg(i);
        verdict->showVerdict(
            {Verdict::Finding, "A comparison", lines.join("<br>"), {}, "rateChart", "throughput"});
        QTRY_VERIFY(verdict->text().contains("The throughput chart shows every run."));
        QTRY_VERIFY(grid.findChild<QWidget*>("verdictArea")->height() > ChartGrid::kBannerMax);
        QVERIFY(grid.findChild<QWidget*>("verdictArea")->height() <= 1100 / 3);
        QCOMPARE(grid.shownRows(), 2);
        grid.resize(1200, 450);
        QTRY_VERIFY(grid.findChild<QWidget*>("verdictArea")->height() <= ChartGrid::kBannerMax);
        // A comparison's banner says its chart shows every run; with no
        // room for the small charts, it says so, and once they show again,
        // that it shows.
        grid.resize(1200, 1100);
        verdict->showVerdict(
            {Verdict::Finding, "A comparison", "Who won.", {}, "rateChart", "throughput"});
        QTRY_VERIFY(verdict->text().contains("Who won. The throughput chart shows every run."));
        // (In the window the grid is a splitter's child; alone, as a top-level
        // widget, its layout would hold it at its shown charts' minimum.)
        grid.layout()->setSizeConstraint(QLayout::SetNoConstraint);
        grid.resize(1200, 250);
        QTRY_COMPARE(grid.shownRows(), 0);
        QTRY_VERIFY2(verdict->text().contains("The throughput chart draws every run, but the "
                                              "window has no room for it now"),
                     qPrintable(verdict->text()));
        grid.resize(1200, 1100);
        QTRY_VERIFY(verdict->text().contains("Who won. The throughput chart shows every run."));
        grid.setPresentation(true);
        for (TrainingChart* chart : charts.all())
            QVERIFY(chart->presentation());
    }

    // One earlier run beside four live workers in a quarter of a 1280x720
    // projector window (accumulate-hogwild's small charts): the run keeps
    // its name and, once the live run's name has no room, the workers their
    // ranks, not colour squares alone (or whole names where the legend wraps).
    void aSmallLegendKeepsRanksBesideAnEarlierRun() {
        TrainingChart chart("Divergence per worker: staleness", "L2");
        chart.setWorkerCount(4, true);
        chart.setLiveName("accumulate-8");
        chart.setPresentation(true);
        QList<ChartSample> curve;
        for (int i = 0; i < 20; ++i)
            curve.append({double(i), double(64 * i), 0.1 * i, 1000.0 + i});
        for (int w = 0; w < 4; ++w)
            chart.appendPoints(w, curve);
        chart.setOverlays({{"#1 accumulate-1 · Gradient accumulation under Hogwild (K = 1 and 8)",
                            QColor(Qt::darkGreen), false, curve, -1, "accumulate-1"}});
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        for (const int width : {420, 320}) {
            chart.resize(width, 240);
            QTest::qWait(20);
            chart.refresh();
            QCoreApplication::processEvents();
            QStringList shown;
            for (QLegendMarker* m : chart.chart()->legend()->markers())
                if (m->isVisible())
                    shown << m->label();
            const QString all = QString::number(width) + ": " + shown.join(" | ");
            QVERIFY2(shown.filter("accumulate-1").size() == 1, qPrintable(all));
            for (const QString rank : {"1", "2", "3"})
                QVERIFY2(shown.contains(rank) || shown.contains("worker " + rank), qPrintable(all));
            QVERIFY2(elidedTexts(chart.chart()).isEmpty(), qPrintable(all));
        }
    }

    void presentationFoldsAndRestores() {
        QMainWindow window;
        auto* dock = new QDockWidget("Experiment");
        dock->setWidget(new QWidget);
        window.addDockWidget(Qt::LeftDockWidgetArea, dock);
        QToolBar* bar = window.addToolBar("Run");
        bar->addAction("Start");
        RunCharts charts;
        auto* grid = new ChartGrid(&charts, new VerdictBanner);
        auto* tabs = new QTabWidget;
        tabs->addTab(new QWidget, "Workers");
        auto* centre = new QSplitter(Qt::Vertical);
        centre->addWidget(grid);
        centre->addWidget(tabs);
        auto* explanation = new QWidget;
        auto* main = new QSplitter;
        main->addWidget(centre);
        main->addWidget(explanation);
        window.setCentralWidget(main);
        PresentationMode mode({&window, dock, explanation, main, centre, tabs, grid}, bar);
        QCOMPARE(bar->actions().size(), 3); // the two drawers first
        QCOMPARE(bar->actions()[0]->text(), "Experiment");
        QVERIFY(!bar->actions()[0]->isVisible());
        window.resize(1024, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        mode.action()->trigger(); // F5
        QVERIFY(mode.isOn());
        QVERIFY(QSettings().value(PresentationMode::kSettingsKey).toBool());
        QVERIFY(dock->isHidden() && explanation->isHidden());
        QVERIFY(tabs->maximumHeight() < 100); // folded to its tab bar
        QVERIFY(bar->actions()[0]->isVisible());
        QVERIFY(charts.loss()->presentation());
        bar->actions()[0]->setChecked(true); // the drawer opens the form
        QVERIFY(!dock->isHidden());
        mode.openTabs();
        QCOMPARE(tabs->maximumHeight(), QWIDGETSIZE_MAX);

        mode.setOn(false, false);
        QVERIFY(!mode.action()->isChecked());
        QVERIFY(!dock->isHidden() && !explanation->isHidden());
        QVERIFY(!bar->actions()[0]->isVisible());
        QVERIFY(!charts.loss()->presentation());
        QVERIFY(QSettings().value(PresentationMode::kSettingsKey).toBool()); // not remembered
    }
};

HWL_GUI_TEST_MAIN(TestWindowCharts)
#include "tst_windowcharts.moc"
