// TrainingChart's lines: making them (earlier runs' overlays first, so that
// the live series draw over them), their legend markers, the theme and the
// presentation's larger fonts and lines, the zoom, the epoch and death markers.
#include "charts/trainingchartparts.h"

#include "widgets/chartaxes.h"
#include "widgets/chartview.h"
#include "widgets/numbers.h"

#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>

#include <cmath>

namespace hwl::ui {

void TrainingChart::Parts::recreateLines() {
    QHash<int, bool> hidden;
    forEachSeries([&](ChartSeries& s) {
        if (s.line && !s.line->isVisible() && !s.line->property("inBand").toBool())
            hidden.insert(s.id, true);
        s.line = nullptr;
    });
    chart_->removeAllSeries(); // deletes them, and their legend markers
    band_.detach();
    for (std::size_t i = 0; i < overlays_.size(); ++i) {
        // Dashed (dotted: a test curve), a hue apart from the workers, named
        // in the legend: an earlier run is never taken for a worker of this one.
        const Overlay& o = overlayDefs_[qsizetype(i)];
        overlays_[i].line = addLineSeries(o.name, q.overlayColor(int(i)), false);
        QPen pen = overlays_[i].line->pen();
        pen.setWidthF(lineWidth(2.0));
        pen.setStyle(o.dashed ? Qt::DotLine : Qt::DashLine);
        overlays_[i].line->setPen(pen);
        if (o.companionOf >= 0) // its run is named once, at its first curve
            for (QLegendMarker* marker : chart_->legend()->markers(overlays_[i].line))
                marker->setVisible(false);
    }
    addMarkerSeries(); // under the workers' lines, over the overlays
    for (ChartSeries& s : workers_)
        s.line = addLineSeries(QStringLiteral("worker %1").arg(s.id), workerColor(s.id), false);
    if (bandView_)
        addBandSeries(); // hides the workers' lines
    if (test_)
        test_->line = addLineSeries(QStringLiteral("test"), testColor_, true);
    forEachSeries([&](ChartSeries& s) {
        s.dirty = true;
        if (hidden.contains(s.id) && !s.line->property("inBand").toBool()) {
            s.line->setVisible(false);
            for (QLegendMarker* marker : chart_->legend()->markers(s.line))
                styleMarker(marker, false);
        }
    });
    fitTexts();
    queueFitTexts();
}

void TrainingChart::Parts::styleMarker(QLegendMarker* marker, bool visible) {
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

int TrainingChart::Parts::xTicks(double lo, double hi) const {
    // As many as have room for their labels: Qt Charts elides the rest ("2000…").
    const QFontMetricsF metrics(xAxisItem_->labelsFont());
    return ticksThatFit(
        lo, hi, chart_->plotArea().width(),
        [&metrics](const QString& label) { return metrics.horizontalAdvance(label); }, 16);
}

void TrainingChart::resetZoom() {
    p_->zoomed_ = false;
    p_->chart_->zoomReset();
    p_->fitAxes();
}

void TrainingChart::setDarkTheme(bool dark) {
    if (dark == p_->dark_)
        return;
    p_->dark_ = dark;
    p_->testColor_ = dark ? QColor(Qt::white) : QColor(Qt::black);
    p_->chart_->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    p_->chart_->setAnimationOptions(QChart::NoAnimation);
    p_->readThemeFonts(); // the theme put back its own fonts...
    p_->applyFonts();     // ...scaled again in presentation
    p_->recreateLines();  // the theme repainted the pens
    refresh();
}

void TrainingChart::Parts::addMarkerSeries() {
    const double scale = presentation_ ? kPresentationMarkerScale : 1.0;
    for (QScatterSeries* scatter : marks_.attach(chart_, xAxisItem_, yAxisItem_, scale))
        QObject::connect(scatter, &QScatterSeries::hovered, &q,
                         [this, scatter](QPointF p, bool on) {
                             const QString text =
                                 on ? QStringLiteral("%1 at %2 %3, value %4")
                                          .arg(scatter->name(), xAxisItem_->titleText(),
                                               formatCount(std::int64_t(std::llround(p.x()))),
                                               formatSignificant(fromAxisY(p.y(), logScale_), 4))
                                    : QString();
                             view_->setHoverText(text);
                             if (text.isEmpty())
                                 QToolTip::hideText();
                             else
                                 QToolTip::showText(QCursor::pos(), text, view_);
                         });
}

void TrainingChart::addMarkers(Marker kind, const QList<ChartSample>& points) {
    p_->marks_.add(kind, points);
}

const QList<ChartSample>& TrainingChart::markers(Marker kind) const {
    return p_->marks_.points(kind);
}

void TrainingChart::Parts::rebuildMarkers() {
    marks_.rebuild(xFieldOf(xMode_), logScale_);
}

double TrainingChart::Parts::lineWidth(double normal) const {
    return presentation_ ? normal * kPresentationPenScale : normal;
}

void TrainingChart::setPresentation(bool on) {
    if (on == p_->presentation_)
        return;
    p_->presentation_ = on;
    p_->applyFonts();
    p_->recreateLines(); // every line and marker made at its width
    refresh();           // ticks for the labels' new size
}

void TrainingChart::Parts::readThemeFonts() {
    themeFonts_.title = chart_->titleFont();
    themeFonts_.legend = chart_->legend()->font();
    themeFonts_.labels = xAxisItem_->labelsFont();
    themeFonts_.axisTitle = xAxisItem_->titleFont();
}

namespace {
QFont scaled(QFont font, double scale) {
    if (scale == 1.0)
        return font;
    if (font.pixelSize() > 0)
        font.setPixelSize(int(std::lround(font.pixelSize() * scale)));
    else if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * scale);
    return font;
}
} // namespace

void TrainingChart::Parts::applyFonts() {
    const double scale = presentation_ ? kPresentationFontScale : 1.0;
    const QFont title = scaled(themeFonts_.title, scale);
    if (chart_->titleFont() != title)
        chart_->setTitleFont(title);
    const QFont legend = scaled(themeFonts_.legend, scale);
    if (chart_->legend()->font() != legend)
        chart_->legend()->setFont(legend);
    const QFont labels = scaled(themeFonts_.labels, scale);
    const QFont axisTitle = scaled(themeFonts_.axisTitle, scale);
    for (QCategoryAxis* axis : {xAxisItem_, yAxisItem_}) {
        if (!axis)
            continue;
        if (axis->labelsFont() != labels)
            axis->setLabelsFont(labels);
        if (axis->titleFont() != axisTitle)
            axis->setTitleFont(axisTitle);
    }
    // The titles, the legend and the ticks were fitted to the old fonts.
    chart_->layout()->invalidate();
    queueFitTexts();
}

} // namespace hwl::ui
