#include "charts/chartmarks.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>

#include <cmath>

namespace hwl::ui {

void ChartMarks::add(ChartMarker kind, const QList<ChartSample>& points) {
    Kind& m = kinds_[int(kind)];
    m.raw.append(points);
    while (m.raw.size() > kMaxMarks) { // every other one, the last kept
        QList<ChartSample> half;
        for (qsizetype i = m.raw.size() - 1; i >= 0; i -= 2)
            half.prepend(m.raw[i]);
        m.raw = half;
    }
    m.dirty = true;
}

const QList<ChartSample>& ChartMarks::points(ChartMarker kind) const {
    return kinds_[int(kind)].raw;
}

void ChartMarks::clear() {
    for (Kind& m : kinds_) {
        m.raw.clear();
        m.dirty = true;
    }
}

void ChartMarks::markDirty() {
    for (Kind& m : kinds_)
        m.dirty = true;
}

QList<QScatterSeries*> ChartMarks::attach(QChart* chart, QAbstractAxis* x, QAbstractAxis* y,
                                          double markerScale) {
    const struct {
        const char* name;
        QScatterSeries::MarkerShape shape;
        QColor color;
        qreal size;
    } looks[2] = {{"epoch ends", QScatterSeries::MarkerShapeCircle, QColor(128, 128, 128), 5},
                  {"worker died", QScatterSeries::MarkerShapeRectangle, QColor(220, 30, 30), 11}};
    QList<QScatterSeries*> made;
    for (int k = 0; k < 2; ++k) {
        auto* scatter = new QScatterSeries;
        scatter->setName(QString::fromLatin1(looks[k].name));
        scatter->setMarkerShape(looks[k].shape);
        scatter->setMarkerSize(looks[k].size * markerScale);
        chart->addSeries(scatter);
        scatter->attachAxis(x);
        scatter->attachAxis(y);
        scatter->setColor(looks[k].color);
        scatter->setBorderColor(looks[k].color);
        for (QLegendMarker* marker : chart->legend()->markers(scatter))
            marker->setVisible(false); // named on hover, not in the legend
        kinds_[k].scatter = scatter;
        kinds_[k].dirty = true;
        made << scatter;
    }
    return made;
}

void ChartMarks::attachY(QAbstractAxis* y) {
    for (Kind& m : kinds_)
        if (m.scatter)
            m.scatter->attachAxis(y);
}

void ChartMarks::rebuild(XField xField, bool log) {
    for (Kind& m : kinds_) {
        if (!m.dirty || !m.scatter)
            continue;
        QList<QPointF> pts;
        for (const ChartSample& c : m.raw) {
            const double x = c.*xField;
            if (std::isfinite(x) && std::isfinite(c.value) && (!log || c.value > 0))
                pts.append(QPointF(x, toAxisY(c.value, log)));
        }
        m.scatter->replace(pts);
        m.dirty = false;
    }
}

} // namespace hwl::ui
