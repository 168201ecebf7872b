#include "widgets/fittingscrollarea.h"

#include <QEvent>
#include <QStyle>

#include <algorithm>

namespace hwl::ui {

FittingScrollArea::FittingScrollArea(QWidget* widget, int least, QWidget* parent)
    : QScrollArea(parent), least_(least) {
    setWidget(widget);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // never sideways: it fits
    widget->installEventFilter(this);
    fitWidth();
}

bool FittingScrollArea::eventFilter(QObject* watched, QEvent* event) {
    // Rows shown or hidden: the widget asks for a new layout.
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        fitWidth();
    return QScrollArea::eventFilter(watched, event);
}

void FittingScrollArea::fitWidth() {
    if (!widget())
        return;
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    const int width = widget()->minimumSizeHint().width() + bar + 2 * frameWidth() + 2;
    if (minimumWidth() != std::max(least_, width))
        setMinimumWidth(std::max(least_, width));
}

} // namespace hwl::ui
