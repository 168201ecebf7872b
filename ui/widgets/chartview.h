#pragma once
// ChartView: the QChartView of a TrainingChart (and of the runs' scaling
// chart), with the interactions a reader expects: drag a rectangle to zoom into it, turn the wheel
// to zoom in or out about the pointer, double-click (or press 0) to go back to the whole run. While
// zoomed the chart stops fitting its axes to new data.
#include <QChartView>

namespace hwl::ui {

class ChartView : public QChartView {
    Q_OBJECT

public:
    explicit ChartView(QChart* chart, QWidget* parent = nullptr);
    /// A new chart as the window's charts are drawn: no animation, the legend
    /// at the bottom with tooltips for the names it shortens, and the room for
    /// the curves (no rounded frame, narrow margins). The caller owns it until
    /// a view takes it.
    static QChart* makeChart();
    /// Zoom by `factor` (< 1 zooms in) about `at`, a point in view coordinates.
    void zoomAbout(QPointF at, double factor);
    /// What hovering a curve shows (empty when the pointer is on none): the
    /// view's own tooltip ("Drag a rectangle...") waits until it is empty,
    /// rather than replacing the curve's text while the pointer stays on it.
    void setHoverText(const QString& text) { hoverText_ = text; }
    const QString& hoverText() const { return hoverText_; }

Q_SIGNALS:
    /// The user zoomed or panned: the axes now show a part of the data.
    void zoomed();
    /// Double-click or 0: back to the whole run.
    void resetRequested();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    /// Shows hoverText_ for a tooltip event; false when there is none.
    bool showHoverText(QEvent* event);
    QPoint pressedAt_;
    QString hoverText_;
};

} // namespace hwl::ui
