#pragma once
// A line chart of training curves (loss or divergence), one series per worker
// plus an optional "test" series, behind a small API so that no other GUI code
// touches Qt Charts.
//
// Threading: GUI thread only. Producers hand whole batches to appendPoints();
// the owner calls refresh() on a coalescing timer.
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
// Interaction (ChartView): hover a curve for its step, samples, wall time,
// raw and smoothed value; drag or wheel to zoom (the axes then stay where the
// user put them), double-click to see the whole run again. Earlier runs can
// be laid under the live ones as overlays (setOverlays()): dashed, in a hue
// apart from every worker's, named in the legend, and (by default) clipped
// to the live run's range rather than stretching it.
//
// Labels: the ticks, titles and legend entries are chosen to fit the chart's
// size (fewer ticks, "14M" rather than "14000000", short names when narrow),
// so that Qt Charts never cuts one short with "...".
#include "charts/chartaxes.h"
#include "charts/chartband.h"
#include "charts/chartmarks.h"
#include "charts/chartseries.h"
#include "charts/downsampler.h"
#include "charts/overlaypalette.h"
#include "charts/smoothing.h"
#include "widgets/chartsample.h"

#include <QColor>
#include <QFont>
#include <QList>
#include <QPoint>
#include <QPointF>
#include <QSizeF>
#include <QStringList>
#include <QWidget>

#include <limits>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QCategoryAxis;
class QChart;
class QChartView;
class QLegendMarker;
class QLineSeries;
class QScatterSeries;
class QSize;
QT_END_NAMESPACE

namespace hwl::ui {

class ChartView;

class TrainingChart : public QWidget {
    Q_OBJECT

public:
    /// Series id of the test series; workers are 0..n-1 (their rank).
    static constexpr int kTestSeries = -1;
    /// Overlay i (see setOverlays()) has series id kOverlayBase - i.
    static constexpr int kOverlayBase = -1000;
    static constexpr int overlaySeries(int index) { return kOverlayBase - index; }

    using Overlay = ChartOverlay; ///< an earlier run's curve (overlaypalette.h)
    /// Fewest downsampling buckets, whatever the plot width.
    static constexpr int kMinBuckets = 200;

    /// What the x axis shows: the ChartSample field of that name
    /// (Time: seconds since the run started).
    enum class XAxis { Step, Samples, Time };

    TrainingChart(const QString& title, const QString& yTitle, QWidget* parent = nullptr);
    ~TrainingChart() override;

    /// Removes every series (and its data), then creates "worker 0" ..
    /// "worker n-1" and, when `withTestSeries`, "test" (drawn last, on top).
    /// All new series are visible. n < 0 counts as 0.
    void setWorkerCount(int n, bool withTestSeries);
    int workerCount() const { return int(workers_.size()); }
    bool hasTestSeries() const { return test_.has_value(); }

    /// Replaces the overlays (earlier runs' curves; kept across
    /// setWorkerCount()). They are smoothed and scaled like the others, but
    /// always drawn dashed, in overlayColor() of their colour, and named in
    /// the legend.
    void setOverlays(const QList<Overlay>& overlays);
    int overlayCount() const { return int(overlays_.size()); }
    /// The colour overlay `index` is drawn in (OverlayPalette::colorOf()),
    /// apart from the workers' colours shown and the test series'.
    QColor overlayColor(int index) const;
    /// The run's worker count, for charts that show fewer workers than the
    /// run has (accuracy: none): overlay colours keep clear of the first
    /// `workers` worker colours on every chart alike, so that one run is
    /// one colour across the window. Applied at the next setOverlays() or
    /// setWorkerCount().
    void setOverlayColorPeers(int workers) { colorPeers_ = workers; }
    /// Whether the axes fit the overlays too. Off by default: the axes fit
    /// the live run and overlays are clipped to it (an earlier run of 14M
    /// steps does not squeeze this one into the left edge); overlays set the
    /// range only while the live run has no points yet. Redraws.
    void setOverlaysFitAxes(bool on);
    bool overlaysFitAxes() const { return overlaysFitAxes_; }

    /// A floor and a ceiling the y axis never passes (accuracy: 0 and 100),
    /// NaN for none. Redraws.
    void setYBounds(double floor, double ceiling);

    /// Marks on the curves (ChartMarks): epoch ends and worker deaths, drawn
    /// at refresh(); test evaluations are the test series' own dots.
    using Marker = ChartMarker;
    static constexpr qsizetype kMaxMarkers = ChartMarks::kMaxMarks;
    /// The test series dots each evaluation up to this many of them.
    static constexpr qsizetype kMaxDottedEvaluations = 150;
    void addMarkers(Marker kind, const QList<ChartSample>& points);
    const QList<ChartSample>& markers(Marker kind) const;

    /// Many workers at a glance: instead of one line per worker, their mean
    /// (smoothed like the lines) and a shaded band from the lowest to the
    /// highest worker, in buckets of about a pixel column. Redraws.
    void setBandView(bool on);
    bool bandView() const { return bandView_; }
    /// The band's points after the last refresh: mean, lower and upper.
    QList<QPointF> bandPoints(int which) const;

    /// Whether the user zoomed (the axes then no longer follow the data).
    bool zoomed() const { return zoomed_; }
    /// Back to the whole run: the axes fit the data again.
    void resetZoom();
    /// What hovering series `seriesId` at x shows: its name, the nearest
    /// point's step, samples and wall time, its raw and smoothed value.
    /// Empty for an unknown id or a series without points.
    QString describePoint(int seriesId, double x) const;
    ChartView* view() const { return view_; }

    /// Appends samples to a series' raw data (expected in ascending x for each
    /// axis mode; they are sorted at draw time if not). Buffers only: nothing
    /// is redrawn until refresh(). Unknown series ids are ignored.
    void appendPoints(int seriesId, const QList<ChartSample>& points);
    /// Drops all points of all series; keeps the series. Redraws.
    void clear();

    /// EMA weight in [0, 0.99] (clamped), see smoothEma(); 0 = off. Applied at
    /// display time only. Redraws.
    void setSmoothing(double weight);
    double smoothing() const { return smoothing_; }
    void setXAxis(XAxis axis); ///< Redraws.
    XAxis xAxis() const { return xMode_; }
    /// Log10 y axis (the axis holds log10 of the values and is labelled with
    /// the values, several per axis, in plain notation; points with y <= 0
    /// are not drawn) or a linear one. Redraws.
    void setLogScale(bool on);
    /// Shows or hides the x axis' title (small charts under a big one that
    /// has it: the room goes to the tick labels). A chart too short for it
    /// hides it anyway, and then its legend.
    void setXTitleVisible(bool visible);
    bool logScale() const { return logScale_; }

    /// Shows or hides a series (its legend marker stays, dimmed when hidden)
    /// and rescales the axes to the visible data. Emits
    /// seriesVisibilityChanged when the visibility actually changes.
    void setSeriesVisible(int seriesId, bool visible);
    bool seriesVisible(int seriesId) const;

    /// Rebuilds the displayed points of every visible series whose data or
    /// display settings changed, then fits the axes to the visible data.
    void refresh();

    /// The points the series shows now (after the last refresh()).
    QList<QPointF> displayedPoints(int seriesId) const;
    /// What the series keeps of everything appended since it was created or
    /// cleared: all of it, until it holds more than rawPointLimit() points.
    /// Then the history is thinned to about half: the first and the last
    /// point stay, and each run of 4 consecutive points in between keeps its
    /// lowest and its highest value (in their order). The curve's envelope,
    /// its first and last points and its extremes survive every thinning;
    /// older stretches, thinned more often, hold fewer points per step.
    /// An empty list for an unknown id.
    const QList<ChartSample>& rawPoints(int seriesId) const;
    /// Points a series keeps at most (see rawPoints()), so that memory stays
    /// bounded in a run of any length. Default kRawPointLimit; at least 16.
    void setRawPointLimit(qsizetype limit);
    qsizetype rawPointLimit() const { return rawLimit_; }
    /// Default for rawPointLimit(): about 16 points per pixel column of a
    /// wide chart, 1 MiB of raw points per series.
    static constexpr qsizetype kRawPointLimit = qsizetype(1) << 15;
    /// Downsampling buckets used by the last refresh: the plot area's width in
    /// pixels (updated when it moves by more than 10%), at least kMinBuckets.
    /// A series shows at most 2*buckets+2 points.
    int bucketCount() const { return buckets_; }

    /// Renders the chart at `size` pixels (laid out for that size, not a
    /// screen grab) to a file: SVG for .svg, else an image format Qt writes
    /// (.png, .jpg, .bmp). An empty size: the widget's. Returns false and
    /// says why in `error` (if given) on failure.
    bool saveImage(const QString& path, QSize size, QString* error = nullptr);
    bool saveImage(const QString& path);
    /// The suffixes saveImage() writes, lower case: "png", "svg", ...
    static QStringList imageSuffixes();

    QChart* chart() const { return chart_; }
    /// The title in full; the chart shows as much of it as fits (whole
    /// words, a parenthesis dropped first), never cut with "...". A title
    /// set on chart() directly is taken as the full one at the next fit.
    void setTitle(const QString& title);
    const QString& title() const { return title_; }
    /// Qt Charts' dark or light theme; the test series turns white or black.
    void setDarkTheme(bool dark);
    bool darkTheme() const { return dark_; }
    /// For a projector: the title, legend, axis labels and axis titles in
    /// fonts kPresentationFontScale times the theme's, every line
    /// kPresentationPenScale times as wide, the markers kPresentationMarkerScale
    /// times as large. Kept through setWorkerCount(), setOverlays(),
    /// setBandView(), setLogScale() and setDarkTheme(); the ticks, titles and
    /// legend are fitted with the fonts shown, so none is elided. Redraws.
    void setPresentation(bool on);
    bool presentation() const { return presentation_; }
    static constexpr double kPresentationFontScale = 1.25;
    static constexpr double kPresentationPenScale = 1.6;
    static constexpr double kPresentationMarkerScale = 1.3;

    /// The Qt Charts series behind a series id; nullptr for an unknown id.
    QLineSeries* series(int seriesId) const;

    /// The colour of worker `rank`: Tableau 10 for the first ten, then hues
    /// a golden angle apart at alternating lightness, so no two of the first
    /// hundreds repeat. The test series is black (white when dark).
    static QColor workerColor(int rank);

Q_SIGNALS: // (Q_ spelling: usable with QT_NO_KEYWORDS)
    /// A series was shown or hidden (legend click or setSeriesVisible()).
    void seriesVisibilityChanged(int seriesId, bool visible);

private:
    using Series = ChartSeries;
    /// The ChartSample field an x axis mode shows.
    static const double ChartSample::*xFieldOf(XAxis axis);
    Series* find(int seriesId);
    const Series* find(int seriesId) const;
    Series* find(const QLineSeries* line);
    QLineSeries* addLineSeries(const QString& name, const QColor& color, bool isTest);
    /// Removes every line and makes them again (overlays first, so drawn
    /// under the workers); the data and the visibility stay.
    void recreateLines();
    void rebuild(Series& s);
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
    template <class F>
    void forEachSeries(F&& f);

    QChart* chart_ = nullptr;            // owned by view_
    ChartView* view_ = nullptr;          // child widget
    QCategoryAxis* xAxisItem_ = nullptr; // owned by chart_
    QCategoryAxis* yAxisItem_ = nullptr; // owned by chart_ (log10 of y when logScale_)
    QString title_;
    QString shownTitle_; // what fitTexts() last showed of title_
    QString yTitle_;
    bool overlaysFitAxes_ = false;
    int colorPeers_ = 0;       ///< workers whose colours overlays avoid besides those shown
    bool xTitleWanted_ = true; // setXTitleVisible(); fitTexts() may still hide it
    /// Whether any legend label is cut short as the legend lays it out now.
    bool legendElided() const;
    double yFloor_ = std::numeric_limits<double>::quiet_NaN();
    double yCeiling_ = std::numeric_limits<double>::quiet_NaN();

    std::vector<Series> workers_;
    std::optional<Series> test_; // apart, so that a worker's rank indexes workers_
    std::vector<Series> overlays_;
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

/// Every series: overlays (drawn first), workers, then the test series.
template <class F>
void TrainingChart::forEachSeries(F&& f) {
    for (Series& s : overlays_)
        f(s);
    for (Series& s : workers_)
        f(s);
    if (test_)
        f(*test_);
}

} // namespace hwl::ui
