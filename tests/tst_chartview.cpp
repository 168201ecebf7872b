// What a reader does with a chart: hover a point (its step, samples, time,
// raw and smoothed value), zoom (the axes then stay put while data arrives)
// and go back to the whole run, earlier runs overlaid under the live
// series (kept when a new run sets the workers up), tick labels in plain
// notation, and the dark theme. Offscreen platform.
#include "charts/chartlabels.h"
#include "charts/trainingchart.h"
#include "widgets/chartaxes.h"
#include "widgets/chartview.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSet>
#include <QTest>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>
#include <memory>

using namespace hwl::ui;

namespace {
QList<ChartSample> ramp(int n, double scale) {
    QList<ChartSample> out;
    for (int i = 1; i <= n; ++i)
        out.append({double(i), 32.0 * i, 0.5 * i, scale * i});
    return out;
}

QCategoryAxis* xAxisOf(const TrainingChart& chart) {
    return qobject_cast<QCategoryAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
}
QCategoryAxis* yAxisOf(const TrainingChart& chart) {
    return qobject_cast<QCategoryAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
}
/// Where an axis' ticks are (its categories' ends).
QList<double> tickPositions(QCategoryAxis* axis) {
    QList<double> at;
    for (const QString& label : axis->categoriesLabels())
        at << axis->endValue(label);
    return at;
}
} // namespace

class TestChartView : public QObject {
    Q_OBJECT

private slots:
    // Every chart of the window (the training charts, the runs' scaling
    // chart) starts from ChartView::makeChart(): the room goes to the curves.
    void everyChartIsSetUpAlike() {
        std::unique_ptr<QChart> made(ChartView::makeChart());
        QCOMPARE(made->animationOptions(), QChart::NoAnimation);
        QCOMPARE(made->legend()->alignment(), Qt::AlignBottom);
        QVERIFY(made->legend()->showToolTips());
        QCOMPARE(made->margins(), QMargins(4, 2, 4, 2));
        QCOMPARE(made->backgroundRoundness(), 0.0);
        TrainingChart chart("loss", "loss");
        QCOMPARE(chart.chart()->margins(), made->margins());
        QCOMPARE(chart.chart()->legend()->alignment(), Qt::AlignBottom);
        QCOMPARE(chart.chart()->animationOptions(), QChart::NoAnimation);
    }

    void hoverDescribesTheNearestPoint() {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(2, false);
        chart.appendPoints(1, ramp(100, 0.01));
        chart.setSmoothing(0.5);
        chart.refresh();
        const QString text = chart.describePoint(1, 41.7);
        QVERIFY2(text.startsWith("worker 1\n"), qPrintable(text));
        QVERIFY2(text.contains("step 42 · samples 1,344 · 21.00 s"), qPrintable(text));
        QVERIFY2(text.contains("value 0.42, smoothed "), qPrintable(text));
        chart.appendPoints(0, {{7, 224, 3.5, 1475729.0}});
        QVERIFY2(chart.describePoint(0, 7).contains("value 1,475,729"),
                 qPrintable(chart.describePoint(0, 7)));
        QCOMPARE(chart.describePoint(0, 3).isEmpty(), false);
        QCOMPARE(chart.describePoint(5, 3), QString()); // no such series
        chart.setWorkerCount(2, false);
        QCOMPARE(chart.describePoint(0, 3), QString()); // no points
        QCOMPARE(chart.describePoint(7, 3), QString()); // no such series
    }

    void zoomHoldsTheAxesUntilReset() {
        TrainingChart chart("loss", "loss");
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart)); // a plot area to zoom in
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, ramp(100, 1));
        chart.refresh();
        QCategoryAxis* x = xAxisOf(chart);
        QVERIFY(x && x->max() >= 100);
        chart.view()->zoomAbout(chart.chart()->plotArea().center(), 0.5);
        QVERIFY(chart.zoomed());
        const double zoomedMax = x->max();
        QVERIFY2(zoomedMax < 100, qPrintable(QString::number(zoomedMax)));
        QList<ChartSample> more;
        for (int i = 101; i <= 400; ++i)
            more.append({double(i), 32.0 * i, 0.5 * i, double(i)});
        chart.appendPoints(0, more);
        chart.refresh();
        QCOMPARE(x->max(), zoomedMax); // new data does not pull the view away
        chart.resetZoom();
        QVERIFY(!chart.zoomed());
        QVERIFY(x->max() >= 400);
        // A double-click on the view is the same reset.
        chart.view()->zoomAbout(chart.chart()->plotArea().center(), 0.5);
        QVERIFY(chart.zoomed());
        QTest::mouseDClick(chart.view()->viewport(), Qt::LeftButton, {},
                           chart.chart()->plotArea().center().toPoint());
        QVERIFY(!chart.zoomed());
    }

    void overlaysLieUnderTheLiveSeries() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(2, true);
        chart.setOverlays({{"run A", QColor("#1b9e77"), false, ramp(50, 1)},
                           {"run A (test)", QColor("#1b9e77"), true, ramp(5, 2)}});
        QCOMPARE(chart.overlayCount(), 2);
        QLineSeries* a = chart.series(TrainingChart::overlaySeries(0));
        QVERIFY(a);
        QCOMPARE(a->name(), QStringLiteral("run A"));
        QCOMPARE(chart.series(TrainingChart::overlaySeries(0))->pen().style(), Qt::DashLine);
        QCOMPARE(chart.series(TrainingChart::overlaySeries(1))->pen().style(), Qt::DotLine);
        // Drawn first, so under the workers.
        QCOMPARE(chart.chart()->series().first(), a);
        QCOMPARE(chart.displayedPoints(TrainingChart::overlaySeries(0)).size(), 50);
        // A new run's set-up keeps them; the axes cover them.
        chart.setWorkerCount(4, true);
        QCOMPARE(chart.overlayCount(), 2);
        QCOMPARE(chart.chart()->series().size(), 2 + 2 + 4 + 1); // + the two marker kinds
        chart.refresh();
        QVERIFY(xAxisOf(chart)->max() >= 50);
        chart.setSeriesVisible(TrainingChart::overlaySeries(0), false);
        chart.setWorkerCount(4, true); // visibility survives the new lines
        QVERIFY(!chart.seriesVisible(TrainingChart::overlaySeries(0)));
        chart.setOverlays({});
        QCOMPARE(chart.overlayCount(), 0);
        QCOMPARE(chart.chart()->series().size(), 2 + 4 + 1);
    }

    // An earlier run is never taken for a worker: dashed or dotted, a hue
    // apart from every worker colour (the issue saw (55,126,184) overlaid
    // next to worker 0's (31,119,180)), and named in the legend.
    void overlaysHaveTheirOwnStyle() {
        TrainingChart chart("Loss per worker", "loss");
        chart.resize(1000, 320);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(4, true);
        const QList<QColor> runColours = {QColor(55, 126, 184), QColor(0x1b9e77), QColor(0xd95f02),
                                          QColor(31, 119, 180)};
        QList<TrainingChart::Overlay> overlays;
        for (int i = 0; i < runColours.size(); ++i)
            overlays.append({QString("run %1").arg(i + 1), runColours[i], i == 3, ramp(50, 1)});
        chart.setOverlays(overlays);
        chart.refresh();
        QTest::qWait(50);
        QList<QColor> drawn;
        for (int i = 0; i < overlays.size(); ++i) {
            QLineSeries* line = chart.series(TrainingChart::overlaySeries(i));
            QVERIFY(line);
            const QColor c = line->pen().color();
            QCOMPARE(c, chart.overlayColor(i));
            QVERIFY(line->pen().style() != Qt::SolidLine);
            QVERIFY2(OverlayPalette::distance(c, QColor(31, 119, 180)) >= 80, qPrintable(c.name()));
            for (int rank = 0; rank < chart.workerCount(); ++rank)
                QVERIFY2(OverlayPalette::distance(c, TrainingChart::workerColor(rank)) >=
                             OverlayPalette::kMinDistance,
                         qPrintable(
                             QString("run %1 %2 by worker %3").arg(i + 1).arg(c.name()).arg(rank)));
            for (const QColor& other : drawn) // and apart from each other
                QVERIFY(OverlayPalette::distance(c, other) >= OverlayPalette::kMinDistance);
            drawn << c;
            // Its own legend entry, with its name.
            const QList<QLegendMarker*> markers = chart.chart()->legend()->markers(line);
            QCOMPARE(markers.size(), 1);
            QVERIFY(markers.front()->isVisible());
            QCOMPARE(markers.front()->label(), QString("run %1").arg(i + 1));
        }
        // A colour far from every worker's is kept as it is.
        chart.setWorkerCount(1, false);
        chart.setOverlays({{"far", QColor(0xe7298a), false, ramp(5, 1)}});
        QCOMPARE(chart.overlayColor(0), QColor(0xe7298a));
        // A run's test curve beside its training curve: the run's colour
        // (also when that colour had to turn), and no second legend entry.
        chart.setOverlays({{"run 1", QColor(31, 119, 180), false, ramp(5, 1)},
                           {"run 1 (test)", QColor(31, 119, 180), true, ramp(5, 2), 0},
                           {"run 2", QColor(0xd95f02), false, ramp(5, 3)}});
        chart.refresh();
        QTest::qWait(50); // the legend fits itself once laid out
        QCOMPARE(chart.overlayColor(1), chart.overlayColor(0));
        QVERIFY(chart.overlayColor(0) != QColor(31, 119, 180));
        QCOMPARE(chart.series(TrainingChart::overlaySeries(1))->pen().style(), Qt::DotLine);
        const auto legendOf = [&](int i) {
            return chart.chart()->legend()->markers(chart.series(TrainingChart::overlaySeries(i)));
        };
        QVERIFY(legendOf(0).front()->isVisible());
        QVERIFY(!legendOf(1).front()->isVisible());
        QVERIFY(legendOf(2).front()->isVisible());
        // A chart of no workers (accuracy) told the run's count draws a run
        // in the colour the run's worker charts draw it in.
        TrainingChart accuracy("Test accuracy", "%");
        accuracy.setOverlayColorPeers(4);
        accuracy.setWorkerCount(0, true);
        TrainingChart loss("Loss", "loss");
        loss.setWorkerCount(4, true);
        const QList<TrainingChart::Overlay> orange = {{"run", QColor(0xff7f0e), false, ramp(5, 1)}};
        accuracy.setOverlays(orange);
        loss.setOverlays(orange);
        QCOMPARE(accuracy.overlayColor(0), loss.overlayColor(0));
        QVERIFY(accuracy.overlayColor(0) != QColor(0xff7f0e)); // worker 1's orange
    }

    // An earlier run of 56,000 steps does not squeeze a live run of 9,000
    // into the left edge; asked to, the axes fit both.
    void overlaysDoNotStretchTheLiveAxes() {
        TrainingChart chart("Accuracy", "%");
        chart.setWorkerCount(1, false);
        QList<ChartSample> live, earlier;
        for (int i = 0; i <= 90; ++i)
            live.append({100.0 * i, 0, 0, 9.0 + 0.01 * i});
        for (int i = 0; i <= 560; ++i)
            earlier.append({100.0 * i, 0, 0, 85.0 + 3.0 * i / 560});
        chart.setOverlays({{"run 1", QColor(0xd95f02), true, earlier}});
        chart.refresh();
        QVERIFY(xAxisOf(chart)->max() >= 56000); // no live data yet: the overlay sets the range
        chart.appendPoints(0, live);
        chart.refresh();
        QVERIFY2(xAxisOf(chart)->max() <= 10000,
                 qPrintable(QString::number(xAxisOf(chart)->max())));
        QVERIFY(yAxisOf(chart)->max() < 85);
        QVERIFY(!chart.overlaysFitAxes());
        chart.setOverlaysFitAxes(true);
        QVERIFY(xAxisOf(chart)->max() >= 56000);
        QVERIFY(yAxisOf(chart)->max() >= 88);
        chart.setOverlaysFitAxes(false);
        QVERIFY(xAxisOf(chart)->max() <= 10000);
    }

    // While the pointer stays on a curve its text stays: the view's own
    // tooltip ("Drag a rectangle to zoom...") comes only off the curves.
    void hoverTextStaysOnTheCurve() {
        TrainingChart chart("loss", "loss");
        chart.resize(600, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, ramp(100, 0.01));
        chart.refresh();
        QLineSeries* line = chart.series(0);
        const QPointF p = line->points().at(50);
        Q_EMIT line->hovered(p, true); // as Qt Charts does when the pointer reaches it
        const QString text = chart.view()->hoverText();
        QVERIFY2(text.startsWith("worker 0\n"), qPrintable(text));
        // The tooltip event Qt sends once the pointer rests there.
        QWidget* viewport = chart.view()->viewport();
        const QPoint at = chart.view()->mapFromScene(chart.chart()->mapToPosition(p));
        const auto rest = [&] {
            QHelpEvent help(QEvent::ToolTip, at, viewport->mapToGlobal(at));
            if (!QApplication::sendEvent(viewport, &help) || !help.isAccepted()) {
                QHelpEvent again(QEvent::ToolTip, at, chart.view()->mapToGlobal(at));
                QApplication::sendEvent(chart.view(), &again);
            }
        };
        rest();
        QTRY_COMPARE(QToolTip::text(), text);
        rest(); // and again, later: still the point's text
        QCOMPARE(QToolTip::text(), text);
        QVERIFY(!QToolTip::text().startsWith("Drag"));
        // Off the curve: the view's own help again.
        Q_EMIT line->hovered(p, false);
        QVERIFY(chart.view()->hoverText().isEmpty());
        rest();
        QTRY_VERIFY2(QToolTip::text().startsWith("Drag a rectangle"), qPrintable(QToolTip::text()));
    }

    void markersFollowTheAxisAndStayBounded() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(2, false);
        chart.addMarkers(TrainingChart::Marker::EpochEnd, {{10, 320, 1.5, 0.7}, {20, 640, 3, 0.5}});
        chart.addMarkers(TrainingChart::Marker::WorkerDeath, {{15, 480, 2, 0.6}});
        chart.refresh();
        auto* ends = qobject_cast<QScatterSeries*>(chart.chart()->series().at(0));
        QVERIFY(ends);
        QCOMPARE(ends->name(), QStringLiteral("epoch ends"));
        QCOMPARE(ends->points(), (QList<QPointF>{{10, 0.7}, {20, 0.5}}));
        auto* deaths = qobject_cast<QScatterSeries*>(chart.chart()->series().at(1));
        QCOMPARE(deaths->points(), (QList<QPointF>{{15, 0.6}}));
        chart.setXAxis(TrainingChart::XAxis::Time);
        QCOMPARE(ends->points(), (QList<QPointF>{{1.5, 0.7}, {3, 0.5}}));
        QList<ChartSample> many;
        for (int i = 0; i < 5000; ++i)
            many.append({double(i), 0, 0, 1});
        chart.addMarkers(TrainingChart::Marker::EpochEnd, many);
        QVERIFY(chart.markers(TrainingChart::Marker::EpochEnd).size() <=
                TrainingChart::kMaxMarkers);
        QCOMPARE(chart.markers(TrainingChart::Marker::EpochEnd).back().step,
                 4999.0);               // the last stays
        chart.setWorkerCount(2, false); // a new run starts without them
        QVERIFY(chart.markers(TrainingChart::Marker::EpochEnd).isEmpty());
    }

    void tickLabelsArePlainNumbers() {
        QCOMPARE(tickLabel(14e6, 2e6, 1e6), QStringLiteral("14M"));
        QCOMPARE(tickLabel(1.5e6, 5e5, 1e6), QStringLiteral("1.5M"));
        QCOMPARE(tickLabel(250e3, 50e3, 1e3), QStringLiteral("250k"));
        QCOMPARE(tickLabel(2500, 500, 1), QStringLiteral("2500"));
        QCOMPARE(tickLabel(0.05, 0.05, 1), QStringLiteral("0.05"));
        QCOMPARE(tickLabel(1.0, 0.5, 1), QStringLiteral("1"));
        QCOMPARE(tickLabel(-0.0, 0.5, 1), QStringLiteral("0"));
        // A diverged loss: a short scientific label, not 25 digits and a G.
        QCOMPARE(tickLabel(2.5e24, 5e23, 1e9), QStringLiteral("2.5e24"));
        QCOMPARE(tickLabel(-3e15, 1e15, 1e9), QStringLiteral("-3e15"));
        QCOMPARE(tickLabel(999e9, 1e11, 1e9), QStringLiteral("999G"));
        QCOMPARE(niceTicks(0, 1.5e6, 3).labels, (QStringList{"0", "0.5M", "1M", "1.5M"}));
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, false);
        QList<ChartSample> big;
        for (int i = 0; i <= 10; ++i)
            big.append({1e6 * i, 0, 0, 0.6 + 0.01 * i});
        chart.appendPoints(0, big);
        chart.refresh();
        const QStringList x = xAxisOf(chart)->categoriesLabels();
        QVERIFY2(x.contains("10M") && !x.join(' ').contains('e'), qPrintable(x.join(' ')));
        const QStringList y = yAxisOf(chart)->categoriesLabels();
        QVERIFY2(y.contains("0.6") && y.contains("0.7"), qPrintable(y.join(' ')));
    }

    void tickCountFollowsTheLabelsWidth() {
        const auto sevenPx = [](const QString& label) { return 7.0 * label.size(); };
        // Short labels: the five ticks fit; "4M" needs 14 + 16 pixels a tick.
        QCOMPARE(ticksThatFit(0, 4.1, 800, sevenPx, 16), 5);
        QCOMPARE(ticksThatFit(0, 4.1e6, 800, sevenPx, 16), 5);
        QCOMPARE(ticksThatFit(0, 4.1e6, 120, sevenPx, 16), 2); // 0, 2M, 4M, 6M
        QCOMPARE(ticksThatFit(0, 4.1e6, 50, sevenPx, 16), 1);  // 0 and 5M only

        // In a chart a third of the window wide, no x label is cut to "…".
        TrainingChart chart("divergence", "L2");
        chart.resize(280, 200);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(4, false);
        for (int w = 0; w < 4; ++w)
            chart.appendPoints(w, {{0, 0, 0, 0.1}, {4.1e6, 0, 0, 0.2}});
        chart.refresh();
        QTest::qWait(50);
        chart.refresh();
        QCategoryAxis* x = xAxisOf(chart);
        const QFontMetricsF metrics(x->labelsFont());
        double widest = 0;
        for (const QString& label : x->categoriesLabels())
            widest = std::max(widest, metrics.horizontalAdvance(label));
        const QList<double> at = tickPositions(x);
        QVERIFY(at.size() >= 2);
        const double spacing =
            chart.chart()->plotArea().width() * (at[1] - at[0]) / (x->max() - x->min());
        // The gap ticksThatFit() keeps: Qt Charts cuts labels with less.
        QVERIFY2(spacing >= widest + 16,
                 qPrintable(QString("%1 ticks %2 px apart for labels %3 px wide")
                                .arg(at.size())
                                .arg(spacing)
                                .arg(widest)));

        // Its legend names the workers by rank, in their colours; a wide one in full.
        const auto shownLabels = [&chart] {
            QStringList labels;
            for (QLegendMarker* m : chart.chart()->legend()->markers())
                if (m->isVisible()) // not the hidden markers' scatter series
                    labels << m->label();
            return labels;
        };
        QCOMPARE(shownLabels(), (QStringList{"0", "1", "2", "3"}));
        chart.resize(900, 300);
        QTest::qWait(50);
        QCOMPARE(shownLabels(), (QStringList{"worker 0", "worker 1", "worker 2", "worker 3"}));
    }

    void axesAreNotHalfEmpty_data() {
        QTest::addColumn<double>("last");
        QTest::addColumn<double>("expectedMax");
        QTest::newRow("2100") << 2100.0 << 2500.0; // not 4000
        QTest::newRow("2400") << 2400.0 << 2500.0;
        QTest::newRow("101") << 101.0 << 120.0;
        QTest::newRow("7") << 7.0 << 7.0;
        QTest::newRow("16600") << 16600.0 << 18000.0;
    }
    // Issue 49: a one-point chart read "234.4 ... 235.6" along x; an
    // earlier run's throughput lay under the axis; a flat accuracy of 99.1
    // to 99.2% was a black band.
    void axesHoldOnePointARateAndAFlatAccuracy() {
        TrainingChart chart("Throughput", "rate");
        chart.resize(640, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, {{235, 0, 0, 120000.0}});
        chart.refresh();
        QTest::qWait(50);
        QCategoryAxis* x = xAxisOf(chart);
        QVERIFY2(x->min() == 0 && x->max() >= 235, qPrintable(QString::number(x->min())));
        QVERIFY(chart.series(0)->pointsVisible()); // one point: a dot, not a blank chart
        // Redrawn whole at each change: no half-erased dot after a drag.
        QCOMPARE(chart.view()->viewportUpdateMode(), QGraphicsView::FullViewportUpdate);
        for (const QString& label : x->categoriesLabels())
            QVERIFY2(!label.contains('.'), qPrintable(label));
        chart.setYRange(true, 0); // a rate: from 0
        chart.appendPoints(0, {{300, 0, 0, 110000.0}});
        chart.refresh();
        QCOMPARE(yAxisOf(chart)->min(), 0.0);
        QVERIFY(!chart.series(0)->pointsVisible()); // two: a line
        TrainingChart accuracy("Accuracy", "%");
        accuracy.resize(640, 300);
        accuracy.show();
        QVERIFY(QTest::qWaitForWindowExposed(&accuracy));
        accuracy.setYBounds(0, 100);
        accuracy.setYRange(false, 5);
        accuracy.setWorkerCount(0, true);
        QList<ChartSample> flat;
        for (int i = 0; i < 200; ++i)
            flat.append({double(i), 0, 0, i % 2 ? 99.1 : 99.2});
        accuracy.appendPoints(TrainingChart::kTestSeries, flat);
        accuracy.refresh();
        QTest::qWait(50);
        QCategoryAxis* y = yAxisOf(accuracy);
        QVERIFY2(y->max() - y->min() >= 5 && y->max() <= 101 && y->min() <= 99.1,
                 qPrintable(QStringLiteral("%1..%2").arg(y->min()).arg(y->max())));
    }

    void axesAreNotHalfEmpty() {
        QFETCH(double, last);
        QFETCH(double, expectedMax);
        TrainingChart chart("loss", "loss");
        chart.resize(640, 300);
        chart.show(); // the tick count follows the plot area's size
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, {{0, 0, 0, 1.0}, {last, 0, 0, 0.5}});
        chart.refresh();
        QTest::qWait(50);
        QCategoryAxis* x = xAxisOf(chart);
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), expectedMax);
        const QList<double> at = tickPositions(x);
        QVERIFY(at.size() >= 2);
        QCOMPARE(at.front(), x->min());
        QCOMPARE(at.back(), x->max());
        const double step = at[1] - at[0];
        QVERIFY(x->max() - last < step); // at most one tick step empty
        const double decade = std::pow(10.0, std::floor(std::log10(step)));
        const double mantissa = step / decade;
        QVERIFY2(mantissa == 1 || mantissa == 2 || mantissa == 5,
                 qPrintable(QString("step %1 with %2 ticks").arg(step).arg(at.size())));
    }

    void bandViewShowsMeanAndRange() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(3, false);
        for (int w = 0; w < 3; ++w) { // constant curves at 1, 2 and 4
            QList<ChartSample> c;
            for (int i = 0; i <= 1000; ++i)
                c.append({double(i), 0, 0, double(1 << w)});
            chart.appendPoints(w, c);
        }
        chart.setBandView(true);
        QVERIFY(!chart.seriesVisible(0) && !chart.seriesVisible(2));
        const QList<QPointF> mean = chart.bandPoints(0), lower = chart.bandPoints(1),
                             upper = chart.bandPoints(2);
        QVERIFY(!mean.isEmpty());
        QCOMPARE(mean.size(), lower.size());
        for (qsizetype i = 0; i < mean.size(); ++i) {
            QCOMPARE(mean[i].y(), 7.0 / 3.0);
            QCOMPARE(lower[i].y(), 1.0);
            QCOMPARE(upper[i].y(), 4.0);
        }
        QVERIFY(mean.size() <= chart.bucketCount());
        auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
        QVERIFY(y->min() <= 1.0 && y->max() >= 4.0); // the axes cover the band
        chart.setBandView(false);
        QVERIFY(chart.seriesVisible(0) && chart.seriesVisible(2));
        QVERIFY(chart.bandPoints(0).isEmpty());
    }

    void paletteDoesNotRepeat() {
        QSet<QRgb> seen;
        for (int rank = 0; rank < 64; ++rank)
            seen.insert(TrainingChart::workerColor(rank).rgb());
        QCOMPARE(seen.size(), 64);
        QCOMPARE(TrainingChart::workerColor(0), QColor(0x1f77b4)); // Tableau 10 first
    }

    void labelWalkerSeesWhatQtChartsElides() {
        // The check the window's no-"…" tests rely on: it reads the chart's
        // own text items, so a label Qt Charts truncates is seen as such.
        TrainingChart chart("a title far too long to fit in a chart this narrow", "loss");
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, ramp(100, 1e5));
        chart.resize(900, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.refresh();
        QTRY_VERIFY(
            chartTexts(chart.chart())
                .contains(QStringLiteral("a title far too long to fit in a chart this narrow")));
        QVERIFY2(elidedTexts(chart.chart()).isEmpty(),
                 qPrintable(elidedTexts(chart.chart()).join(" | ")));
        chart.resize(120, 200);
        QTRY_VERIFY(!elidedTexts(chart.chart()).isEmpty());
    }

    void darkThemeRepaintsTheTestSeries() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, true);
        QCOMPARE(chart.series(TrainingChart::kTestSeries)->pen().color(), QColor(Qt::black));
        chart.setDarkTheme(true);
        QCOMPARE(chart.chart()->theme(), QChart::ChartThemeDark);
        QCOMPARE(chart.series(TrainingChart::kTestSeries)->pen().color(), QColor(Qt::white));
        QCOMPARE(chart.series(0)->pen().color(), TrainingChart::workerColor(0));
        chart.setDarkTheme(false);
        QCOMPARE(chart.series(TrainingChart::kTestSeries)->pen().color(), QColor(Qt::black));
    }
};

QTEST_MAIN(TestChartView)
#include "tst_chartview.moc"
