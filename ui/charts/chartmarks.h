#pragma once
// Marks on a TrainingChart's curves: a worker's epoch ends (grey dots at its
// epoch's mean loss) and worker deaths (red squares where it stopped), each
// kind a scatter series of the chart's, named on hover and not in the
// legend. At most kMaxMarks of a kind are kept: every other one goes when
// full, the last kept. GUI thread only.
#include "charts/chartseries.h"

#include <QList>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QChart;
class QScatterSeries;
QT_END_NAMESPACE

namespace hwl::ui {

enum class ChartMarker { EpochEnd, WorkerDeath };

class ChartMarks {
public:
    static constexpr qsizetype kMaxMarks = 512;

    void add(ChartMarker kind, const QList<ChartSample>& points);
    const QList<ChartSample>& points(ChartMarker kind) const;
    /// Forgets every mark (a new run).
    void clear();
    /// Draws every kind again at the next rebuild() (the x axis or scale changed).
    void markDirty();
    /// Adds both scatter series to `chart` on axes `x` and `y`, their marks
    /// `markerScale` times their normal size; the chart owns them.
    QList<QScatterSeries*> attach(QChart* chart, QAbstractAxis* x, QAbstractAxis* y,
                                  double markerScale);
    /// A new y axis: the series are drawn against it.
    void attachY(QAbstractAxis* y);
    /// Redraws the kinds that changed: x from field `x`, y on a linear or
    /// log axis (marks a log axis cannot draw are left out).
    void rebuild(XField x, bool log);

private:
    struct Kind {
        QScatterSeries* scatter = nullptr; ///< owned by the chart
        QList<ChartSample> raw;
        bool dirty = false;
    };
    Kind kinds_[2]; ///< by ChartMarker
};

} // namespace hwl::ui
