// TrainingChart: series set-up and colours, what refresh() draws for each x
// axis mode, downsampling of big series, smoothing, log scale, legend clicks
// and image export. Runs on the offscreen platform (no OpenGL there).
#include "charts/trainingchart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace hwl::ui;

Q_DECLARE_METATYPE(hwl::ui::TrainingChart::XAxis)

namespace {

// Sample i of a curve: every x field distinct, so each axis mode is visible.
ChartSample sample(int i, double value) {
    ChartSample s;
    s.step = i;
    s.samples = 32.0 * i;
    s.time = 0.25 * i + 1.0;
    s.value = value;
    return s;
}

double xOf(const ChartSample& s, TrainingChart::XAxis axis) {
    switch (axis) {
    case TrainingChart::XAxis::Step:
        return s.step;
    case TrainingChart::XAxis::Samples:
        return s.samples;
    case TrainingChart::XAxis::Time:
        return s.time;
    }
    return 0;
}

QList<QPointF> expectedPoints(const QList<ChartSample>& raw, TrainingChart::XAxis axis) {
    QList<QPointF> pts;
    for (const ChartSample& s : raw)
        pts.append(QPointF(xOf(s, axis), s.value));
    return pts;
}

// ChartSample has no operator==.
bool sameSamples(const QList<ChartSample>& a, const QList<ChartSample>& b) {
    return std::equal(a.cbegin(), a.cend(), b.cbegin(), b.cend(),
                      [](const ChartSample& x, const ChartSample& y) {
                          return x.step == y.step && x.samples == y.samples && x.time == y.time &&
                                 x.value == y.value;
                      });
}

// A long noisy curve, deterministic.
QList<ChartSample> noisyCurve(int n, int seed) {
    QList<ChartSample> raw;
    raw.reserve(n);
    for (int i = 0; i < n; ++i) {
        const double noise = std::sin(i * 12.9898 + seed * 78.233) * 0.1;
        raw << sample(i, 2.0 * std::exp(-i * 3e-5) + 0.2 + noise);
    }
    return raw;
}

// n points of a slow sine around 1 (frequency `omega` per step), plus a
// spike of 40 at index `spike` and a dip of -7 at index `dip`.
QList<ChartSample> sineWithSpikeAndDip(int n, double omega, int spike, int dip) {
    QList<ChartSample> raw;
    raw.reserve(n);
    for (int i = 0; i < n; ++i)
        raw << sample(i, 1.0 + 0.5 * std::sin(i * omega));
    raw[spike].value = 40.0;
    raw[dip].value = -7.0;
    return raw;
}

QAbstractAxis* yAxisOf(const TrainingChart& chart) {
    const QList<QAbstractAxis*> axes = chart.chart()->axes(Qt::Vertical);
    return axes.size() == 1 ? axes.front() : nullptr;
}

} // namespace

class TestTrainingChart : public QObject {
    Q_OBJECT

private slots:
    void createsNamedSeries() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(3, true);
        const QList<QAbstractSeries*> all = chart.chart()->series();
        QCOMPARE(all.size(), 2 + 4); // the two marker kinds first
        QStringList names;
        for (QAbstractSeries* s : all)
            names << s->name();
        QCOMPARE(names, (QStringList{"epoch ends", "worker died", "worker 0", "worker 1",
                                     "worker 2", "test"}));
        QCOMPARE(chart.series(0)->name(), QString("worker 0"));
        QCOMPARE(chart.series(TrainingChart::kTestSeries)->name(), QString("test"));
        QCOMPARE(chart.series(3), nullptr);

        chart.setWorkerCount(2, false);
        QCOMPARE(chart.chart()->series().size(), 2 + 2);
        QCOMPARE(chart.series(TrainingChart::kTestSeries), nullptr);
        QVERIFY(chart.rawPoints(TrainingChart::kTestSeries).isEmpty());
    }

    void coloursAreStable() {
        TrainingChart a("loss", "loss");
        TrainingChart b("divergence", "divergence");
        a.setWorkerCount(12, true);
        b.setWorkerCount(12, false);
        QList<QColor> first;
        for (int i = 0; i < 12; ++i) {
            first << a.series(i)->color();
            QCOMPARE(a.series(i)->color(), TrainingChart::workerColor(i));
            QCOMPARE(b.series(i)->color(), a.series(i)->color());
        }
        QVERIFY(TrainingChart::workerColor(10) != TrainingChart::workerColor(0)); // no cycle
        QVERIFY(TrainingChart::workerColor(0) != TrainingChart::workerColor(1));
        QLineSeries* test = a.series(TrainingChart::kTestSeries);
        QCOMPARE(test->color(), QColor(Qt::black));
        QCOMPARE(test->pen().style(), Qt::DashLine);
        QVERIFY(test->pen().widthF() > a.series(0)->pen().widthF());

        a.appendPoints(0, {sample(0, 1), sample(1, 2)});
        a.refresh();
        a.setWorkerCount(12, true);
        a.refresh();
        for (int i = 0; i < 12; ++i)
            QCOMPARE(a.series(i)->color(), first[i]);
    }

    void smallDataShownAsIs_data() {
        QTest::addColumn<TrainingChart::XAxis>("axis");
        QTest::newRow("step") << TrainingChart::XAxis::Step;
        QTest::newRow("samples") << TrainingChart::XAxis::Samples;
        QTest::newRow("time") << TrainingChart::XAxis::Time;
    }
    void smallDataShownAsIs() {
        QFETCH(TrainingChart::XAxis, axis);
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(2, true);
        QList<ChartSample> w0, w1, test;
        for (int i = 0; i < 50; ++i) {
            w0 << sample(i, 2.0 / (i + 1));
            w1 << sample(i, 3.0 - 0.01 * i);
        }
        for (int i = 0; i < 50; i += 10)
            test << sample(i, 1.5 / (i + 1));
        // Two batches: appends accumulate.
        chart.appendPoints(0, w0.mid(0, 20));
        chart.appendPoints(0, w0.mid(20));
        chart.appendPoints(1, w1);
        chart.appendPoints(TrainingChart::kTestSeries, test);
        chart.appendPoints(7, w1);                   // unknown id: ignored
        QVERIFY(chart.displayedPoints(0).isEmpty()); // buffered until refresh()
        chart.setXAxis(axis);
        chart.refresh();
        QVERIFY(sameSamples(chart.rawPoints(0), w0));
        QCOMPARE(chart.displayedPoints(0), expectedPoints(w0, axis));
        QCOMPARE(chart.displayedPoints(1), expectedPoints(w1, axis));
        QCOMPARE(chart.displayedPoints(TrainingChart::kTestSeries), expectedPoints(test, axis));

        // The axes cover the data.
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).front());
        auto* y = qobject_cast<QValueAxis*>(yAxisOf(chart));
        QVERIFY(x && y);
        QVERIFY(x->min() <= xOf(w0.front(), axis) && x->max() >= xOf(w0.back(), axis));
        QVERIFY(y->min() <= 2.0 / 50 && y->max() >= 3.0);

        chart.clear();
        QVERIFY(chart.rawPoints(0).isEmpty());
        QVERIFY(chart.displayedPoints(0).isEmpty());
        QCOMPARE(chart.chart()->series().size(), 2 + 3);
    }

    void bigSeriesIsDownsampled() {
        TrainingChart chart("loss", "loss");
        chart.resize(900, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        const int n = 200'000;
        chart.setRawPointLimit(n); // the downsampling alone, on the whole history
        const int spike = 123'457;
        const int dip = 77'777;
        const QList<ChartSample> raw = sineWithSpikeAndDip(n, 0.003, spike, dip);
        chart.appendPoints(0, raw);
        chart.refresh();

        const int buckets = chart.bucketCount();
        QVERIFY(buckets >= TrainingChart::kMinBuckets);
        const QList<QPointF> shown = chart.displayedPoints(0);
        QVERIFY2(shown.size() <= 2 * buckets + 2, qPrintable(QString::number(shown.size())));
        QVERIFY(shown.size() >= buckets);
        QCOMPARE(shown.front(), QPointF(0, raw.front().value));
        QCOMPARE(shown.back(), QPointF(n - 1, raw.back().value));
        QVERIFY(shown.contains(QPointF(spike, 40.0)));
        QVERIFY(shown.contains(QPointF(dip, -7.0)));
        QCOMPARE(chart.rawPoints(0).size(), n);
    }

    // Live feeding (many small batches, a refresh after each) shows exactly
    // what one big append shows: the incremental smoothing and decimation
    // depend on the data only.
    void incrementalAppendsMatchOneAppend_data() {
        QTest::addColumn<double>("smoothing");
        QTest::addColumn<bool>("log");
        QTest::newRow("raw") << 0.0 << false;
        QTest::newRow("smoothed") << 0.6 << false;
        QTest::newRow("smoothed log") << 0.9 << true;
    }
    void incrementalAppendsMatchOneAppend() {
        QFETCH(double, smoothing);
        QFETCH(bool, log);
        const int n = 120'000;
        QList<ChartSample> raw = noisyCurve(n, 1);
        for (int i = 500; i < n; i += 977)
            raw[i].value = -1.0; // not drawable on a log axis
        TrainingChart live("loss", "loss"), once("loss", "loss");
        for (TrainingChart* c : {&live, &once}) {
            c->setWorkerCount(1, false);
            c->setRawPointLimit(n); // thinning depends on batch boundaries; not tested here
            c->setSmoothing(smoothing);
            c->setLogScale(log);
        }
        int have = 0;
        int batch = 1;
        while (have < n) {
            const int k = std::min(batch, n - have);
            live.appendPoints(0, raw.mid(have, k));
            have += k;
            live.refresh();
            batch = batch * 3 % 4099 + 1; // 1, 4, 13, ... varied sizes
        }
        once.appendPoints(0, raw);
        once.refresh();
        QCOMPARE(live.bucketCount(), once.bucketCount());
        const QList<QPointF> shown = once.displayedPoints(0);
        QVERIFY(shown.size() <= 2 * once.bucketCount() + 2);
        QVERIFY(shown.size() >= once.bucketCount());
        QCOMPARE(live.displayedPoints(0), shown);
        QCOMPARE(shown.front().x(), 0.0);
        QCOMPARE(shown.back().x(), double(n - 1));
    }

    // The test series is never smoothed: its last point is the evaluation
    // the run reports, while a worker's line is smoothed.
    void testSeriesIsDrawnAsMeasured() {
        TrainingChart c("loss", "loss");
        c.setWorkerCount(1, true);
        c.setSmoothing(0.9);
        QList<ChartSample> evals, steps;
        for (int i = 0; i < 5; ++i) {
            evals.append({double(100 * (i + 1)), 0, 0, 1.0 - 0.1 * i});
            steps.append({double(100 * (i + 1)), 0, 0, i % 2 ? 2.0 : 0.0});
        }
        c.appendPoints(TrainingChart::kTestSeries, evals);
        c.appendPoints(0, steps);
        c.refresh();
        const QList<QPointF> test = c.displayedPoints(TrainingChart::kTestSeries);
        QCOMPARE(test.size(), 5);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(test[i].y(), evals[i].value);
        QVERIFY(c.displayedPoints(0).back().y() != steps.back().value); // smoothed
        // Dotted and dashed while few; thousands: a thin translucent line,
        // read as a band rather than a black block of dashes.
        QLineSeries* line = nullptr;
        for (QAbstractSeries* a : c.chart()->series())
            if (a->name() == QLatin1String("test"))
                line = qobject_cast<QLineSeries*>(a);
        QVERIFY(line);
        QVERIFY(line->pointsVisible());
        QCOMPARE(line->pen().style(), Qt::DashLine);
        const qreal dashedWidth = line->pen().widthF();
        QList<ChartSample> many;
        for (int i = 0; i < 3000; ++i)
            many.append({double(600 + i), 0, 0, 0.99 + 0.002 * (i % 2)});
        c.appendPoints(TrainingChart::kTestSeries, many);
        c.refresh();
        QVERIFY(!line->pointsVisible());
        QCOMPARE(line->pen().style(), Qt::SolidLine);
        QVERIFY(line->pen().widthF() < dashedWidth);
        QVERIFY(line->pen().color().alpha() < 255);
    }

    // Changing smoothing, x axis or log scale after the data arrived
    // recomputes everything: the result is as if it had been set first.
    void settingsChangeAfterAppendsRecomputes() {
        const int n = 50'000;
        const QList<ChartSample> raw = noisyCurve(n, 2);
        TrainingChart late("loss", "loss"), early("loss", "loss");
        late.setWorkerCount(2, true);
        early.setWorkerCount(2, true);
        early.setSmoothing(0.8);
        early.setXAxis(TrainingChart::XAxis::Time);
        for (int i = 0; i < n; i += 1000) {
            for (TrainingChart* c : {&late, &early}) {
                c->appendPoints(1, raw.mid(i, 1000));
                c->refresh();
            }
        }
        const QList<QPointF> before = late.displayedPoints(1);
        late.setSmoothing(0.8);
        late.setXAxis(TrainingChart::XAxis::Time);
        late.refresh();
        QVERIFY(late.displayedPoints(1) != before);
        QCOMPARE(late.displayedPoints(1), early.displayedPoints(1));
        QCOMPARE(late.displayedPoints(1).back(), early.displayedPoints(1).back());

        // Back to no smoothing: the plain picture again.
        late.setSmoothing(0);
        late.setXAxis(TrainingChart::XAxis::Step);
        late.refresh();
        QCOMPARE(late.displayedPoints(1), before);
        // clear() drops the derived data too.
        late.clear();
        late.appendPoints(1, raw.mid(0, 10));
        late.refresh();
        QCOMPARE(late.displayedPoints(1),
                 expectedPoints(raw.mid(0, 10), TrainingChart::XAxis::Step));
    }

    // A million points fed live: first, last and the global extremes stay.
    void millionPointsKeepExtremes() {
        TrainingChart chart("loss", "loss");
        chart.resize(900, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        const int n = 1'000'000;
        const int spike = 765'433;
        const int dip = 123'457;
        const QList<ChartSample> raw = sineWithSpikeAndDip(n, 0.0007, spike, dip);
        for (int i = 0; i < n; i += 100'000) {
            chart.appendPoints(0, raw.mid(i, 100'000));
            chart.refresh();
        }
        const int buckets = chart.bucketCount();
        const QList<QPointF> shown = chart.displayedPoints(0);
        QVERIFY2(shown.size() <= 2 * buckets + 2, qPrintable(QString::number(shown.size())));
        QVERIFY(shown.size() >= buckets);
        QCOMPARE(shown.front(), QPointF(0, raw.front().value));
        QCOMPARE(shown.back(), QPointF(n - 1, raw.back().value));
        QVERIFY(shown.contains(QPointF(spike, 40.0)));
        QVERIFY(shown.contains(QPointF(dip, -7.0)));
        auto* y = qobject_cast<QValueAxis*>(yAxisOf(chart));
        QVERIFY(y && y->min() <= -7.0 && y->max() >= 40.0);
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).front());
        QVERIFY(x->min() <= 0 && x->max() >= n - 1);
    }

    // A run of any length keeps at most rawPointLimit() points per series,
    // and thinning them never loses the first, the last or the extremes.
    void rawHistoryIsBoundedKeepingExtremes() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, false);
        chart.setRawPointLimit(64);
        QCOMPARE(chart.rawPointLimit(), qsizetype(64));
        const int n = 5000;
        QList<ChartSample> all;
        for (int i = 0; i < n; ++i)
            all << sample(i, 2.0 + std::cos(i * 0.01));
        all[3001].value = 9.0;                                      // spike
        all[1234].value = -4.0;                                     // dip
        all[2500].value = std::numeric_limits<double>::quiet_NaN(); // never chosen
        for (int i = 0; i < n; i += 7)
            chart.appendPoints(0, all.mid(i, 7));
        const QList<ChartSample>& kept = chart.rawPoints(0);
        QVERIFY2(kept.size() <= 64 && kept.size() >= 16, qPrintable(QString::number(kept.size())));
        QVERIFY(sameSamples({kept.front()}, {all.front()}));
        QVERIFY(sameSamples({kept.back()}, {all.back()}));
        for (qsizetype i = 1; i < kept.size(); ++i)
            QVERIFY(kept[i].step > kept[i - 1].step); // a subsequence, in order
        auto has = [&](int index) {
            return std::any_of(kept.cbegin(), kept.cend(), [&](const ChartSample& k) {
                return sameSamples({k}, {all[index]});
            });
        };
        QVERIFY(has(3001));
        QVERIFY(has(1234));
        QVERIFY(!has(2500));
        chart.refresh();
        const QList<QPointF> shown = chart.displayedPoints(0);
        QVERIFY(shown.contains(QPointF(3001, 9.0)));
        QVERIFY(shown.contains(QPointF(1234, -4.0)));
        // Lowering the limit thins what is there at once.
        chart.setRawPointLimit(20);
        QVERIFY(kept.size() <= 20); // (kept is the series' own list)
        QVERIFY(has(3001) && has(1234));
        // Below 16 counts as 16.
        chart.setRawPointLimit(3);
        QCOMPARE(chart.rawPointLimit(), qsizetype(16));
    }

    // x going backwards (clocks of different processes) still draws sorted.
    void unsortedXIsSorted() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, false);
        chart.setXAxis(TrainingChart::XAxis::Time);
        QList<ChartSample> raw{sample(0, 1.0), sample(2, 3.0), sample(1, 2.0)};
        chart.appendPoints(0, raw.mid(0, 2));
        chart.refresh();
        QCOMPARE(chart.displayedPoints(0).size(), 2);
        chart.appendPoints(0, raw.mid(2));
        chart.refresh();
        const QList<QPointF> shown = chart.displayedPoints(0);
        QCOMPARE(shown, (QList<QPointF>{QPointF(1.0, 1.0), QPointF(1.25, 2.0), QPointF(1.5, 3.0)}));
    }

    void smoothingKeepsRawData() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, false);
        QList<ChartSample> raw;
        for (int i = 0; i < 40; ++i)
            raw << sample(i, i % 2 ? 2.0 : 0.0);
        chart.appendPoints(0, raw);
        chart.refresh();
        const QList<QPointF> plain = chart.displayedPoints(0);

        chart.setSmoothing(0.9);
        QCOMPARE(chart.smoothing(), 0.9);
        chart.refresh();
        const QList<QPointF> smooth = chart.displayedPoints(0);
        QCOMPARE(smooth.size(), plain.size());
        QCOMPARE(smooth.front(), plain.front()); // debiased: first value kept
        QVERIFY(smooth[1].y() != plain[1].y());
        QVERIFY(smooth.back().y() > 0.5 && smooth.back().y() < 1.5);
        QVERIFY(sameSamples(chart.rawPoints(0), raw));

        chart.setSmoothing(0);
        chart.refresh();
        QCOMPARE(chart.displayedPoints(0), plain);
        chart.setSmoothing(5.0);
        QCOMPARE(chart.smoothing(), 0.99);
    }

    void logScaleSwapsAxisAndSkipsNonPositive() {
        TrainingChart chart("divergence", "divergence");
        chart.setWorkerCount(1, false);
        chart.appendPoints(
            0, {sample(0, 1.0), sample(1, 0.0), sample(2, 0.1), sample(3, -2.0), sample(4, 0.01)});
        chart.refresh();
        QVERIFY(qobject_cast<QValueAxis*>(yAxisOf(chart)));
        QCOMPARE(chart.displayedPoints(0).size(), 5);

        chart.setLogScale(true);
        chart.refresh();
        // A linear axis over log10 of the values, labelled with the values.
        auto* log = qobject_cast<QCategoryAxis*>(yAxisOf(chart));
        QVERIFY(log);
        QCOMPARE(chart.series(0)->attachedAxes().size(), 2);
        QVERIFY(chart.series(0)->attachedAxes().contains(log));
        QCOMPARE(chart.displayedPoints(0),
                 (QList<QPointF>{QPointF(0, 1.0), QPointF(2, 0.1), QPointF(4, 0.01)}));
        QVERIFY(log->min() <= -2 && log->max() >= 0);
        const QStringList labels = log->categoriesLabels();
        QVERIFY2(labels.contains("0.01") && labels.contains("0.1") && labels.contains("1"),
                 qPrintable(labels.join(' ')));
        chart.setLogScale(false);
        chart.refresh();
        QVERIFY(qobject_cast<QValueAxis*>(yAxisOf(chart)));
        QCOMPARE(chart.displayedPoints(0).size(), 5);
    }

    void legendClickTogglesSeries() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(3, true);
        chart.appendPoints(1, {sample(0, 1.0), sample(1, 100.0)});
        chart.appendPoints(2, {sample(0, 1.0), sample(1, 2.0)});
        chart.refresh();
        QSignalSpy spy(&chart, &TrainingChart::seriesVisibilityChanged);

        const QList<QLegendMarker*> markers = chart.chart()->legend()->markers(chart.series(1));
        QCOMPARE(markers.size(), 1);
        QLegendMarker* marker = markers.front();
        // Markers are laid out (and visible) once the chart is on screen,
        // tall enough for a legend (a chart under 140 px drops it).
        chart.resize(400, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QVERIFY(marker->isVisible());
        Q_EMIT marker->clicked();
        QVERIFY(!chart.seriesVisible(1));
        QVERIFY(!chart.series(1)->isVisible());
        QVERIFY(marker->isVisible()); // stays, dimmed
        QVERIFY(marker->labelBrush().color().alphaF() < 1.0);
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 1);
        QCOMPARE(spy.at(0).at(1).toBool(), false);
        // The y axis fits the visible data only.
        auto* y = qobject_cast<QValueAxis*>(yAxisOf(chart));
        QVERIFY(y && y->max() < 100.0);

        QVERIFY(QMetaObject::invokeMethod(marker, "clicked"));
        QVERIFY(chart.seriesVisible(1));
        QCOMPARE(marker->labelBrush().color().alphaF(), 1.0);
        QCOMPARE(spy.size(), 2);
        QCOMPARE(spy.at(1).at(1).toBool(), true);

        // Programmatic changes signal too, but only real changes.
        chart.setSeriesVisible(TrainingChart::kTestSeries, false);
        chart.setSeriesVisible(TrainingChart::kTestSeries, false);
        QCOMPARE(spy.size(), 3);
        QCOMPARE(spy.at(2).at(0).toInt(), TrainingChart::kTestSeries);
        QVERIFY(!chart.seriesVisible(TrainingChart::kTestSeries));
    }

    // A series hidden while data arrived shows that data once shown again.
    void hiddenSeriesCatchesUp() {
        TrainingChart chart("loss", "loss");
        chart.setWorkerCount(1, false);
        chart.setSeriesVisible(0, false);
        chart.appendPoints(0, {sample(0, 1.0), sample(1, 2.0)});
        chart.refresh();
        chart.setSeriesVisible(0, true);
        QCOMPARE(chart.displayedPoints(0).size(), 2);
    }

    void savesImage() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TrainingChart chart("loss", "loss");
        chart.resize(640, 400);
        chart.setWorkerCount(4, true);
        for (int w = 0; w < 4; ++w) {
            QList<ChartSample> pts;
            for (int i = 0; i < 1000; ++i)
                pts << sample(i, (w + 1) * std::exp(-i * 0.003));
            chart.appendPoints(w, pts);
        }
        chart.refresh();
        const QString path = dir.filePath("chart.png");
        QVERIFY(chart.saveImage(path));
        QVERIFY(QFileInfo(path).size() > 0);
        QImage image(path);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), chart.size() * chart.devicePixelRatio());
    }
};

QTEST_MAIN(TestTrainingChart)
#include "tst_trainingchart.moc"
