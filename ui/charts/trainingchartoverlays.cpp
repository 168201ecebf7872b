// TrainingChart's overlays: earlier runs' curves under the live ones, in a
// colour kept apart from every worker's (an earlier run in worker 0's blue
// reads as worker 0 far ahead of the others), dashed, named in the legend.
#include "charts/trainingchart.h"

#include <QLineSeries>

#include <algorithm>
#include <cmath>
#include <limits>

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

void TrainingChart::setOverlaysFitAxes(bool on) {
    if (on == overlaysFitAxes_)
        return;
    overlaysFitAxes_ = on;
    fitAxes();
}

double TrainingChart::colorDistance(const QColor& a, const QColor& b) {
    const double dr = a.red() - b.red(), dg = a.green() - b.green(), db = a.blue() - b.blue();
    return std::sqrt(dr * dr + dg * dg + db * db);
}

QColor TrainingChart::overlayColor(int index) const {
    if (index < 0 || index >= overlayDefs_.size())
        return {};
    // A run's second curve takes its first one's colour: one run, one colour.
    if (const int first = overlayDefs_[index].companionOf; first >= 0 && first < index)
        return overlayColor(first);
    // Every worker shown (worker 0 even before a run has any), the test
    // series, and the overlays before this one.
    QList<QColor> avoid;
    for (int rank = 0; rank < std::max({1, workerCount(), colorPeers_}); ++rank)
        avoid << workerColor(rank);
    avoid << testColor_;
    for (int i = 0; i < index; ++i)
        if (overlayDefs_[i].companionOf < 0)
            avoid << overlayColor(i);
    const auto nearest = [&avoid](const QColor& c) {
        double d = std::numeric_limits<double>::infinity();
        for (const QColor& a : avoid)
            d = std::min(d, colorDistance(a, c));
        return d;
    };
    const QColor wanted =
        overlayDefs_[index].color.isValid() ? overlayDefs_[index].color : QColor(0x66, 0x66, 0x66);
    double bestDistance = nearest(wanted);
    if (bestDistance >= kMinColorDistance)
        return wanted;
    // Turned about the hue circle, nearest hues first, at its own lightness,
    // darker or lighter: the first far enough, else the farthest.
    QColor best = wanted;
    const float hue = std::max(0.0f, wanted.hsvHueF());
    const float saturation = std::max(0.6f, wanted.hsvSaturationF());
    for (int step = 1; step <= 18; ++step) {
        for (const int sign : {1, -1}) {
            for (const float value : {wanted.valueF(), 0.45f, 0.95f}) {
                const float h = std::fmod(hue + float(sign * step) / 36.0f + 1.0f, 1.0f);
                const QColor c = QColor::fromHsvF(h, saturation, value);
                const double d = nearest(c);
                if (d >= kMinColorDistance)
                    return c;
                if (d > bestDistance) {
                    bestDistance = d;
                    best = c;
                }
            }
        }
    }
    return best;
}

} // namespace hwl::ui
