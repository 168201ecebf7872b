#pragma once
// TrainingChart's private parts: the state the chart keeps and the helpers
// that build, fit and label it. Only the trainingchart*.cpp files include
// this header; TrainingChart itself holds no more than a pointer to it.
//
// Data flow: raw samples -> (x per axis mode, value) -> EMA smoothing -> drop
// points the y axis cannot show -> min/max downsampling to about one bucket
// per pixel column -> QXYSeries::replace(). The raw samples are never
// modified, so smoothing, x axis and log scale can change at any time.
//
// Cost: the smoothed values and the min/max blocks (MinMaxDecimator) are
// extended as points arrive, so a refresh costs O(new points + buckets) per
// changed series, whatever the length of the history. Only a change of
// smoothing, x axis or log scale (a user action) recomputes them, in O(n).
// A series is only rebuilt when it is visible and something it depends on
// changed; the axes are set only when their (nice) range changes.
//
// Labels: the ticks, titles and legend entries are chosen to fit the chart's
// size (fewer ticks, "14M" rather than "14000000", short names when narrow),
// so that Qt Charts never cuts one short with "...".
#include "charts/chartband.h"
#include "charts/chartmarks.h"
#include "charts/chartseries.h"
#include "charts/overlaypalette.h"
#include "charts/trainingchart.h"
#include "widgets/chartaxes.h"
#include "widgets/chartsample.h"

#include <QColor>
#include <QFont>
#include <QList>
#include <QPoint>
#include <QPointF>
#include <QString>

#include <limits>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QAbstractSeries;
class QCategoryAxis;
class QChart;
class QLegendMarker;
class QLineSeries;
QT_END_NAMESPACE

namespace hwl::ui {

struct TrainingChart::Parts {
    Parts(TrainingChart& chart, const QString& title, const QString& yTitle)
        : q(chart), title_(title), yTitle_(yTitle) {}

    TrainingChart& q; ///< the chart these are the parts of

    /// The ChartSample field an x axis mode shows.
    static const double ChartSample::*xFieldOf(XAxis axis);
    ChartSeries* find(int seriesId);
    const ChartSeries* find(int seriesId) const;
    ChartSeries* find(const QLineSeries* line);
    QLineSeries* addLineSeries(const QString& name, const QColor& color, bool isTest);
    /// Removes every line and makes them again (overlays first, so drawn
    /// under the workers); the data and the visibility stay.
    void recreateLines();
    void rebuild(ChartSeries& s);
    void fitAxes();
    /// Ticks for the y axis over [lo, hi] (log10 units on a log scale) that
    /// the plot's height has room for.
    /// roundOut (the range fitted to the data): within the y bounds, too.
    AxisTicks yTicks(double lo, double hi, bool roundOut) const;
    /// Drops the range and the ticks past the y floor and ceiling.
    void clipToBounds(AxisTicks& t) const;
    /// Relabels an axis for the range it shows (after a zoom).
    void relabelAxis(QCategoryAxis* axis);
    /// Room right of the plot for half the last x label.
    void fitRightMargin();
    void replaceYAxis();
    /// Fits the title, the y title and the legend to the chart's size.
    void fitTexts();
    void queueFitTexts(); ///< fitTexts() once the events queued now are handled
    bool textsQueued_ = false;
    void markAllDirty();
    void resetAllDerived();
    int wantedBuckets() const;
    bool bucketsOutOfDate(int wanted) const;
    void onPlotAreaChanged();
    void styleMarker(QLegendMarker* marker, bool visible);
    int xTicks(double lo, double hi) const;
    void fitLegend();
    /// What the overlay drawn by `series` goes by short of room (its
    /// ChartOverlay::shortName); empty for any other series.
    QString overlayShortName(const QAbstractSeries* series) const;
    /// Every series: overlays (drawn first), workers, then the test series.
    template <class F>
    void forEachSeries(F&& f) {
        for (ChartSeries& s : overlays_)
            f(s);
        for (ChartSeries& s : workers_)
            f(s);
        if (test_)
            f(*test_);
    }

    QChart* chart_ = nullptr;            // owned by view_
    ChartView* view_ = nullptr;          // child widget
    QCategoryAxis* xAxisItem_ = nullptr; // owned by chart_
    QCategoryAxis* yAxisItem_ = nullptr; // owned by chart_ (log10 of y when logScale_)
    QString title_;
    QString shownTitle_; // what fitTexts() last showed of title_
    QString liveName_;   // setLiveName()
    QString yTitle_;
    bool overlaysFitAxes_ = false;
    int colorPeers_ = 0;       ///< workers whose colours overlays avoid besides those shown
    bool xTitleWanted_ = true; // setXTitleVisible(); fitTexts() may still hide it
    /// Whether any legend label is cut short as the legend lays it out now.
    bool legendElided() const;
    double yFloor_ = std::numeric_limits<double>::quiet_NaN();
    double yCeiling_ = std::numeric_limits<double>::quiet_NaN();
    bool yFromZero_ = false; // setYRange()
    double yMinSpan_ = 0;

    std::vector<ChartSeries> workers_;
    std::optional<ChartSeries> test_; // apart, so that a worker's rank indexes workers_
    std::vector<ChartSeries> overlays_;
    ChartMarks marks_;
    void addMarkerSeries();
    void addBandSeries();
    /// A line's width: `normal` scaled in presentation.
    double lineWidth(double normal) const;
    /// The theme's fonts, read after it set them; the chart's shown fonts
    /// are these, scaled in presentation (applyFonts()).
    struct Fonts {
        QFont title, legend, labels, axisTitle;
    };
    Fonts themeFonts_;
    void readThemeFonts();
    /// Gives the chart, its legend and both axes themeFonts_, scaled when
    /// presenting; the next fit measures with them.
    void applyFonts();
    bool presentation_ = false;
    void rebuildBand();
    bool bandView_ = false;
    ChartBand band_;
    void rebuildMarkers();
    QList<Overlay> overlayDefs_; // names, colours and styles of overlays_

    double smoothing_ = 0;
    /// The weight series `s` is smoothed with: none for the test series, an
    /// evaluation a run's end reports as it was measured.
    double weightOf(const ChartSeries& s) const { return s.id == kTestSeries ? 0.0 : smoothing_; }
    XAxis xMode_ = XAxis::Step;
    bool logScale_ = false;
    int buckets_ = kMinBuckets;
    qsizetype rawLimit_ = kRawPointLimit;
    bool refreshQueued_ = false;
    bool zoomed_ = false;
    bool dark_ = false;
    QPoint ticks_;                 // tick intervals the plot area has room for (x, y)
    QColor testColor_ = Qt::black; // white on a dark theme
    QList<QPointF> scratch_;       // reused between rebuilds to avoid reallocating
};

} // namespace hwl::ui
