#pragma once
// The window's Timeline tab: where each worker's time went over the last
// seconds of the run, drawn live from the same slices as --trace. A row per
// worker; each pixel column (never narrower than one slice) stacks its
// shares of each kind of time (compute, wait, communicate, the epoch gate,
// the pace) from the bottom, so a worker that computes all the time is a full
// green band, and one that waits for the lock half its time is half
// vermillion. Over the rows, the coordinator's
// evaluations; beside each row, its shares of the time in view, summed from
// the very bins drawn. GUI thread only.
#include "charts/timelinedata.h"

#include <QColor>
#include <QList>
#include <QPair>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QStackedWidget;

namespace hwl::ui {

/// The rows and their texts, painted.
class TimelineView : public QWidget {
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);

    /// Empties it for a run of `workers` workers sliced every `sliceNs`.
    void reset(int workers, std::int64_t sliceNs);
    /// The slices ((worker, slice), in time order per worker) and the
    /// coordinator's spans drained since the last call; `startNs`: the
    /// run's start on the spans' clock. Redraws soon.
    void add(const QList<QPair<std::uint32_t, TraceSlice>>& slices, const QList<TraceSpan>& spans,
             std::int64_t startNs);

    TimelineData& data() { return data_; }
    const TimelineData& data() const { return data_; }
    /// Seconds of run shown (the right edge is the latest slice).
    void setWindowSeconds(double seconds);
    double windowSeconds() const { return double(windowNs_) / 1e9; }
    /// What the view says while it has no slice to draw.
    void setEmptyText(const QString& text);
    /// Redraws soon (at most ten times a second).
    void changed();

    /// Each kind's colour, in TraceKind order, and the evaluations'.
    static QColor kindColor(TraceKind kind);
    static QColor evaluationColor();
    /// The texts painted at the last paint, top to bottom: each worker's
    /// label and shares ("worker 0", "compute 84% · wait 16%"), the axis'
    /// title and ticks. For tests, and to read against the picture.
    QStringList texts() const { return texts_; }
    /// Each worker's time per kind in view at the last paint.
    std::vector<KindNs> shownTotals() const { return totals_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Geometry;
    /// The layout with a shares column `sharesWidth` wide.
    Geometry geometry(int sharesWidth) const;
    void paintRow(class QPainter& p, const Geometry& g, int worker, int top,
                  const std::vector<KindNs>& bins, const QString& shares);
    void paintEvaluations(QPainter& p, const Geometry& g, int top);
    void paintAxis(QPainter& p, const Geometry& g, int top);

    TimelineData data_;
    std::int64_t windowNs_ = 3'000'000'000;
    QString emptyText_;
    bool pending_ = false; ///< a redraw is due
    QStringList texts_;
    std::vector<KindNs> totals_;
};

/// The tab: which run it shows, a legend and the view's length over the
/// view. It keeps the run before the one going (a comparison's earlier run)
/// as it ended, to be shown instead of the live one.
class TimelinePanel : public QWidget {
    Q_OBJECT

public:
    explicit TimelinePanel(QWidget* parent = nullptr);
    /// The run going (or the last that ran).
    TimelineView* view() const { return view_; }
    /// The run before it, as it ended (empty until a second run starts).
    TimelineView* before() const { return before_; }
    /// A run named `name` ("hogwild · threads, 2 workers") of `workers`
    /// workers sliced every `sliceNs` starts: the run shown until now, if it
    /// drew anything, becomes the run before; the live one shows.
    void startRun(const QString& name, int workers, std::int64_t sliceNs);
    /// Shows the run going (true) or the run before (false, once there is one).
    void showCurrent(bool current);
    /// What the tab says it shows: "This run: ...", "The run before: ...".
    QString run() const;

private:
    TimelineView* view_;
    TimelineView* before_;
    QStackedWidget* stack_;
    QLabel* run_;
    QComboBox* which_;  ///< this run or the run before
    QComboBox* window_; ///< the seconds in view
    QString name_, beforeName_;
};

} // namespace hwl::ui
