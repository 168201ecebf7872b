// Min/max downsampling (downsampleMinMax) and TensorBoard smoothing
// (smoothEma): the two pure steps between a chart's raw data and its series.
#include "charts/downsampler.h"
#include "charts/smoothing.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

using namespace hwl::ui;

namespace {

QList<QPointF> ramp(int n) {
    QList<QPointF> pts;
    pts.reserve(n);
    for (int i = 0; i < n; ++i)
        pts.append(QPointF(i, std::sin(i * 0.01)));
    return pts;
}

bool strictlyIncreasingX(const QList<QPointF>& pts) {
    for (qsizetype i = 1; i < pts.size(); ++i)
        if (!(pts[i - 1].x() < pts[i].x()))
            return false;
    return true;
}

// A noisy curve with NaNs sprinkled in (invalid), for MinMaxDecimator.
std::vector<double> noisy(qsizetype n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 0.1);
    std::vector<double> v(static_cast<std::size_t>(n));
    for (qsizetype i = 0; i < n; ++i)
        v[std::size_t(i)] = std::exp(-double(i) / double(n)) + noise(rng);
    for (qsizetype i = 17; i < n; i += 101)
        v[std::size_t(i)] = std::numeric_limits<double>::quiet_NaN();
    return v;
}

// What MinMaxDecimator::select() must return, by brute force: every valid
// index, or first, last and each group's earliest min and max.
std::vector<qsizetype> referenceSelect(const std::vector<double>& v, int buckets,
                                       qsizetype groupSize) {
    std::vector<qsizetype> valid;
    for (qsizetype i = 0; i < qsizetype(v.size()); ++i)
        if (!std::isnan(v[std::size_t(i)]))
            valid.push_back(i);
    if (valid.empty() || qsizetype(valid.size()) <= 2 * qsizetype(buckets) + 2)
        return valid;
    std::set<qsizetype> kept{valid.front(), valid.back()};
    for (qsizetype g = 0; g * groupSize < qsizetype(v.size()); ++g) {
        qsizetype lo = -1, hi = -1;
        for (qsizetype i = g * groupSize; i < std::min(qsizetype(v.size()), (g + 1) * groupSize);
             ++i) {
            const double y = v[std::size_t(i)];
            if (std::isnan(y))
                continue;
            if (lo < 0 || y < v[std::size_t(lo)])
                lo = i;
            if (hi < 0 || y > v[std::size_t(hi)])
                hi = i;
        }
        if (lo >= 0) {
            kept.insert(lo);
            kept.insert(hi);
        }
    }
    return {kept.begin(), kept.end()};
}

} // namespace

class TestDownsampler : public QObject {
    Q_OBJECT

private slots:
    void smallInputsUnchanged_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("buckets");
        QTest::newRow("empty") << 0 << 10;
        QTest::newRow("one") << 1 << 10;
        QTest::newRow("two") << 2 << 1;
        QTest::newRow("limit") << 22 << 10; // 2*buckets+2
        QTest::newRow("zero buckets") << 50 << 0;
    }
    void smallInputsUnchanged() {
        QFETCH(int, n);
        QFETCH(int, buckets);
        const QList<QPointF> in = ramp(n);
        QCOMPARE(downsampleMinMax(in, buckets), in);
    }

    void keepsFirstAndLast_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("buckets");
        QTest::newRow("just over") << 23 << 10;
        QTest::newRow("1000/7") << 1000 << 7;
        QTest::newRow("1e5/200") << 100000 << 200;
        QTest::newRow("one bucket") << 100 << 1;
    }
    void keepsFirstAndLast() {
        QFETCH(int, n);
        QFETCH(int, buckets);
        const QList<QPointF> in = ramp(n);
        const QList<QPointF> out = downsampleMinMax(in, buckets);
        QVERIFY(out.size() <= 2 * buckets + 2);
        QCOMPARE(out.front(), in.front());
        QCOMPARE(out.back(), in.back());
        QVERIFY(strictlyIncreasingX(out));
    }

    // A single huge spike and a single deep dip in the middle of 1e6 points.
    void keepsSpikeAndDip() {
        const int n = 1'000'000;
        const int buckets = 500;
        QList<QPointF> in;
        in.reserve(n);
        for (int i = 0; i < n; ++i)
            in.append(QPointF(i * 0.5, 1.0 + 0.1 * std::sin(i * 0.001)));
        in[n / 2].setY(1e9);
        in[n / 2 + 3].setY(-1e9);
        const QList<QPointF> out = downsampleMinMax(in, buckets);
        QVERIFY(out.size() <= 2 * buckets + 2);
        QVERIFY(out.size() >= buckets); // every bucket has points
        QVERIFY(out.contains(in[n / 2]));
        QVERIFY(out.contains(in[n / 2 + 3]));
        QVERIFY(strictlyIncreasingX(out));
        QCOMPARE(out.front(), in.front());
        QCOMPARE(out.back(), in.back());
    }

    // Each bucket's min and max survive, and nothing else but first/last.
    void keepsEachBucketsMinAndMax() {
        const int buckets = 10;
        QList<QPointF> in;
        for (int i = 0; i < 100; ++i) // x in [0, 99]; bucket width 9.9
            in.append(QPointF(i, 0));
        for (int b = 0; b < buckets; ++b) {
            in[b * 10 + 3].setY(b + 1.0);  // the bucket's max
            in[b * 10 + 7].setY(-b - 1.0); // the bucket's min
        }
        const QList<QPointF> out = downsampleMinMax(in, buckets);
        QList<QPointF> expected{in.front()};
        for (int b = 0; b < buckets; ++b)
            expected << in[b * 10 + 3] << in[b * 10 + 7];
        expected << in.back();
        QCOMPARE(out, expected);
    }

    void flatBucketKeepsOnePoint() {
        QList<QPointF> in;
        for (int i = 0; i < 50; ++i)
            in.append(QPointF(i, 1.0));
        const QList<QPointF> out = downsampleMinMax(in, 5);
        // All y equal: min and max are the same point in every bucket.
        QVERIFY(out.size() <= 5 + 2);
        QVERIFY(strictlyIncreasingX(out));
    }

    void nanIsNeverAnExtreme() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QList<QPointF> in = ramp(1000);
        for (int i = 100; i < 900; i += 2)
            in[i].setY(nan);
        const QList<QPointF> out = downsampleMinMax(in, 20);
        QVERIFY(out.size() <= 42);
        for (const QPointF& p : out)
            QVERIFY(!std::isnan(p.y()));
        QVERIFY(strictlyIncreasingX(out));
    }

    void decimatorKeepsAllWhenSmall() {
        MinMaxDecimator d;
        QVERIFY(d.select(10).empty());
        for (int i = 0; i < 25; ++i)
            d.append(i, i % 5 != 2); // 20 valid
        QCOMPARE(d.size(), 25);
        QCOMPARE(d.validCount(), 20);
        QCOMPARE(d.firstValid(), 0);
        QCOMPARE(d.lastValid(), 24);
        QVERIFY(std::isnan(d.value(2)));
        std::vector<qsizetype> expected;
        for (int i = 0; i < 25; ++i)
            if (i % 5 != 2)
                expected.push_back(i);
        QCOMPARE(d.select(9), expected); // 2*9+2 = 20
        QCOMPARE(d.groupSize(), 0);
        QCOMPARE(d.select(0), expected);
        d.clear();
        QCOMPARE(d.size(), 0);
        QCOMPARE(d.firstValid(), -1);
    }

    void decimatorMatchesBruteForce_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("buckets");
        QTest::newRow("just over") << 24 << 10; // one NaN: 23 valid
        QTest::newRow("raw groups") << 5000 << 200;
        QTest::newRow("level 0") << 60'000 << 300;
        QTest::newRow("level 1") << 400'000 << 700;
        QTest::newRow("uneven") << 123'457 << 901;
    }
    void decimatorMatchesBruteForce() {
        QFETCH(int, n);
        QFETCH(int, buckets);
        const std::vector<double> v = noisy(n, 7);
        MinMaxDecimator d;
        for (const double y : v)
            d.append(y, true); // NaN counts as invalid anyway
        const std::vector<qsizetype> got = d.select(buckets);
        QVERIFY(d.groupSize() > 0);
        QVERIFY((n + d.groupSize() - 1) / d.groupSize() <= buckets);
        QVERIFY(got.size() <= std::size_t(2 * buckets + 2));
        QCOMPARE(got, referenceSelect(v, buckets, d.groupSize()));
        QVERIFY(std::is_sorted(got.begin(), got.end()));
    }

    // The result depends on the values only, not on how they were appended
    // or how often select() ran in between (it caches complete groups).
    void decimatorIncrementalEqualsBatch() {
        const int n = 300'000;
        const int buckets = 640;
        const std::vector<double> v = noisy(n, 11);
        MinMaxDecimator batch;
        for (const double y : v)
            batch.append(y, true);
        MinMaxDecimator live;
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> step(1, 3000);
        qsizetype have = 0;
        while (have < n) {
            const qsizetype end = std::min<qsizetype>(n, have + step(rng));
            for (; have < end; ++have)
                live.append(v[std::size_t(have)], true);
            const std::vector<qsizetype> now = live.select(buckets);
            if (have % 7 == 0) { // now and then, against a fresh one
                MinMaxDecimator fresh;
                for (qsizetype i = 0; i < have; ++i)
                    fresh.append(v[std::size_t(i)], true);
                QCOMPARE(now, fresh.select(buckets));
            }
        }
        QCOMPARE(live.select(buckets), batch.select(buckets));
        QCOMPARE(live.select(200), batch.select(200)); // another width
    }

    void decimatorKeepsExtremesOfAMillion() {
        const int n = 1'000'000;
        MinMaxDecimator d;
        for (int i = 0; i < n; ++i) {
            double y = 1.0 + 0.1 * std::sin(i * 0.001);
            if (i == 654'321)
                y = 1e9;
            if (i == 654'324)
                y = -1e9;
            d.append(y, i != 0); // the first value is invalid
        }
        const std::vector<qsizetype> got = d.select(500);
        QVERIFY(got.size() <= 1002);
        QVERIFY(got.size() >= 500);
        QCOMPARE(got.front(), 1);
        QCOMPARE(got.back(), n - 1);
        QVERIFY(std::count(got.begin(), got.end(), 654'321) == 1);
        QVERIFY(std::count(got.begin(), got.end(), 654'324) == 1);
        QVERIFY(std::adjacent_find(got.begin(), got.end()) == got.end()); // no duplicates
    }

    void emaByHand_data() {
        QTest::addColumn<double>("weight");
        QTest::addColumn<QList<double>>("in");
        QTest::addColumn<QList<double>>("expected");
        // weight 0.5 on [1, 2, 3]: last = 0.5, 1.25, 2.125; debias by
        // 1 - 0.5^n = 0.5, 0.75, 0.875.
        QTest::newRow("0.5") << 0.5 << QList<double>{1, 2, 3}
                             << QList<double>{1.0, 1.25 / 0.75, 2.125 / 0.875};
        QTest::newRow("0 is identity") << 0.0 << QList<double>{3, -1, 7} << QList<double>{3, -1, 7};
        QTest::newRow("negative clamps to 0")
            << -0.3 << QList<double>{3, -1, 7} << QList<double>{3, -1, 7};
        // 0.999 clamps to 0.99: first value still equals the first input.
        QTest::newRow("clamped 0.99") << 0.999 << QList<double>{5, 5, 5} << QList<double>{5, 5, 5};
    }
    void emaByHand() {
        QFETCH(double, weight);
        QFETCH(QList<double>, in);
        QFETCH(QList<double>, expected);
        QList<QPointF> pts;
        for (int i = 0; i < in.size(); ++i)
            pts.append(QPointF(10 + i, in[i]));
        const QList<QPointF> out = smoothEma(pts, weight);
        QCOMPARE(out.size(), expected.size());
        for (int i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].x(), 10.0 + i);
            QVERIFY2(
                std::abs(out[i].y() - expected[i]) < 1e-12,
                qPrintable(QString("at %1: %2 vs %3").arg(i).arg(out[i].y()).arg(expected[i])));
        }
    }

    void emaClampsWeight() {
        QCOMPARE(clampSmoothingWeight(2.0), 0.99);
        QCOMPARE(clampSmoothingWeight(-1.0), 0.0);
        QCOMPARE(clampSmoothingWeight(std::numeric_limits<double>::quiet_NaN()), 0.0);
        QCOMPARE(clampSmoothingWeight(0.6), 0.6);
    }

    void emaPassesNanThrough() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        const QList<QPointF> in{{0, 1}, {1, nan}, {2, 2}, {3, inf}, {4, 3}};
        const QList<QPointF> out = smoothEma(in, 0.5);
        QCOMPARE(out.size(), 5);
        QVERIFY(std::isnan(out[1].y()));
        QVERIFY(std::isinf(out[3].y()));
        // The finite values are smoothed as if the others were not there.
        QCOMPARE(out[0].y(), 1.0);
        QVERIFY(std::abs(out[2].y() - 1.25 / 0.75) < 1e-12);
        QVERIFY(std::abs(out[4].y() - 2.125 / 0.875) < 1e-12);
    }
};

QTEST_MAIN(TestDownsampler)
#include "tst_downsampler.moc"
