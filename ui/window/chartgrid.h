#pragma once
// The charts' part of the window: the verdict banner over the chart grid,
// the loss chart over the width and, below, two rows of small charts side by
// side (a hidden chart gives its room to its neighbour, a row of hidden ones
// goes). Fitted to its room at every resize: the banner is bounded and
// scrolls, and the small charts go to one row, or none, before any plot gets
// unreadably low. GUI thread only.
#include <QHash>
#include <QWidget>

#include <algorithm>
#include <optional>

class QScrollArea;
class QSplitter;
class QTimer;

namespace hwl::ui {

class RunCharts;
class TrainingChart;
class VerdictBanner;

class ChartGrid : public QWidget {
    Q_OBJECT

public:
    /// The least plot height a shown chart keeps: a curve still reads.
    static constexpr int kMinPlot = 110;
    /// The verdict banner: at least its title and a line, at most
    /// bannerMax(), scrolling beyond.
    static constexpr int kBannerMin = 56, kBannerMax = 170;
    /// The banner's most in a grid `room` high: kBannerMax, or a third of a
    /// tall grid (a six-run comparison's table whole at 1600x1000), and
    /// never what the charts need for readable plots.
    static int bannerMax(int room) { return std::max(kBannerMax, room / 3); }

    /// Lays out `charts` and `verdict` (hidden until a run ends).
    ChartGrid(RunCharts* charts, VerdictBanner* verdict, QWidget* parent = nullptr);

    /// Arranges the small charts in two rows, one row, or none, whichever
    /// leaves every shown chart kMinPlot of plot (the banner bounded to what
    /// is left), so that no plot is squeezed below a readable height.
    void fit();
    /// Larger fonts and lines on every chart (a projector), fitted again.
    void setPresentation(bool on);
    /// How many rows of small charts show (0, 1 or 2).
    int shownRows() const;
    /// The rows' splitter state, kept between sessions.
    QByteArray saveState() const;
    bool restoreState(const QByteArray& state);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// A chart's height less its plot (its texts), as laid out; none while
    /// it is hidden or not laid out yet.
    static std::optional<int> overheadOf(const TrainingChart* chart);
    /// The height `chart` needs for a readable plot with its texts as laid out.
    int heightFor(const TrainingChart* chart) const;
    void placeSmallCharts(bool oneRow);
    /// Tells the banner which charts do not show now, and why, so that its
    /// sentence on a comparison's chart holds.
    void tellBannerWhatIsOut();
    /// Fits again, once the events in hand are through, if `chart`'s texts
    /// now take another height than when it was last fitted (a legend that
    /// wrapped, taller tick labels): the plot keeps kMinPlot.
    void refitIfOverheadChanged(TrainingChart* chart);

    RunCharts* charts_;
    VerdictBanner* verdict_;
    QScrollArea* verdictScroll_ = nullptr; ///< bounds the banner's height
    QSplitter* splitter_ = nullptr;        ///< the loss chart over the rows
    QSplitter* rows_[2] = {nullptr, nullptr};
    bool presentation_ = false;
    QTimer* refit_ = nullptr;                   ///< coalesces refits after layout changes
    QHash<const TrainingChart*, int> overhead_; ///< each chart's overhead at the last fit
};

} // namespace hwl::ui
