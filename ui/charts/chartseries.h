#pragma once
// One curve of a TrainingChart: the raw samples it keeps (bounded, thinned
// keeping the envelope) and what is drawn of them. The smoothed values and
// their min/max blocks are extended as points arrive, so that drawing costs
// O(new points + buckets) whatever the length of the history; a change of
// smoothing, x axis or log scale starts them over (resetDerived()). The Qt
// Charts line it is drawn with is the chart's. GUI thread only.
#include "charts/downsampler.h"
#include "charts/smoothing.h"
#include "widgets/chartsample.h"

#include <QList>
#include <QPointF>

#include <limits>

QT_BEGIN_NAMESPACE
class QLineSeries;
QT_END_NAMESPACE

namespace hwl::ui {

/// The ChartSample field the x axis shows.
using XField = const double ChartSample::*;

/// y as a log axis holds it (log10, NaN for y <= 0), or as it is.
double toAxisY(double y, bool log);
double fromAxisY(double y, bool log);

/// Halves a history in place: keeps the first and the last sample and, of
/// each run of 4 samples in between, those with the lowest and the highest
/// finite value, in their order (the first of the run when none is finite).
void thinKeepingExtremes(QList<ChartSample>& raw);

class ChartSeries {
public:
    int id = 0;
    QLineSeries* line = nullptr; ///< owned by the chart
    QList<ChartSample> raw;
    bool dirty = true; ///< the displayed points are out of date
    /// Extent of the displayed points (axis units); none when empty.
    bool hasExtent = false;
    double minX = 0, maxX = 0, minY = 0, maxY = 0;

    /// Derived from raw[0, processed) for the display settings: the smoothed,
    /// drawable-or-NaN values (axis units) and their min/max blocks.
    MinMaxDecimator decimated;
    EmaSmoother ema{0};
    qsizetype processed = 0;
    double lastX = -std::numeric_limits<double>::infinity();
    bool sorted = true; ///< x never went backwards; else the O(n) fallback

    /// The display settings changed: derived data starts over, smoothed by `smoothing`.
    void resetDerived(double smoothing);
    /// Derives raw[processed, size) for x field `x` on a linear or log axis;
    /// stops (sorted = false) at an x that goes back.
    void extendDerived(XField x, bool log);
    /// Appends `points`, then thins the history to at most `limit` points.
    void append(const QList<ChartSample>& points, qsizetype limit, double smoothing);
    /// Thins raw until it holds at most `limit` points (thinKeepingExtremes()).
    void enforceLimit(qsizetype limit, double smoothing);
    /// The points to draw with `buckets` downsampling buckets (axis units),
    /// and their extent. `scratch` is reused between calls.
    QList<QPointF> displayPoints(XField x, double smoothing, bool log, int buckets,
                                 QList<QPointF>& scratch);
    /// The raw sample nearest `at` in x; -1 when there is none.
    qsizetype nearest(XField x, double at) const;
};

} // namespace hwl::ui
