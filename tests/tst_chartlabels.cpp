// What a chart writes on its axes, titles and legend: never cut short with
// "..." at any reasonable size (the classroom's projector is 1280 x 720, a
// small chart there is about 260 x 140), tick labels told apart after any
// zoom and at round values, a log axis labelled in plain numbers without Qt's
// warnings about zeros, a ceiling on the accuracy axis, and charts saved as
// PNG or SVG at a chosen size; and all of it in presentation's larger fonts
// and lines, which survive new series, axes and themes. Offscreen platform.
#include "charts/chartlabels.h"
#include "charts/chartsizedialog.h"
#include "charts/trainingchart.h"
#include "widgets/chartaxes.h"
#include "widgets/chartview.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSet>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cmath>

using namespace hwl::ui;

namespace {

QCategoryAxis* axisOf(const TrainingChart& chart, Qt::Orientation o) {
    return qobject_cast<QCategoryAxis*>(chart.chart()->axes(o).value(0));
}

/// Where an axis' ticks are (its categories' ends), in order.
QList<double> ticksOf(QCategoryAxis* axis) {
    QList<double> at;
    for (const QString& label : axis->categoriesLabels())
        at << axis->endValue(label);
    return at;
}

/// The ticks are 1, 2 or 5 times a power of ten apart, at multiples of that.
bool roundTicks(const QList<double>& at, QString* why) {
    if (at.size() < 2) {
        *why = QStringLiteral("%1 ticks").arg(at.size());
        return false;
    }
    const double step = at[1] - at[0];
    const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double mantissa = step / decade;
    bool ok = std::abs(mantissa - std::round(mantissa)) < 1e-6 &&
              (std::round(mantissa) == 1 || std::round(mantissa) == 2 || std::round(mantissa) == 5);
    for (const double v : at)
        ok = ok && std::abs(v / step - std::round(v / step)) < 1e-6;
    QStringList s;
    for (const double v : at)
        s << QString::number(v, 'g', 12);
    *why = s.join(' ');
    return ok;
}

/// The texts of the chart that reach past its edges (the view cuts them).
QStringList textsOutside(QChart* chart) {
    QStringList outside;
    const QRectF inside = chart->sceneBoundingRect().adjusted(-5, -5, 5, 5);
    for (QGraphicsItem* item : chart->scene()->items()) {
        const auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
        if (text && text->isVisible() && !text->toPlainText().trimmed().isEmpty() &&
            !inside.contains(text->sceneBoundingRect()))
            outside << text->toPlainText();
    }
    return outside;
}

struct Kind {
    const char* title;
    const char* yTitle;
    double xMax, yMin, yMax;
    bool accuracy;
};
// The window's charts, with the figures the issue saw.
const Kind kKinds[] = {
    {"Loss per worker", "loss", 14e6, 0.05, 2.3, false},
    {"Test accuracy, % (each mark: one evaluation)", "%", 9000, 9, 99.8, true},
    {"Throughput per worker, samples/s", "rate", 56000, 1.2e6, 1.5e6, false},
    {"Divergence per worker (staleness, or distance from the replica mean)", "L2", 14e6, 0, 3e-3,
     false},
};

void fill(TrainingChart& chart, const Kind& k, int workers, bool overlays) {
    chart.setWorkerCount(workers, false);
    for (int w = 0; w < workers; ++w) {
        QList<ChartSample> pts;
        for (int i = 0; i <= 200; ++i) {
            const double f = i / 200.0;
            pts.append(
                {k.xMax * f, 0, 0, k.yMin + (k.yMax - k.yMin) * (0.5 + 0.5 * std::sin(f * 7 + w))});
        }
        chart.appendPoints(w, pts);
    }
    QList<TrainingChart::Overlay> runs;
    if (overlays)
        for (int r = 0; r < 2; ++r)
            runs.append({QString("hogwild-vs-locked %1: %2 (Fashion-MNIST)")
                             .arg(r + 1)
                             .arg(r ? "locked" : "hogwild"),
                         QColor(r ? 0x377eb8 : 0x1b9e77),
                         r == 1,
                         {{0, 0, 0, k.yMin}, {k.xMax * 0.8, 0, 0, k.yMax}}});
    chart.setOverlays(runs);
    if (k.accuracy)
        chart.setYBounds(0, 100);
    chart.refresh();
}

/// What presentation changes: font sizes (pixels or points, as the theme
/// gives them), every line's width, the test series' dots.
struct Style {
    double title = 0, legend = 0, labels = 0, yLabels = 0, axisTitle = 0, yTitle = 0, marker = 0;
    QList<double> widths;
    bool operator==(const Style& o) const {
        return title == o.title && legend == o.legend && labels == o.labels &&
               yLabels == o.yLabels && axisTitle == o.axisTitle && yTitle == o.yTitle &&
               marker == o.marker && widths == o.widths;
    }
};

double sizeOf(const QFont& f) {
    return f.pixelSize() > 0 ? f.pixelSize() : f.pointSizeF();
}

Style styleOf(const TrainingChart& chart) {
    Style s;
    s.title = sizeOf(chart.chart()->titleFont());
    s.legend = sizeOf(chart.chart()->legend()->font());
    s.labels = sizeOf(axisOf(chart, Qt::Horizontal)->labelsFont());
    s.yLabels = sizeOf(axisOf(chart, Qt::Vertical)->labelsFont());
    s.axisTitle = sizeOf(axisOf(chart, Qt::Horizontal)->titleFont());
    s.yTitle = sizeOf(axisOf(chart, Qt::Vertical)->titleFont());
    for (QAbstractSeries* series : chart.chart()->series()) {
        if (auto* line = qobject_cast<QLineSeries*>(series);
            line && !qobject_cast<QScatterSeries*>(series) && line->pen().style() != Qt::NoPen)
            s.widths << line->pen().widthF();
        if (auto* scatter = qobject_cast<QScatterSeries*>(series))
            s.marker = std::max(s.marker, scatter->markerSize());
    }
    if (const QLineSeries* test = chart.series(TrainingChart::kTestSeries))
        s.marker = std::max(s.marker, test->markerSize());
    return s;
}

/// No text of any kind of chart elided, from 260 x 140 to 1280 x 720, with
/// 1, 4 or 16 workers, with and without overlays; tick labels all differ.
void checkNoLabelIsElided(bool presentation) {
    const QSize sizes[] = {{260, 140}, {400, 200}, {640, 300}, {1280, 720}};
    QStringList failures;
    for (const Kind& k : kKinds) {
        TrainingChart chart(k.title, k.yTitle);
        chart.setPresentation(presentation);
        chart.resize(sizes[0]);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        for (const QSize& size : sizes) {
            chart.resize(size);
            for (const int workers : {1, 4, 16}) {
                for (const bool overlays : {false, true}) {
                    fill(chart, k, workers, overlays);
                    QTest::qWait(20); // the queued refresh after the plot area moved
                    chart.refresh();
                    QCoreApplication::processEvents();
                    const QString where = QStringLiteral("%1 at %2x%3, %4 workers%5: ")
                                              .arg(k.title)
                                              .arg(size.width())
                                              .arg(size.height())
                                              .arg(workers)
                                              .arg(overlays ? ", overlays" : "");
                    const QStringList elided = elidedTexts(chart.chart());
                    const QStringList cut = textsOutside(chart.chart());
                    if (!cut.isEmpty())
                        failures << where + "past the edge: " + cut.join(" | ");
                    if (!elided.isEmpty())
                        failures << where + elided.join(" | ") + "  [of " +
                                        chartTexts(chart.chart()).join(" | ") + "]";
                    for (const Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
                        const QStringList labels = axisOf(chart, o)->categoriesLabels();
                        if (labels.size() < 2 ||
                            QSet<QString>(labels.begin(), labels.end()).size() != labels.size())
                            failures << where + "ticks " + labels.join(' ');
                    }
                }
            }
        }
    }
    for (const QString& f : failures)
        qWarning("%s", qPrintable(f));
    QVERIFY2(failures.isEmpty(), qPrintable(QString::number(failures.size()) + " failures"));
}

} // namespace

class TestChartLabels : public QObject {
    Q_OBJECT

private slots:
    // No text of any chart is elided, from 260 x 140 to 1280 x 720, with 1,
    // 4 or 16 workers, with and without overlays; tick labels all differ.
    void noLabelIsElided() { checkNoLabelIsElided(false); }
    // The same in presentation: larger fonts and ticks fitted to them.
    void noLabelIsElidedInPresentation() { checkNoLabelIsElided(true); }

    // Presentation's fonts and lines survive new series, a new y axis, and
    // the theme; leaving it brings back the normal ones exactly.
    void presentationSurvivesChanges() {
        TrainingChart chart("Loss per worker", "loss");
        chart.resize(640, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        fill(chart, kKinds[0], 2, true);
        chart.setWorkerCount(2, true);
        const Style normal = styleOf(chart);
        QVERIFY(normal.labels > 0 && normal.widths.size() == 5); // 2 overlays, 2 workers, test
        chart.setPresentation(true);
        QVERIFY(chart.presentation());
        const Style big = styleOf(chart);
        const auto enlarged = [&](const Style& s, const QString& when) {
            const double f = TrainingChart::kPresentationFontScale;
            QVERIFY2(s.title >= normal.title * f - 0.6 && s.title > normal.title, qPrintable(when));
            QVERIFY2(s.legend > normal.legend && s.labels > normal.labels &&
                         s.yLabels > normal.yLabels && s.axisTitle > normal.axisTitle &&
                         s.yTitle > normal.yTitle,
                     qPrintable(when));
            for (const double w : s.widths) // every line, whichever it is
                QVERIFY2(w >= 1.5 * TrainingChart::kPresentationPenScale - 1e-9,
                         qPrintable(when + ": width " + QString::number(w)));
            QVERIFY2(s.marker > normal.marker, qPrintable(when));
        };
        enlarged(big, "presenting");
        QCOMPARE(big.widths.size(), normal.widths.size());
        for (qsizetype i = 0; i < big.widths.size(); ++i)
            QCOMPARE(big.widths[i], normal.widths[i] * TrainingChart::kPresentationPenScale);
        chart.setLogScale(true);
        enlarged(styleOf(chart), "after the log scale");
        chart.setWorkerCount(3, true);
        enlarged(styleOf(chart), "after three workers");
        fill(chart, kKinds[0], 3, true);
        enlarged(styleOf(chart), "after new overlays");
        chart.setBandView(true);
        enlarged(styleOf(chart), "in the band view");
        chart.setBandView(false);
        chart.setDarkTheme(true);
        enlarged(styleOf(chart), "on the dark theme");
        chart.setDarkTheme(false);
        chart.setLogScale(false);
        chart.setWorkerCount(2, true);
        fill(chart, kKinds[0], 2, true);
        chart.setWorkerCount(2, true);
        QCOMPARE(styleOf(chart), big);
        chart.setPresentation(false);
        QCOMPARE(styleOf(chart), normal);
        QTRY_VERIFY2(elidedTexts(chart.chart()).isEmpty(),
                     qPrintable(chartTexts(chart.chart()).join(" | ")));
    }

    // A narrow chart shows the words of its title that fit, never "...".
    void titleIsShortenedByWords() {
        TrainingChart chart("Loss per worker", "loss");
        chart.resize(900, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setTitle("Divergence per worker (staleness, or distance from the replica mean)");
        QCOMPARE(chart.chart()->title(), chart.title());
        chart.resize(260, 200);
        QTRY_COMPARE(chart.chart()->title(), QStringLiteral("Divergence per worker"));
        QCOMPARE(
            chart.title(),
            QStringLiteral("Divergence per worker (staleness, or distance from the replica mean)"));
        // Set on the QChart directly: taken as the full title.
        chart.chart()->setTitle("Throughput per worker, samples per second");
        chart.resize(250, 200);
        QTRY_VERIFY(!chart.chart()->title().contains("second"));
        QCOMPARE(chart.title(), QStringLiteral("Throughput per worker, samples per second"));
        // Its head, whole, not a fragment of what follows the comma or colon,
        // nor a phrase ending on a word that leads on ("Divergence per").
        QTRY_COMPARE(chart.chart()->title(), QStringLiteral("Throughput per worker"));
        chart.setTitle("Lost updates, % of each worker's block writes");
        QTRY_COMPARE(chart.chart()->title(), QStringLiteral("Lost updates"));
        chart.setTitle("Divergence per worker: staleness");
        chart.resize(120, 200);
        QTRY_COMPARE(chart.chart()->title(), QStringLiteral("Divergence"));
        // Once laid out again.
        QTRY_VERIFY2(elidedTexts(chart.chart()).isEmpty(),
                     qPrintable(chartTexts(chart.chart()).join(" | ")));
    }

    // The wheel and the rubber band leave round ticks that all differ (not
    // "2, 2, 1, 0", nor 125, 341, 557).
    void zoomKeepsRoundUniqueTicks() {
        TrainingChart chart("loss", "loss");
        chart.resize(640, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(1, false);
        QList<ChartSample> pts;
        for (int i = 0; i <= 3000; ++i)
            pts.append({double(i), 0, 0, 3.0 - i / 1500.0});
        chart.appendPoints(0, pts);
        chart.refresh();
        QString why;
        for (int i = 0; i < 12; ++i) {
            chart.view()->zoomAbout(chart.chart()->plotArea().center() + QPointF(37, 11), 0.8);
            for (const Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
                QCategoryAxis* axis = axisOf(chart, o);
                const QStringList labels = axis->categoriesLabels();
                QVERIFY2(QSet<QString>(labels.begin(), labels.end()).size() == labels.size(),
                         qPrintable(labels.join(' ')));
                QVERIFY2(roundTicks(ticksOf(axis), &why), qPrintable(why));
                for (const double v : ticksOf(axis))
                    QVERIFY(v >= axis->min() - 1e-9 && v <= axis->max() + 1e-9);
            }
        }
        QVERIFY(chart.zoomed());
        chart.resetZoom();
        // A rectangle at odd pixels.
        const QRectF area = chart.chart()->plotArea();
        chart.chart()->zoomIn(
            QRectF(area.left() + 37, area.top() + 23, area.width() * 0.37, area.height() * 0.41));
        Q_EMIT chart.view()->zoomed();
        chart.chart()->zoomIn(
            QRectF(area.left() + 11, area.top() + 5, area.width() * 0.61, area.height() * 0.7));
        for (const Qt::Orientation o : {Qt::Horizontal, Qt::Vertical})
            QVERIFY2(roundTicks(ticksOf(axisOf(chart, o)), &why), qPrintable(why));
    }

    // Several labels, plain numbers, no warning about the zeros divergence
    // often is, and no grey block from a band drawn down to zero.
    void logAxisIsLabelledAndQuiet() {
        static QStringList warnings;
        warnings.clear();
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext&, const QString& message) {
                if (message.contains("ogarithm"))
                    warnings << message;
            });
        TrainingChart chart("Divergence per worker", "L2");
        chart.resize(640, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setWorkerCount(3, false);
        for (int w = 0; w < 3; ++w) {
            QList<ChartSample> pts;
            for (int i = 0; i <= 400; ++i) // zeros, then from 0.001 to 100000
                pts.append(
                    {double(i), 0, 0, w == 0 || i < 50 ? 0.0 : std::pow(10.0, -3 + 8.0 * i / 400)});
            chart.appendPoints(w, pts);
        }
        chart.setLogScale(true);
        chart.refresh();
        QTest::qWait(30);
        QCategoryAxis* y = axisOf(chart, Qt::Vertical);
        QStringList labels = y->categoriesLabels();
        QVERIFY2(labels.size() >= 3, qPrintable(labels.join(' ')));
        for (const QString& label : labels)
            QVERIFY2(!label.contains('e') && !label.contains('+'), qPrintable(labels.join(' ')));
        chart.setBandView(true);
        chart.refresh();
        QTest::qWait(30);
        for (int which = 0; which < 3; ++which)
            for (const QPointF& p : chart.bandPoints(which))
                QVERIFY(std::isfinite(p.y()));
        // A narrow range still has several labels.
        chart.setBandView(false);
        chart.clear();
        chart.appendPoints(0, {{0, 0, 0, 2.0}, {1, 0, 0, 5.0}});
        chart.refresh();
        labels = y->categoriesLabels();
        QVERIFY2(labels.size() >= 2, qPrintable(labels.join(' ')));
        qInstallMessageHandler(previous);
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    }

    // The accuracy chart stops at 100%, where the data reaches 99.8%.
    // A flat curve whose values differ by a float's rounding (the accuracy
    // of forgot-to-share) is one value: short labels around it, not one
    // label "8.866666793823" over an axis that magnifies the rounding.
    void aFlatCurveIsNotMagnified() {
        TrainingChart chart("Test accuracy, %", "%");
        chart.resize(400, 240);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setYBounds(0, 100);
        chart.setWorkerCount(0, true);
        QList<ChartSample> flat;
        for (int i = 0; i < 12; ++i)
            flat.append({double(i), 0, 0, i % 3 ? 8.866666793823 : 8.866665840149}); // a float ulp
        chart.appendPoints(TrainingChart::kTestSeries, flat);
        chart.refresh();
        QCategoryAxis* y = axisOf(chart, Qt::Vertical);
        QVERIFY2(y->max() - y->min() >= 1.0,
                 qPrintable(QString("%1..%2").arg(y->min()).arg(y->max())));
        const QStringList labels = y->categoriesLabels();
        QVERIFY2(labels.size() >= 2, qPrintable(labels.join(", ")));
        for (const QString& label : labels)
            QVERIFY2(label.size() <= 4, qPrintable(labels.join(", ")));
    }

    void yBoundsCapTheAxis() {
        TrainingChart chart("Test accuracy", "%");
        chart.setWorkerCount(1, false);
        chart.appendPoints(0, {{0, 0, 0, 9.0}, {1, 0, 0, 99.8}});
        chart.refresh();
        QVERIFY(axisOf(chart, Qt::Vertical)->max() > 100); // padded past it
        chart.setYBounds(0, 100);
        // The last tick is 100; above it only the room for its label.
        QCategoryAxis* y = axisOf(chart, Qt::Vertical);
        QVERIFY(y->max() >= 100 && y->max() < 100 + 0.25 * (y->max() - y->min()));
        QVERIFY(y->min() >= 0);
        QCOMPARE(y->categoriesLabels().last(), QStringLiteral("100"));
    }

    // A top tick's label clears the title: half a label's height (and a
    // little) between the top tick and the plot's top edge, at every size.
    void theTopTickClearsTheTitle() {
        TrainingChart chart("Throughput per worker, samples/s", "samples/s");
        chart.setWorkerCount(2, false);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        for (const QSize size : {QSize(400, 240), QSize(1280, 720)}) {
            chart.resize(size);
            chart.appendPoints(0, {{0, 0, 0, 900000}, {1, 0, 0, 1050000}});
            chart.appendPoints(1, {{0, 0, 0, 950000}, {1, 0, 0, 1000000}});
            QTest::qWait(20);
            chart.refresh();
            QCoreApplication::processEvents();
            QCategoryAxis* y = axisOf(chart, Qt::Vertical);
            const QStringList labels = y->categoriesLabels();
            QVERIFY(labels.size() >= 2);
            const double top = y->endValue(labels.last());
            const double pixels =
                (y->max() - top) / (y->max() - y->min()) * chart.chart()->plotArea().height();
            const double half = QFontMetricsF(y->labelsFont()).height() / 2;
            QVERIFY2(pixels >= half, qPrintable(QString("%1 px above the top tick %2, not %3")
                                                    .arg(pixels)
                                                    .arg(labels.last())
                                                    .arg(half)));
        }
    }

    // Overlays named "#4 locked · Hogwild vs locked" keep what sets them
    // apart when the legend is short of room, and the live workers carry the
    // live run's name beside them: every run on the chart is named.
    void legendNamesEveryRun() {
        TrainingChart chart("Throughput per worker, samples/s", "samples/s");
        chart.setWorkerCount(2, false);
        chart.setLiveName("hogwild");
        QList<ChartSample> curve;
        for (int i = 0; i < 20; ++i)
            curve.append({double(i), double(64 * i), 0.1 * i, 1000.0 + i});
        chart.setOverlays(
            {{"#4 locked · Hogwild vs locked", QColor(Qt::darkGreen), false, curve, -1, "locked"},
             {"#6 data-parallel · DDP vs Hogwild", QColor(Qt::darkBlue), false, curve, -1,
              "data-parallel"}});
        chart.appendPoints(0, curve);
        chart.appendPoints(1, curve);
        chart.show();
        const auto labels = [&] {
            QStringList shown;
            for (QLegendMarker* m : chart.chart()->legend()->markers())
                if (m->isVisible())
                    shown << m->label();
            return shown;
        };
        for (const int width : {1280, 700, 520}) {
            chart.resize(width, 400);
            QVERIFY(QTest::qWaitForWindowExposed(&chart));
            QTest::qWait(20);
            chart.refresh();
            QCoreApplication::processEvents();
            const QStringList shown = labels();
            const QString all = QString::number(width) + ": " + shown.join(" | ");
            QVERIFY2(shown.size() == 4, qPrintable(all));
            for (const char* apart : {"hogwild", "locked", "data-parallel"})
                QVERIFY2(std::any_of(shown.begin(), shown.end(),
                                     [&](const QString& l) { return l.contains(apart); }),
                         qPrintable(all));
            QVERIFY2(elidedTexts(chart.chart()).isEmpty(), qPrintable(all));
        }
        // A small chart of 4 workers and a test curve beside two runs of a
        // sweep: each keeps what sets it apart (never a bare "#1", issue
        // 49), and the test curve says whose it is.
        chart.setWorkerCount(4, true);
        for (int w = 0; w < 4; ++w)
            chart.appendPoints(w, curve);
        chart.setLiveName("accumulate-8");
        chart.setOverlays(
            {{"#1 mode=threads lr=0.1 · sweep", QColor(Qt::darkGreen), false, curve, -1, "lr=0.1"},
             {"#2 mode=threads lr=0.3 · sweep", QColor(Qt::darkBlue), false, curve, -1, "lr=0.3"}});
        for (const int width : {1280, 700, 520, 420}) {
            chart.resize(width, 240);
            QTest::qWait(20);
            chart.refresh();
            QCoreApplication::processEvents();
            const QStringList shown = labels();
            const QString all = QString::number(width) + ": " + shown.join(" | ");
            for (const char* apart : {"lr=0.1", "lr=0.3"})
                QVERIFY2(shown.filter(apart).size() == 1, qPrintable(all));
            QVERIFY2(shown.filter(QRegularExpression("^#[0-9]+$")).isEmpty(), qPrintable(all));
            QVERIFY2(width < 700 || shown.contains("accumulate-8 test"), qPrintable(all));
            QVERIFY2(width < 420 || shown.filter(QRegularExpression("^ ?$")).isEmpty() ||
                         shown.contains("1"),
                     qPrintable(all)); // workers by rank while names fit
            QVERIFY2(elidedTexts(chart.chart()).isEmpty(), qPrintable(all));
        }
        // Without overlays the workers are workers alone.
        chart.setOverlays({});
        QCoreApplication::processEvents();
        QVERIFY(!labels().join(' ').contains("hogwild"));
    }

    void savesPngAndSvgAtTheChosenSize() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TrainingChart chart("Loss per worker", "loss");
        chart.resize(400, 200);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        fill(chart, kKinds[0], 4, true);
        const QString png = dir.filePath("loss.png");
        QString error;
        QVERIFY2(chart.saveImage(png, QSize(1280, 720), &error), qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 720));
        QCOMPARE(chart.chart()->size(), QSizeF(400, 200)); // the screen's chart is as it was
        const QString svg = dir.filePath("loss.svg");
        QVERIFY2(chart.saveImage(svg, QSize(1920, 1080), &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        const QRegularExpressionMatch root =
            QRegularExpression(
                R"re(<svg[^>]*width="([\d.]+)mm"[^>]*height="([\d.]+)mm"[^>]*viewBox="0 0 (\d+) (\d+)")re")
                .match(text);
        QVERIFY2(root.hasMatch(), qPrintable(text.left(600)));
        QCOMPARE(root.captured(3), QStringLiteral("1920"));
        QCOMPARE(root.captured(4), QStringLiteral("1080"));
        // At 96 dpi, as a browser counts pixels: 1920 x 1080 of them.
        QCOMPARE(std::lround(root.captured(1).toDouble() * 96 / 25.4), 1920L);
        QCOMPARE(std::lround(root.captured(2).toDouble() * 96 / 25.4), 1080L);
        QVERIFY2(text.contains("Loss per worker"), "the title is in the drawing");
        // A format it does not write: the message names those it does.
        QVERIFY(!chart.saveImage(dir.filePath("loss.xyz"), QSize(800, 600), &error));
        QVERIFY2(error.contains(".png") && error.contains(".svg"), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath("loss.xyz")));
    }

    // The size asked before saving: a preset fills both boxes; cancel is nothing.
    void sizeDialogOffersPresets() {
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto* presets = dialog->findChild<QComboBox*>();
            const int full = presets->findText("1920 x 1080");
            QVERIFY(full > 0);
            presets->setCurrentIndex(full);
            Q_EMIT presets->activated(full);
            dialog->accept();
        });
        QCOMPARE(askChartSize(nullptr, QSize(800, 600)), std::optional<QSize>(QSize(1920, 1080)));
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            const QList<QSpinBox*> boxes = dialog->findChildren<QSpinBox*>();
            QCOMPARE(boxes.size(), 2);
            QCOMPARE(boxes[0]->value(), 640);
            dialog->reject();
        });
        QCOMPARE(askChartSize(nullptr, QSize(640, 480)), std::optional<QSize>());
    }
};

QTEST_MAIN(TestChartLabels)
#include "tst_chartlabels.moc"
