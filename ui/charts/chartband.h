#pragma once
// The band view of a TrainingChart: many workers at a glance, as their mean
// and a shaded band from the lowest to the highest worker, per bucket of x
// of about a pixel column. The arithmetic is compute(); the Qt Charts series
// it is drawn with are the chart's once attach()ed. GUI thread only.
#include <QColor>
#include <QList>
#include <QPointF>

#include <vector>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QAreaSeries;
class QChart;
class QLineSeries;
QT_END_NAMESPACE

namespace hwl::ui {

class ChartBand {
public:
    /// What the band covers; `any` false when it has no point.
    struct Extent {
        bool any = false;
        double minX = 0, maxX = 0, minY = 0, maxY = 0;
    };
    /// The band's points: at the middle of each bucket that holds a point
    /// of any curve, the curves' mean there (each curve's own mean in the
    /// bucket first), their lowest and their highest.
    struct Points {
        QList<QPointF> mean, lower, upper;
        Extent extent;
    };
    /// `curves` in ascending x each, over `buckets` equal buckets of the x
    /// range they span together.
    static Points compute(const std::vector<QList<QPointF>>& curves, int buckets);

    /// Adds the band and its mean line to `chart` on axes `x` and `y`, named
    /// for `workers` workers, in `colour`, the mean `width` pixels wide.
    void attach(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, int workers,
                const QColor& colour, double width);
    /// The chart removed every series: the band's are gone.
    void detach();
    bool attached() const { return mean_ != nullptr; }
    void show(const Points& points);
    /// After the last show(): 0 the mean, 1 the lower edge, 2 the upper.
    QList<QPointF> points(int which) const;
    const Extent& extent() const { return extent_; }

private:
    QAreaSeries* area_ = nullptr; ///< owned by the chart (with its two lines)
    QLineSeries* mean_ = nullptr; ///< owned by the chart
    Extent extent_;
};

} // namespace hwl::ui
