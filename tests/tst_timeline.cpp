// The window's Timeline (issue 51, point 5): the bins add each worker's
// slices up exactly (span records and a view longer than the run included),
// old slices are let go, the texts beside the rows quote the very bins drawn
// in the colours the legend names, a run in the window fills it for every
// worker (a data-parallel run's communicate, its evaluations), --tab names
// the tabs it takes, and in presentation at 1280x720 its rows and texts keep
// a readable size.
#include "charts/timelineview.h"
#include "clitest.h"
#include "enginetestutil.h"
#include "guitestmain.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include "form/experimentform.h"
#include "run/run.h"

#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QTabWidget>
#include <QTest>

#include <cmath>

using namespace hwl;
using namespace hwl::ui;

namespace {
constexpr std::int64_t kMs = 1'000'000;

TraceSlice slice(std::uint64_t index, std::uint32_t compute, std::uint32_t wait,
                 std::uint32_t communicate, std::uint32_t span = 1) {
    TraceSlice s;
    s.index = index;
    s.ns[0] = compute;
    s.ns[1] = wait;
    s.ns[2] = communicate;
    s.span = span;
    return s;
}

/// Worker 0: 3 ms compute and 1 ms wait, a whole slice of compute, then a
/// wait of four whole slices in one record; worker 1: communicate only.
void fill(TimelineData& d) {
    d.reset(2, 5 * kMs);
    d.addSlice(0, slice(0, 3 * kMs, 1 * kMs, 0));
    d.addSlice(0, slice(1, 5 * kMs, 0, 0));
    d.addSlice(0, slice(2, 0, 5 * kMs, 0, 4));
    d.addSlice(1, slice(3, 0, 0, 2 * kMs));
}

bool sameNs(const KindNs& a, const KindNs& b) {
    for (std::size_t k = 0; k < kTraceKinds; ++k)
        if (std::abs(a[k] - b[k]) > 0.5)
            return false;
    return true;
}

/// The shares text the view writes for `t`, worked out here again.
QString sharesOf(const KindNs& t) {
    double sum = 0;
    for (const double ns : t)
        sum += ns;
    QStringList parts;
    for (std::size_t k = 0; k < kTraceKinds; ++k)
        if (t[k] > 0)
            parts << QStringLiteral("%1 %2%")
                         .arg(QString::fromLatin1(traceKindName(TraceKind(k))))
                         .arg(std::lround(100 * t[k] / sum));
    return parts.join(QStringLiteral(" · "));
}

/// The engine tests' teacher experiment, as data-parallel over 2 replicas
/// for 3 epochs of 4,000 rows.
ExperimentConfig dataParallelRun() {
    ExperimentConfig c = hwl::test::teacherConfig();
    c.dataset = "teacher:4000x20:4:16";
    c.mode = "data-parallel";
    c.workers = 2;
    c.epochs = 3;
    c.testFraction = 0.1;
    return c;
}
} // namespace

class TestTimeline : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_;

private slots:
    void binsAddEverySliceUp() {
        TimelineData d;
        fill(d);
        QCOMPARE(d.endNs(), 30 * kMs); // the span record ends at slice 6
        const auto bins = d.bins(0, 0, 10 * kMs, 3);
        QCOMPARE(bins.size(), std::size_t(3));
        QVERIFY(sameNs(bins[0], {8.0 * kMs, 1.0 * kMs, 0}));
        QVERIFY(sameNs(bins[1], {0, 10.0 * kMs, 0})); // slices 2 and 3 of the span
        QVERIFY(sameNs(bins[2], {0, 10.0 * kMs, 0})); // 4 and 5
        QVERIFY(sameNs(sumOf(d.bins(1, 0, 10 * kMs, 3)), {0, 0, 2.0 * kMs}));
        // A view longer than the run so far: the bins before its start are empty.
        const auto early = d.bins(0, -20 * kMs, 10 * kMs, 3);
        QVERIFY(sameNs(early[0], {}) && sameNs(early[1], {}));
        QVERIFY(sameNs(early[2], bins[0]));
        // Bins are whole slices, at least a pixel column wide.
        QCOMPARE(d.binNs(3'000 * kMs, 600), 5 * kMs);
        QCOMPARE(d.binNs(10'000 * kMs, 600), 20 * kMs); // 16.7 ms a column, 4 slices
        QCOMPARE(d.binNs(100 * kMs, 600), 5 * kMs);
        // A worker out of range, and a bin narrower than a slice, add nothing.
        d.addSlice(7, slice(0, 1, 1, 1));
        QVERIFY(sameNs(sumOf(d.bins(7, 0, 10 * kMs, 3)), {}));
        QVERIFY(sameNs(sumOf(d.bins(0, 0, kMs, 3)), {}));
    }

    void oldSlicesAndSpansGo() {
        TimelineData d;
        fill(d);
        const std::int64_t start = 1'000 * kMs; // the run's start on the monotonic clock
        d.addSpan({TraceSpan::Evaluate, 1, start + 12 * kMs, start + 14 * kMs}, start);
        QCOMPARE(d.evaluations(0, 30 * kMs).size(), std::size_t(1));
        QCOMPARE(d.evaluations(0, 30 * kMs)[0].first, 12 * kMs);
        QCOMPARE(d.evaluations(14 * kMs, 30 * kMs).size(), std::size_t(0)); // ended there
        // Eleven seconds later the first seconds are let go.
        const std::uint64_t later = std::uint64_t(11'000 * kMs / (5 * kMs));
        d.addSlice(0, slice(later, 5 * kMs, 0, 0));
        QVERIFY(sameNs(sumOf(d.bins(0, 0, 10 * kMs, 3)), {}));
        QCOMPARE(d.evaluations(0, 30 * kMs).size(), std::size_t(0));
        QVERIFY(
            sameNs(sumOf(d.bins(0, std::int64_t(later) * 5 * kMs, 5 * kMs, 1)), {5.0 * kMs, 0, 0}));
    }

    void theTextsQuoteTheBinsDrawn() {
        TimelineView view;
        view.resize(900, 200);
        view.setWindowSeconds(0.1);
        QImage before = view.grab().toImage(); // nothing yet: it says so
        QVERIFY(view.texts().value(0).contains("No time slices"));
        QList<QPair<std::uint32_t, TraceSlice>> slices;
        for (std::uint64_t i = 0; i < 20; ++i) {
            slices.append({0u, slice(i, 4 * kMs, 1 * kMs, 0)});
            slices.append({1u, slice(i, 0, 1 * kMs, 4 * kMs)});
        }
        view.reset(2, 5 * kMs);
        view.add(slices, {}, 0);
        const QImage image = view.grab().toImage();
        QVERIFY(image != before);
        const auto totals = view.shownTotals();
        QCOMPARE(totals.size(), std::size_t(2));
        QVERIFY(sameNs(totals[0], {80.0 * kMs, 20.0 * kMs, 0}));
        QVERIFY(sameNs(totals[1], {0, 20.0 * kMs, 80.0 * kMs}));
        const QStringList texts = view.texts();
        QVERIFY2(texts.contains("worker 0") && texts.contains("worker 1"),
                 qPrintable(texts.join('|')));
        QVERIFY2(texts.contains(sharesOf(totals[0])), qPrintable(texts.join('|')));
        QCOMPARE(texts.filter("compute").value(0), QStringLiteral("compute 80% · wait 20%"));
        QCOMPARE(texts.filter("communicate").value(0),
                 QStringLiteral("wait 20% · communicate 80%"));
        QVERIFY(texts.contains("s since start"));
        QVERIFY(texts.contains(sharesOf(totals[1])));
        // The colours are the legend's: each worker's kinds are somewhere in its row.
        auto seen = [&](const QColor& c) {
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (image.pixelColor(x, y) == c)
                        return true;
            return false;
        };
        QVERIFY(seen(TimelineView::kindColor(TraceKind::Compute)));
        QVERIFY(seen(TimelineView::kindColor(TraceKind::Wait)));
        QVERIFY(seen(TimelineView::kindColor(TraceKind::Communicate)));
    }

    // A comparison's earlier run stays: a second run keeps the first as
    // "the run before", as it ended, to be shown instead of the live one.
    void theRunBeforeIsKept() {
        TimelinePanel panel;
        panel.resize(900, 300);
        auto* which = panel.findChild<QComboBox*>("timelineWhich");
        QVERIFY(which);
        QList<QPair<std::uint32_t, TraceSlice>> locked, hogwild;
        for (std::uint64_t i = 0; i < 20; ++i) {
            locked.append({0u, slice(i, 2 * kMs, 3 * kMs, 0)});
            hogwild.append({0u, slice(i, 5 * kMs, 0, 0)});
        }
        panel.startRun("locked · threads-locked, 1 worker", 1, 5 * kMs);
        QVERIFY(!which->isVisibleTo(&panel)); // no run before yet
        panel.view()->add(locked, {}, 0);
        panel.startRun("hogwild · threads, 1 worker", 1, 5 * kMs);
        panel.view()->add(hogwild, {}, 0);
        QVERIFY(which->isVisibleTo(&panel));
        QCOMPARE(panel.run(), QStringLiteral("This run: hogwild · threads, 1 worker"));
        panel.view()->grab();
        QCOMPARE(panel.view()->texts().filter("compute").value(0), QStringLiteral("compute 100%"));
        which->setCurrentIndex(1);
        QCOMPARE(panel.run(),
                 QStringLiteral("The run before: locked · threads-locked, 1 worker, its last "
                                "seconds"));
        panel.before()->grab();
        QCOMPARE(panel.before()->texts().filter("compute").value(0),
                 QStringLiteral("compute 40% · wait 60%"));
        // A third run: the second becomes the run before, and the live one shows.
        panel.startRun("third", 1, 5 * kMs);
        QCOMPARE(panel.run(), QStringLiteral("This run: third"));
        QCOMPARE(which->currentIndex(), 0);
        which->setCurrentIndex(1);
        QVERIFY2(panel.run().startsWith("The run before: hogwild"), qPrintable(panel.run()));
    }

    void aRunInTheWindowFillsIt() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        auto* view = w.findChild<TimelineView*>("timelineView"); // the live one
        QVERIFY(view);
        QVERIFY(w.openTab("timeline"));
        QVERIFY(!w.openTab("nope"));
        w.form()->setConfig(dataParallelRun());
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(w.controller()->busy(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 60000);
        const TimelineData& d = view->data();
        QCOMPARE(d.workers(), 2);
        QCOMPARE(d.sliceNs(), Run::kTraceSliceNs);
        const std::int64_t bin = d.sliceNs();
        const int count = int(d.endNs() / bin) + 1;
        for (int worker = 0; worker < 2; ++worker) {
            const KindNs t = sumOf(d.bins(worker, 0, bin, count));
            QVERIFY2(t[0] > 0 && t[2] > 0,
                     qPrintable(
                         QString("worker %1: %2 %3 %4").arg(worker).arg(t[0]).arg(t[1]).arg(t[2])));
        }
        QVERIFY(!d.evaluations(0, d.endNs()).empty());
        // The tab names the run, and what it shows says what it drew.
        auto* panel = w.findChild<TimelinePanel*>();
        QCOMPARE(panel->run(), QStringLiteral("This run: data-parallel, 2 workers"));
        view->grab();
        const auto totals = view->shownTotals();
        QCOMPARE(totals.size(), std::size_t(2));
        for (const KindNs& t : totals)
            QVERIFY2(view->texts().contains(sharesOf(t)), qPrintable(view->texts().join('|')));
    }

    void theTabFlagNamesTheTabs() {
        const auto r = hwl::test::runWindowApp({"--tab", "graphs"}, "offscreen");
        QVERIFY2(r.code == 2 && r.err.contains("error: --tab takes workers, timeline, events or "
                                               "runs, not \"graphs\""),
                 qPrintable(r.describe()));
    }

    void readableInPresentation() {
        MainWindow w;
        w.resize(1280, 720);
        w.setPresentation(true, false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* view = w.findChild<TimelineView*>("timelineView"); // the live one
        QVERIFY(w.openTab("timeline"));
        w.form()->setConfig(dataParallelRun());
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && !view->data().empty(), 60000);
        QTRY_VERIFY(view->isVisible());
        // Larger type, and room for every row at a line's height.
        QVERIFY2(view->font().pointSizeF() > QApplication::font().pointSizeF(),
                 qPrintable(QString::number(view->font().pointSizeF())));
        QTRY_VERIFY2(
            view->height() >= view->minimumSizeHint().height(),
            qPrintable(
                QString("%1 < %2").arg(view->height()).arg(view->minimumSizeHint().height())));
        view->grab();
        QCOMPARE(view->shownTotals().size(), std::size_t(2));
    }
};

HWL_GUI_TEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
