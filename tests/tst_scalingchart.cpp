// The Runs tab's scaling chart: a final figure of the runs the table shows
// against a field that varies. Only runs alike in every other field but their
// seed share a line, named by what sets it apart (so lessons never share one);
// a y axis that holds every line and error bar, never below zero, with short
// tick labels; whole workers along x; the spread of repeated runs as error
// bars; failed runs left out with a note; the legend in words under the chart.
#include "charts/chartlabels.h"
#include "guitestmain.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/scalingchart.h"
#include "runsfixtures.h"
#include "testutil.h"

#include <QCategoryAxis>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QTableView>
#include <QTest>
#include <QValueAxis>

using namespace hwl;
using namespace hwl::test;
using namespace hwl::ui;

class TestScalingChart : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void theScalingChartDrawsALinePerSetOfAlikeRuns() {
        RunLibrary lib(tmp_.filePath("scaling/runs.json"));
        QList<SavedRun> runs = sweepRuns();
        runs.append(run("threads", 2, 50000)); // a second threads x2: averaged
        for (const SavedRun& r : runs)
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        panel.resize(900, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ScalingChart* chart = panel.scalingChart();
        QCOMPARE(chart->figureBox()->currentText(), QStringLiteral("samples/s"));
        QCOMPARE(chart->againstBox()->currentText(), QStringLiteral("workers")); // numeric first
        QList<QLineSeries*> lines = chart->series();
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0]->name(), QStringLiteral("mode=threads"));
        QCOMPARE(lines[1]->name(), QStringLiteral("mode=threads-locked"));
        QCOMPARE(points(lines[0]), (QList<QPointF>{{1, 9000}, {2, 40000}, {4, 150000}}));
        QCOMPARE(points(lines[1]), (QList<QPointF>{{1, 8000}, {2, 12000}, {4, 100000}}));
        const auto axes = chart->chart()->axes(Qt::Horizontal);
        QCOMPARE(axes.size(), 1);
        QCOMPARE(axes[0]->titleText(), QStringLiteral("workers"));
        QCOMPARE(chart->chart()->axes(Qt::Vertical)[0]->titleText(), QStringLiteral("samples/s"));
        // Every line inside the y range, its ticks written short ("150k",
        // never "1.5e+05" or "112500"); whole workers along x.
        auto* y = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical)[0]);
        QVERIFY(y);
        QVERIFY2(y->min() <= 8000 && y->max() >= 150000,
                 qPrintable(QStringLiteral("%1..%2").arg(y->min()).arg(y->max())));
        QVERIFY(y->categoriesLabels().size() >= 2);
        for (const QString& label : y->categoriesLabels())
            QVERIFY2(QRegularExpression("^-?[0-9.]+[kMG]?$").match(label).hasMatch(),
                     qPrintable(label));
        auto* x = qobject_cast<QCategoryAxis*>(axes[0]);
        QVERIFY(x);
        for (const QString& label : x->categoriesLabels())
            QVERIFY2(QRegularExpression("^[0-9]+$").match(label).hasMatch(), qPrintable(label));
        QVERIFY(x->min() <= 1 && x->max() >= 4);
        // Both lines named in the legend under the chart, in words.
        QVERIFY(chart->legend()->isVisible());
        QVERIFY(chart->legend()->text().contains("mode=threads-locked"));
        QVERIFY(!chart->leftOutNote()->isVisible());
        // Counts and rates: the axes start at zero at the lowest.
        QVERIFY2(y->min() >= 0 && x->min() >= 0,
                 qPrintable(QStringLiteral("%1, %2").arg(y->min()).arg(x->min())));
        // The rows the table shows: the filter keeps one mode, one line,
        // named by the figure; no legend for one line.
        panel.filter()->setText("locked");
        lines = chart->series();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0]->name(), QStringLiteral("samples/s"));
        QVERIFY(!chart->legend()->isVisible());
        panel.filter()->clear();
        // Another figure.
        chart->figureBox()->setCurrentText("train s");
        lines = chart->series();
        QCOMPARE(lines.size(), 2);
        QCOMPARE(points(lines[0]), (QList<QPointF>{{1, 2.5}, {2, 2.5}, {4, 2.5}}));
        // The seed is never along x: repeats' seeds are their spread.
        for (int i = 0; i < chart->againstBox()->count(); ++i)
            QVERIFY(chart->againstBox()->itemText(i) != QStringLiteral("seed"));
        // A field of words along x: one category per value, in order; a
        // line per worker count.
        chart->againstBox()->setCurrentText("mode");
        lines = chart->series();
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0]->name(), QStringLiteral("workers=1"));
        QCOMPARE(points(lines[0]), (QList<QPointF>{{0, 2.5}, {1, 2.5}}));
        // Categories have no order: dots, no line joining them (issue 49: a
        // line from data-parallel down to threads read as a cliff).
        QVERIFY(!lines[0]->isVisible());
        int dots = 0;
        for (QAbstractSeries* s : chart->chart()->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s)) {
                ++dots;
                QVERIFY(scatter->isVisible());
            }
        QCOMPARE(dots, 3);
        // From zero: the figures are counts, rates, shares and times.
        QCOMPARE(qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical)[0])->min(), 0.0);
        // The choices stay as the runs change.
        QCOMPARE(lib.add(run("threads", 8, 1000)), QString());
        QTRY_COMPARE(panel.table()->model()->rowCount(), 8);
        QCOMPARE(chart->againstBox()->currentText(), QStringLiteral("mode"));
        QCOMPARE(chart->series().size(), 4);
    }

    // In a small room (a projector's bottom tab) no label, title or legend
    // entry is elided: fewer ticks, the y title only where it fits.
    void theScalingChartFitsASmallRoom() {
        RunLibrary lib(tmp_.filePath("small/runs.json"));
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ScalingChart* chart = panel.scalingChart();
        for (const QSize size : {QSize(1280, 720), QSize(900, 300), QSize(700, 220)}) {
            panel.resize(size);
            QTest::qWait(50);
            QCoreApplication::processEvents();
            const QString at = QStringLiteral("%1x%2: ").arg(size.width()).arg(size.height());
            QTRY_VERIFY2(elidedTexts(chart->chart()).isEmpty(),
                         qPrintable(at + elidedTexts(chart->chart()).join(" | ")));
            auto* y = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical)[0]);
            QVERIFY2(y && y->categoriesLabels().size() >= 2,
                     qPrintable(at + y->categoriesLabels().join(' ')));
            // The last x label sits on the axis' end: half of it needs room
            // in the right margin, else the chart cuts it.
            auto* x = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Horizontal)[0]);
            QVERIFY(x && !x->categoriesLabels().isEmpty());
            const QFontMetricsF metrics(x->labelsFont());
            QVERIFY2(chart->chart()->margins().right() >=
                         metrics.horizontalAdvance(x->categoriesLabels().back()) / 2,
                     qPrintable(at + x->categoriesLabels().back()));
            // The legend wraps in words, never elided.
            QVERIFY(chart->legend()->wordWrap());
            QVERIFY(!chart->legend()->text().contains(QChar(0x2026)));
        }
    }

    void theScalingChartDefaultsKeepLessonsApart() {
        // Runs of two lessons: the default experiment's MLP and a CNN, each
        // at 1 and 2 workers with two learning rates. Along x: workers,
        // though lr sorts first; a line per model and rate, never one
        // through runs of two models or two rates.
        RunLibrary lib(tmp_.filePath("lessons/runs.json"));
        for (const char* model : {"mlp:784-128-10", "cnn:mnist"})
            for (const int workers : {1, 2})
                for (const char* lr : {"0.01", "0.05"}) {
                    SavedRun r = run("threads", workers, 1000.0 * workers);
                    r.model = QString::fromLatin1(model);
                    r.fields.insert("model", r.model);
                    r.fields.insert("lr", QString::fromLatin1(lr));
                    QCOMPARE(lib.add(r), QString());
                }
        RunListPanel panel(&lib);
        ScalingChart* chart = panel.scalingChart();
        QCOMPARE(chart->againstBox()->currentText(), QStringLiteral("workers"));
        const QList<QLineSeries*> lines = chart->series();
        QCOMPARE(lines.size(), 4);
        for (int i = 0; i < lines.size(); ++i) {
            QCOMPARE(chart->points(i).size(), 2);
            QCOMPARE(chart->points(i)[0].n, 1); // no two runs averaged
            QVERIFY2(lines[i]->name().contains("model=") && lines[i]->name().contains("lr="),
                     qPrintable(lines[i]->name()));
        }
    }

    // A library of unrelated runs (an embedding bag and an MLP on their own
    // datasets, a run that failed): no line runs through two lessons, each
    // is named by what differs, and the failed run is no point but a note.
    void aMixedLibraryKeepsItsRunsApart() {
        RunLibrary lib(tmp_.filePath("mixed/runs.json"));
        const auto lesson = [](const char* model, const char* dataset, int workers, double rate) {
            SavedRun r = run("threads", workers, rate);
            r.model = QString::fromLatin1(model);
            r.dataset = QString::fromLatin1(dataset);
            r.fields.insert("model", r.model);
            r.fields.insert("dataset", r.dataset);
            return r;
        };
        for (const int workers : {1, 2, 4}) {
            QCOMPARE(lib.add(lesson("embedding-bag:1000-16-4", "bags:4000x1000:4", workers,
                                    20000.0 * workers)),
                     QString());
            QCOMPARE(
                lib.add(lesson("mlp:20-16-4", "teacher:2000x20:4:16", workers, 5000.0 * workers)),
                QString());
        }
        SavedRun failed = lesson("mlp:20-16-4", "teacher:2000x20:4:16", 8, 1e9);
        failed.result = "failed";
        QCOMPARE(lib.add(failed), QString());
        RunListPanel panel(&lib);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ScalingChart* chart = panel.scalingChart();
        QCOMPARE(chart->againstBox()->currentText(), QStringLiteral("workers"));
        const QList<QLineSeries*> lines = chart->series();
        QCOMPARE(lines.size(), 2);
        QStringList names;
        for (int i = 0; i < lines.size(); ++i) {
            names << lines[i]->name();
            QCOMPARE(chart->points(i).size(), 3); // the failed x8 is no point
            for (const ScalingChart::Point& p : chart->points(i))
                QVERIFY(p.x <= 4 && p.mean < 1e6);
        }
        names.sort();
        QCOMPARE(names, (QStringList{"model=embedding-bag:1000-16-4, dataset=bags:4000x1000:4",
                                     "model=mlp:20-16-4, dataset=teacher:2000x20:4:16"}));
        // Every name whole in the legend under the chart.
        for (const QString& name : names)
            QVERIFY2(chart->legend()->text().contains(name.toHtmlEscaped()),
                     qPrintable(chart->legend()->text()));
        QTRY_VERIFY(chart->leftOutNote()->isVisible());
        QVERIFY2(chart->leftOutNote()->text().contains("1 run"),
                 qPrintable(chart->leftOutNote()->text()));
        auto* y = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical)[0]);
        QVERIFY(y && y->min() >= 0 && y->max() >= 80000);
    }

    // Issue 49 review: in a short tab the legend was laid over the axis,
    // and a spread wider than its mean drew the axis down to "-5M".
    void aShortTabKeepsTheLegendOffTheAxisAndZeroUp() {
        RunLibrary lib(tmp_.filePath("short/runs.json"));
        for (const SavedRun& r :
             {repeat("threads", 1, 100, 1), repeat("threads", 1, 900, 2),
              repeat("threads", 1, 9000, 3), repeat("threads", 2, 500, 1),
              repeat("threads-locked", 1, 50, 1), repeat("threads-locked", 2, 70, 1)})
            QCOMPARE(lib.add(r), QString());
        QWidget tab; // the window's bottom tab: its height is what it is given
        auto* panel = new RunListPanel(&lib, &tab);
        tab.resize(900, 190);
        panel->setGeometry(0, 0, 900, 190);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        ScalingChart* chart = panel->scalingChart();
        QTRY_VERIFY(chart->legend()->isVisible());
        QCoreApplication::processEvents();
        QWidget* view = chart->findChild<QWidget*>("scalingChart");
        QVERIFY(view);
        QVERIFY2(!view->geometry().intersects(chart->legend()->geometry()),
                 qPrintable(QStringLiteral("chart %1,%2 %3x%4; legend from y %5")
                                .arg(view->x())
                                .arg(view->y())
                                .arg(view->width())
                                .arg(view->height())
                                .arg(chart->legend()->y())));
        auto* y = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical)[0]);
        QCOMPARE(y->min(), 0.0); // 3,333 ± 4,918: the bar stops at 0, the axis too
        for (const QPointF& at : chart->errorBar(0, 0)->points())
            QVERIFY(at.y() >= 0);
    }

    void aPointOfSeveralRunsShowsTheirSpread() {
        // threads x2 made three times (100, 200, 300 samples/s), x1 once:
        // the bar runs 100..300 above a top mean of 200; threads-locked x2 once.
        RunLibrary lib(tmp_.filePath("bars/runs.json"));
        for (const SavedRun& r : {repeat("threads", 1, 100, 1), repeat("threads", 2, 100, 1),
                                  repeat("threads", 2, 200, 2), repeat("threads", 2, 300, 3),
                                  repeat("threads-locked", 2, 50, 1)})
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        panel.show(); // the legend's markers are shown
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ScalingChart* chart = panel.scalingChart();
        for (const bool folded : {false, true}) { // folded, the chart still gets every run
            panel.foldRepeats()->setChecked(folded);
            QCOMPARE(chart->againstBox()->currentText(), QStringLiteral("workers"));
            QCOMPARE(chart->series().size(), 2); // the bars are no lines of their own
            QCOMPARE(points(chart->series()[0]), (QList<QPointF>{{1, 100}, {2, 200}}));
            const QList<ScalingChart::Point> p = chart->points(0);
            QCOMPARE(p.size(), 2);
            QCOMPARE(p[1].n, 3);
            QCOMPARE(p[1].sd, 100.0);
            // One run: no bar; three: a stem from mean - sd to mean + sd.
            QVERIFY(!chart->errorBar(0, 0));
            QLineSeries* bar = chart->errorBar(0, 1);
            QVERIFY(bar);
            QVERIFY(bar->points().contains(QPointF(2, 100)));
            QVERIFY(bar->points().contains(QPointF(2, 300)));
            for (const QPointF& at : bar->points())
                QVERIFY(at.y() == 100 || at.y() == 300);
            QCOMPARE(bar->color(), chart->series()[0]->color());
            QVERIFY(!chart->errorBar(1, 0)); // threads-locked: one run
            // The legend under the chart: an entry per line, none per bar.
            QCOMPARE(chart->legend()->text().count(QStringLiteral("&#9632;")), 2);
            // The y axis covers the bar's ends.
            const auto* y = qobject_cast<QValueAxis*>(chart->chart()->axes(Qt::Vertical)[0]);
            QVERIFY2(y->min() <= 100 && y->max() >= 300,
                     qPrintable(QStringLiteral("%1..%2").arg(y->min()).arg(y->max())));
            // What hovering says.
            QCOMPARE(chart->pointText(0, 1),
                     QStringLiteral("mode=threads, workers 2: samples/s 200 ± 100, the mean ± "
                                    "sample standard deviation (n − 1) over 3 runs"));
            QCOMPARE(chart->pointText(0, 0),
                     QStringLiteral("mode=threads, workers 1: samples/s 100 (one run)"));
        }
        // A field of words along x: the bar at its category.
        chart->againstBox()->setCurrentText("mode");
        QCOMPARE(chart->series().size(), 2);
        QVERIFY(!chart->errorBar(0, 0));
        QVERIFY(chart->errorBar(1, 0)->points().contains(QPointF(0, 300)));
        QVERIFY(chart->pointText(1, 0).startsWith("workers=2, mode threads: samples/s 200 ± 100"));
    }
};

HWL_GUI_TEST_MAIN(TestScalingChart)
#include "tst_scalingchart.moc"
