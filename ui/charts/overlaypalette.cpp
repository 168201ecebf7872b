#include "charts/overlaypalette.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hwl::ui {

double OverlayPalette::distance(const QColor& a, const QColor& b) {
    const double dr = a.red() - b.red(), dg = a.green() - b.green(), db = a.blue() - b.blue();
    return std::sqrt(dr * dr + dg * dg + db * db);
}

QColor OverlayPalette::apart(const QColor& colour, const QList<QColor>& avoid) {
    const auto nearest = [&avoid](const QColor& c) {
        double d = std::numeric_limits<double>::infinity();
        for (const QColor& a : avoid)
            d = std::min(d, distance(a, c));
        return d;
    };
    const QColor wanted = colour.isValid() ? colour : QColor(0x66, 0x66, 0x66);
    double bestDistance = nearest(wanted);
    if (bestDistance >= kMinDistance)
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
                if (d >= kMinDistance)
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

QColor OverlayPalette::colorOf(const QList<ChartOverlay>& overlays, int index,
                               const QList<QColor>& shown) {
    if (index < 0 || index >= overlays.size())
        return {};
    // A run's second curve takes its first one's colour: one run, one colour.
    if (const int first = overlays[index].companionOf; first >= 0 && first < index)
        return colorOf(overlays, first, shown);
    QList<QColor> avoid = shown;
    for (int i = 0; i < index; ++i)
        if (overlays[i].companionOf < 0)
            avoid << colorOf(overlays, i, shown);
    return apart(overlays[index].color, avoid);
}

} // namespace hwl::ui
