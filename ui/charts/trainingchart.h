#pragma once
// A line chart of training curves (loss or divergence), one series per worker
// plus an optional "test" series, behind a small API so that no other GUI code
// touches Qt Charts.
//
// Threading: GUI thread only. Producers hand whole batches to appendPoints();
// the owner calls refresh() on a coalescing timer.
//
// Interaction (ChartView): hover a curve for its step, samples, wall time,
// raw and smoothed value; drag or wheel to zoom (the axes then stay where the
// user put them), double-click to see the whole run again. Earlier runs can
// be laid under the live ones as overlays (setOverlays()): dashed, in a hue
// apart from every worker's, named in the legend, and (by default) clipped
// to the live run's range rather than stretching it.
//
// How a refresh draws the data, what it costs and how the labels are
// fitted to the chart's size: trainingchartparts.h.
#include "charts/trainingchartterms.h"
#include "widgets/chartsample.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>

#include <memory>

QT_BEGIN_NAMESPACE
class QChart;
class QLineSeries;
QT_END_NAMESPACE

namespace hwl::ui {

class ChartView;

class TrainingChart : public QWidget, public TrainingChartTerms {
    Q_OBJECT

public:
    TrainingChart(const QString& title, const QString& yTitle, QWidget* parent = nullptr);
    ~TrainingChart() override;

    /// Removes every series (and its data), then creates "worker 0" ..
    /// "worker n-1" and, when `withTestSeries`, "test" (drawn last, on top).
    /// All new series are visible. n < 0 counts as 0.
    void setWorkerCount(int n, bool withTestSeries);
    int workerCount() const;
    bool hasTestSeries() const;

    /// Replaces the overlays (earlier runs' curves; kept across
    /// setWorkerCount()). They are smoothed and scaled like the others, but
    /// always drawn dashed, in overlayColor() of their colour, and named in
    /// the legend.
    void setOverlays(const QList<Overlay>& overlays);
    int overlayCount() const;
    /// What the live run is called beside the overlays ("hogwild", "threads
    /// ×2"): while overlays are drawn, the legend names the live workers
    /// with it ("hogwild 0", "1"), so that no run is left unnamed. Refits.
    void setLiveName(const QString& name);
    QString liveName() const;
    /// The colour overlay `index` is drawn in (OverlayPalette::colorOf()),
    /// apart from the workers' colours shown and the test series'.
    QColor overlayColor(int index) const;
    /// The run's worker count, for charts that show fewer workers than the
    /// run has (accuracy: none): overlay colours keep clear of the first
    /// `workers` worker colours on every chart alike, so that one run is
    /// one colour across the window. Applied at the next setOverlays() or
    /// setWorkerCount().
    void setOverlayColorPeers(int workers);
    /// Whether the axes fit the overlays too. Off by default: the axes fit
    /// the live run and overlays are clipped to it (an earlier run of 14M
    /// steps does not squeeze this one into the left edge); overlays set the
    /// range only while the live run has no points yet. Redraws.
    void setOverlaysFitAxes(bool on);
    bool overlaysFitAxes() const;

    /// A floor and a ceiling the y axis never passes (accuracy: 0 and 100),
    /// NaN for none. Redraws.
    void setYBounds(double floor, double ceiling);
    /// How the y axis holds the data besides its bounds: `fromZero` (a
    /// rate: 0 is on the axis, so that a slower earlier run is not below
    /// it) and `minSpan` (the least range shown, so that a flat accuracy
    /// reads as flat, not as a band of noise; 0: none). Redraws.
    void setYRange(bool fromZero, double minSpan);

    /// Marks on the curves (ChartMarks): epoch ends and worker deaths, drawn
    /// at refresh(); test evaluations are the test series' own dots.
    void addMarkers(Marker kind, const QList<ChartSample>& points);
    const QList<ChartSample>& markers(Marker kind) const;

    /// Many workers at a glance: instead of one line per worker, their mean
    /// (smoothed like the lines) and a shaded band from the lowest to the
    /// highest worker, in buckets of about a pixel column. Redraws.
    void setBandView(bool on);
    bool bandView() const;
    /// The band's points after the last refresh: mean, lower and upper.
    QList<QPointF> bandPoints(int which) const;

    /// Whether the user zoomed (the axes then no longer follow the data).
    bool zoomed() const;
    /// Back to the whole run: the axes fit the data again.
    void resetZoom();
    /// What hovering series `seriesId` at x shows: its name, the nearest
    /// point's step, samples and wall time, its raw and smoothed value.
    /// Empty for an unknown id or a series without points.
    QString describePoint(int seriesId, double x) const;
    ChartView* view() const;

    /// Appends samples to a series' raw data (expected in ascending x for each
    /// axis mode; they are sorted at draw time if not). Buffers only: nothing
    /// is redrawn until refresh(). Unknown series ids are ignored.
    void appendPoints(int seriesId, const QList<ChartSample>& points);
    /// Drops all points of all series; keeps the series. Redraws.
    void clear();

    /// EMA weight in [0, 0.99] (clamped), see smoothEma(); 0 = off. Applied at
    /// display time only. Redraws.
    void setSmoothing(double weight);
    double smoothing() const;
    void setXAxis(XAxis axis); ///< Redraws.
    XAxis xAxis() const;
    /// Log10 y axis (the axis holds log10 of the values and is labelled with
    /// the values, several per axis, in plain notation; points with y <= 0
    /// are not drawn) or a linear one. Redraws.
    void setLogScale(bool on);
    /// Shows or hides the x axis' title (small charts under a big one that
    /// has it: the room goes to the tick labels). A chart too short for it
    /// hides it anyway, and then its legend.
    void setXTitleVisible(bool visible);
    bool logScale() const;

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
    qsizetype rawPointLimit() const;
    /// Downsampling buckets used by the last refresh: the plot area's width in
    /// pixels (updated when it moves by more than 10%), at least kMinBuckets.
    /// A series shows at most 2*buckets+2 points.
    int bucketCount() const;

    /// Renders the chart at `size` pixels (laid out for that size, not a
    /// screen grab) to a file: SVG for .svg, else an image format Qt writes
    /// (.png, .jpg, .bmp). An empty size: the widget's. Returns false and
    /// says why in `error` (if given) on failure.
    bool saveImage(const QString& path, QSize size, QString* error = nullptr);
    bool saveImage(const QString& path);
    /// The suffixes saveImage() writes, lower case: "png", "svg", ...
    static QStringList imageSuffixes();

    QChart* chart() const;
    /// The title in full; the chart shows as much of it as fits (whole
    /// words, a parenthesis dropped first), never cut with "...". A title
    /// set on chart() directly is taken as the full one at the next fit.
    void setTitle(const QString& title);
    const QString& title() const;
    /// Qt Charts' dark or light theme; the test series turns white or black.
    void setDarkTheme(bool dark);
    bool darkTheme() const;
    /// For a projector: the title, legend, axis labels and axis titles in
    /// fonts kPresentationFontScale times the theme's, every line
    /// kPresentationPenScale times as wide, the markers kPresentationMarkerScale
    /// times as large. Kept through setWorkerCount(), setOverlays(),
    /// setBandView(), setLogScale() and setDarkTheme(); the ticks, titles and
    /// legend are fitted with the fonts shown, so none is elided. Redraws.
    void setPresentation(bool on);
    bool presentation() const;

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
    struct Parts; // trainingchartparts.h: the state and the helpers
    std::unique_ptr<Parts> p_;
};

} // namespace hwl::ui
