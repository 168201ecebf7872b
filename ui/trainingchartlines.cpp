// TrainingChart's lines: making them (earlier runs' overlays first, so that
// the live series draw over them), their legend markers, the theme, the zoom.
#include "trainingchart.h"

#include <QChart>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>

namespace hwl::ui {

void TrainingChart::setOverlays(const QList<Overlay>& overlays) {
    overlayDefs_ = overlays;
    overlays_.clear();
    overlays_.resize(std::size_t(overlays.size()));
    for (qsizetype i = 0; i < overlays.size(); ++i) {
        Series& s = overlays_[std::size_t(i)];
        s.id = overlaySeries(int(i));
        s.raw = overlays[i].points;
        resetDerived(s);
    }
    recreateLines();
    refresh();
}

void TrainingChart::recreateLines() {
    QHash<int, bool> hidden;
    forEachSeries([&](Series& s) {
        if (s.line && !s.line->isVisible())
            hidden.insert(s.id, true);
        s.line = nullptr;
    });
    chart_->removeAllSeries(); // deletes them, and their legend markers
    for (std::size_t i = 0; i < overlays_.size(); ++i) {
        const Overlay& o = overlayDefs_[qsizetype(i)];
        overlays_[i].line = addLineSeries(o.name, o.color, false);
        QPen pen = overlays_[i].line->pen();
        pen.setWidthF(2.0);
        pen.setStyle(o.dashed ? Qt::DashLine : Qt::SolidLine);
        overlays_[i].line->setPen(pen);
        // The Runs tab names them, in their colours; the legend stays short.
        for (QLegendMarker* marker : chart_->legend()->markers(overlays_[i].line))
            marker->setVisible(false);
    }
    for (Series& s : workers_)
        s.line = addLineSeries(QStringLiteral("worker %1").arg(s.id), workerColor(s.id), false);
    if (test_)
        test_->line = addLineSeries(QStringLiteral("test"), testColor_, true);
    forEachSeries([&](Series& s) {
        s.dirty = true;
        if (hidden.contains(s.id)) {
            s.line->setVisible(false);
            if (s.id > kOverlayBase)
                for (QLegendMarker* marker : chart_->legend()->markers(s.line))
                    styleMarker(marker, false);
        }
    });
}

void TrainingChart::styleMarker(QLegendMarker* marker, bool visible) {
    // As in the qtcharts legendmarkers example: a hidden series keeps its
    // marker, drawn at half opacity, so that it can be clicked back on.
    marker->setVisible(true);
    const qreal alpha = visible ? 1.0 : 0.4;
    QBrush labelBrush = marker->labelBrush();
    QColor c = labelBrush.color();
    c.setAlphaF(alpha);
    labelBrush.setColor(c);
    marker->setLabelBrush(labelBrush);
    QBrush brush = marker->brush();
    c = brush.color();
    c.setAlphaF(alpha);
    brush.setColor(c);
    marker->setBrush(brush);
    QPen pen = marker->pen();
    c = pen.color();
    c.setAlphaF(alpha);
    pen.setColor(c);
    marker->setPen(pen);
}

void TrainingChart::resetZoom() {
    zoomed_ = false;
    chart_->zoomReset();
    fitAxes();
}

void TrainingChart::setDarkTheme(bool dark) {
    if (dark == dark_)
        return;
    dark_ = dark;
    testColor_ = dark ? QColor(Qt::white) : QColor(Qt::black);
    chart_->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart_->setAnimationOptions(QChart::NoAnimation);
    recreateLines(); // the theme repainted the pens
    refresh();
}

} // namespace hwl::ui
