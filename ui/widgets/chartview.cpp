#include "widgets/chartview.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLegend>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

namespace hwl::ui {

ChartView::ChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
    setRubberBand(QChartView::RectangleRubberBand);
    setFocusPolicy(Qt::ClickFocus);
    // The whole view at each change: partial updates left half-erased dots
    // and arcs after a splitter drag (issue 49) that only a resize cleared.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    setToolTip(tr("Drag a rectangle to zoom, turn the wheel to zoom about the pointer, "
                  "double-click (or press 0) to see the whole run"));
}

QChart* ChartView::makeChart() {
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);
    // Room for the curves: no rounded frame nor wide margins around them.
    chart->setMargins(QMargins(4, 2, 4, 2));
    chart->setBackgroundRoundness(0);
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    return chart;
}

void ChartView::zoomAbout(QPointF at, double factor) {
    const QRectF area = chart()->plotArea();
    if (!area.isValid() || !(factor > 0))
        return;
    const QPointF centre = area.contains(at) ? at : area.center();
    // The rectangle that, zoomed into, scales the view by `factor` about `centre`.
    const QRectF target(centre.x() - (centre.x() - area.left()) * factor,
                        centre.y() - (centre.y() - area.top()) * factor, area.width() * factor,
                        area.height() * factor);
    chart()->zoomIn(target);
    Q_EMIT zoomed();
}

void ChartView::wheelEvent(QWheelEvent* event) {
    const int delta = event->angleDelta().y();
    if (delta == 0) {
        event->ignore();
        return;
    }
    zoomAbout(mapToScene(event->position().toPoint()), delta > 0 ? 0.8 : 1.25);
    event->accept();
}

void ChartView::mousePressEvent(QMouseEvent* event) {
    pressedAt_ = event->position().toPoint();
    QChartView::mousePressEvent(event);
}

void ChartView::mouseReleaseEvent(QMouseEvent* event) {
    // The rubber band zooms on a left release after a drag, and a right click
    // zooms out: both leave the axes where the user put them.
    const bool dragged = (event->position().toPoint() - pressedAt_).manhattanLength() > 4;
    const bool zooms =
        (event->button() == Qt::LeftButton && dragged) || event->button() == Qt::RightButton;
    QChartView::mouseReleaseEvent(event);
    if (zooms)
        Q_EMIT zoomed();
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        Q_EMIT resetRequested();
        event->accept();
        return;
    }
    QChartView::mouseDoubleClickEvent(event);
}

void ChartView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_0) {
        Q_EMIT resetRequested();
        return;
    }
    if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Minus) {
        zoomAbout(chart()->plotArea().center(), event->key() == Qt::Key_Plus ? 0.8 : 1.25);
        return;
    }
    QChartView::keyPressEvent(event);
}

bool ChartView::showHoverText(QEvent* event) {
    if (event->type() != QEvent::ToolTip || hoverText_.isEmpty())
        return false;
    const auto* help = static_cast<QHelpEvent*>(event);
    QToolTip::showText(help->globalPos(), hoverText_, this);
    event->accept();
    return true;
}

bool ChartView::event(QEvent* event) {
    return showHoverText(event) || QChartView::event(event);
}

bool ChartView::viewportEvent(QEvent* event) {
    return showHoverText(event) || QChartView::viewportEvent(event);
}

} // namespace hwl::ui
