// The window's learning-rate chart: shown for a run with a schedule (its
// points the rate of each worker's steps, as the telemetry says and as the
// schedule's own formula gives it), hidden for a run at a constant rate,
// and listed in the View menu like every chart.
#include "form/experimentform.h"
#include "runs/runcontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "guitestmain.h"

#include <QAction>
#include <QMenuBar>
#include <QSpinBox>
#include <QTest>

#include <cmath>

using namespace hwl;
using namespace hwl::ui;

namespace {
ExperimentConfig scheduledRun() {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:4000x20:4";
    c.mode = "threads";
    c.workers = 2;
    c.epochs = 3;
    c.batch = 16;
    c.lr = 0.1;
    c.momentum = 0;
    c.lrSchedule = "step:1:0.5";
    c.warmupSteps = 20;
    return c;
}
} // namespace

class TestLrChart : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void aScheduledRunDrawsItsRatePerWorker() {
        MainWindow w;
        TrainingChart* chart = w.learningRateChart();
        QVERIFY(chart);
        QVERIFY(chart->isHidden()); // nothing scheduled yet
        const ExperimentConfig c = scheduledRun();
        w.form()->setConfig(c);
        QVERIFY2(w.form()->isValid(), qPrintable(hwl::test::problemText(*w.form())));
        // Paced, so that every epoch has step samples (a sample at most every 2 ms).
        w.paceBox()->setValue(1000);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 60000);
        QVERIFY(!chart->isHidden());
        QCOMPARE(chart->workerCount(), 2);
        for (int worker = 0; worker < 2; ++worker) {
            const QList<ChartSample>& points = chart->rawPoints(worker);
            QVERIFY2(points.size() > 3, qPrintable(QString::number(points.size())));
            double low = 1, high = 0;
            for (const ChartSample& p : points) {
                low = std::min(low, p.value);
                high = std::max(high, p.value);
            }
            // Warm-up from near 0, then 0.1, 0.05, 0.025 by epoch.
            QVERIFY2(low < 0.02 && std::abs(high - 0.1) < 1e-6,
                     qPrintable(QString("%1 .. %2").arg(low).arg(high)));
            QVERIFY(std::abs(points.back().value - 0.025) < 1e-6);
        }

        // A constant rate: no chart.
        ExperimentConfig plain = c;
        plain.lrSchedule = "constant";
        plain.warmupSteps = 0;
        plain.epochs = 1;
        w.form()->setConfig(plain);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 60000);
        QVERIFY(chart->isHidden());
    }

    void theViewMenuListsIt() {
        MainWindow w;
        bool listed = false;
        for (QAction* menu : w.menuBar()->actions())
            if (menu->menu())
                for (QAction* a : menu->menu()->actions())
                    listed = listed || a->text() == QStringLiteral("Learning-&rate chart");
        QVERIFY(listed);
    }
};

HWL_GUI_TEST_MAIN(TestLrChart)
#include "tst_lrchart.moc"
