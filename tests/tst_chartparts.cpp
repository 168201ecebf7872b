// A TrainingChart's parts, each alone: ChartSeries (a curve's bounded
// history and what is drawn of it), ChartBand (the workers' mean and range
// per bucket), ChartMarks (epoch ends and deaths) and OverlayPalette (earlier runs' colours kept
// apart from the colours shown).
#include "charts/chartband.h"
#include "charts/chartmarks.h"
#include "charts/chartseries.h"
#include "charts/overlaypalette.h"

#include <QChart>
#include <QScatterSeries>
#include <QTest>
#include <QValueAxis>

#include <cmath>

using namespace hwl::ui;

namespace {
QList<ChartSample> ramp(int n) {
    QList<ChartSample> out;
    for (int i = 1; i <= n; ++i)
        out.append({double(i), 32.0 * i, 0.5 * i, double(i)});
    return out;
}
} // namespace

class TestChartParts : public QObject {
    Q_OBJECT

private slots:
    void seriesKeepsABoundedHistoryWithItsExtremes() {
        ChartSeries s;
        QList<ChartSample> points = ramp(100);
        points[40].value = 1000; // a spike
        points[60].value = -50;  // and a dip
        s.append(points, 64, 0);
        QVERIFY(s.raw.size() <= 64);
        QCOMPARE(s.raw.first().step, 1.0);
        QCOMPARE(s.raw.last().step, 100.0);
        bool spike = false, dip = false;
        for (const ChartSample& c : s.raw) {
            spike = spike || c.value == 1000;
            dip = dip || c.value == -50;
        }
        QVERIFY(spike && dip);
        QVERIFY(s.dirty);
        QCOMPARE(s.processed, 0); // thinning starts the derived data over
    }

    void seriesDrawsSmoothedLoggedAndDownsampled() {
        ChartSeries s;
        s.resetDerived(0);
        s.append(ramp(1000), 1 << 15, 0);
        QList<QPointF> scratch;
        const XField step = &ChartSample::step;
        const QList<QPointF> shown = s.displayPoints(step, 0, false, 10, scratch);
        QVERIFY(shown.size() <= 2 * 10 + 2);
        QCOMPARE(shown.first(), QPointF(1, 1));
        QCOMPARE(shown.last(), QPointF(1000, 1000));
        QVERIFY(s.hasExtent);
        QCOMPARE(s.maxY, 1000.0);
        // On a log axis the points are log10 of the values.
        s.resetDerived(0);
        const QList<QPointF> logged = s.displayPoints(step, 0, true, 10, scratch);
        QCOMPARE(logged.last().y(), 3.0);
        QCOMPARE(fromAxisY(logged.last().y(), true), 1000.0);
        QVERIFY(std::isnan(toAxisY(0, true))); // no log of zero: not drawn
        // Smoothed: the debiased average lags a rising ramp.
        s.resetDerived(0.9);
        const QList<QPointF> smooth = s.displayPoints(step, 0.9, false, 10, scratch);
        QVERIFY(smooth.last().y() < 1000);
        QCOMPARE(smooth.first().y(), 1.0);
    }

    void seriesFindsTheNearestSampleAndSurvivesXGoingBack() {
        ChartSeries s;
        const XField time = &ChartSample::time;
        QCOMPARE(s.nearest(time, 3), qsizetype(-1));
        s.append(ramp(10), 100, 0);
        QCOMPARE(s.nearest(time, 2.6), qsizetype(4)); // time 2.5, sample 5
        QCOMPARE(s.nearest(time, 99), qsizetype(9));
        s.append({{11, 352, 0.1, 5}}, 100, 0); // a clock that went back
        QList<QPointF> scratch;
        const QList<QPointF> shown = s.displayPoints(time, 0, false, 100, scratch);
        QVERIFY(!s.sorted);
        QCOMPARE(shown.first(), QPointF(0.1, 5)); // sorted for drawing
        QCOMPARE(s.nearest(time, 0.12), qsizetype(10));
    }

    void bandIsTheMeanAndRangePerBucket() {
        const std::vector<QList<QPointF>> curves = {
            {{0, 1}, {10, 1}}, {{0, 3}, {10, 5}}, {{0, 2}, {10, 3}}};
        const ChartBand::Points band = ChartBand::compute(curves, 2);
        QCOMPARE(band.mean.size(), 2);
        QCOMPARE(band.mean[0], QPointF(2.5, 2));
        QCOMPARE(band.lower[1], QPointF(7.5, 1));
        QCOMPARE(band.upper[1], QPointF(7.5, 5));
        QVERIFY(band.extent.any);
        QCOMPARE(band.extent.minX, 0.0);
        QCOMPARE(band.extent.maxX, 10.0);
        QCOMPARE(band.extent.maxY, 5.0);
        // A bucket no curve reaches has no point; no curves, no band.
        QCOMPARE(ChartBand::compute({{{0, 1}, {10, 1}}}, 5).mean.size(), 2);
        QVERIFY(!ChartBand::compute({}, 5).extent.any);
        ChartBand unattached;
        QVERIFY(unattached.points(0).isEmpty());
    }

    void marksStayBoundedAndFollowTheAxes() {
        ChartMarks marks;
        QList<ChartSample> many;
        for (int i = 1; i <= 600; ++i)
            many.append({double(i), 10.0 * i, 0.1 * i, i % 2 ? 1.0 : 0.0});
        marks.add(ChartMarker::EpochEnd, many);
        const QList<ChartSample>& kept = marks.points(ChartMarker::EpochEnd);
        QVERIFY(kept.size() <= ChartMarks::kMaxMarks);
        QCOMPARE(kept.last().step, 600.0); // every other one went, the last kept
        QVERIFY(marks.points(ChartMarker::WorkerDeath).isEmpty());
        marks.rebuild(&ChartSample::step, false); // not attached: nothing to draw on

        QChart chart;
        auto *x = new QValueAxis, *y = new QValueAxis;
        chart.addAxis(x, Qt::AlignBottom);
        chart.addAxis(y, Qt::AlignLeft);
        const QList<QScatterSeries*> series = marks.attach(&chart, x, y, 2.0);
        QCOMPARE(series.size(), 2);
        QCOMPARE(series[1]->markerSize(), 22.0); // a death's square, scaled
        marks.add(ChartMarker::WorkerDeath, {{5, 50, 0.5, 2.5}});
        marks.rebuild(&ChartSample::samples, false);
        QCOMPARE(series[1]->points(), QList<QPointF>{QPointF(50, 2.5)});
        QCOMPARE(series[0]->points().size(), kept.size());
        marks.markDirty(); // a log axis draws no mark at 0
        marks.rebuild(&ChartSample::step, true);
        QVERIFY(series[0]->points().size() < kept.size());
        marks.clear();
        marks.rebuild(&ChartSample::step, false);
        QVERIFY(series[0]->points().isEmpty() && series[1]->points().isEmpty());
    }

    void overlayColoursKeepApart() {
        const QColor blue(0x1f77b4), orange(0xff7f0e);
        QCOMPARE(OverlayPalette::distance(blue, blue), 0.0);
        QCOMPARE(OverlayPalette::apart(orange, {blue}), orange); // far enough: its own
        const QColor turned = OverlayPalette::apart(blue, {blue});
        QVERIFY(OverlayPalette::distance(turned, blue) >= OverlayPalette::kMinDistance);
        QCOMPARE(OverlayPalette::apart(QColor(), {}), QColor(0x66, 0x66, 0x66));
        // Each overlay apart from those before it; a companion is its run's colour.
        const QList<ChartOverlay> runs = {
            {"a", blue, false, {}}, {"a (test)", blue, true, {}, 0}, {"b", blue, false, {}}};
        const QColor a = OverlayPalette::colorOf(runs, 0, {orange});
        QCOMPARE(a, blue);
        QCOMPARE(OverlayPalette::colorOf(runs, 1, {orange}), a);
        const QColor b = OverlayPalette::colorOf(runs, 2, {orange});
        QVERIFY(OverlayPalette::distance(a, b) >= OverlayPalette::kMinDistance);
        QVERIFY(OverlayPalette::distance(orange, b) >= OverlayPalette::kMinDistance);
        QVERIFY(!OverlayPalette::colorOf(runs, 3, {}).isValid());
    }
};

QTEST_MAIN(TestChartParts)
#include "tst_chartparts.moc"
