#pragma once
// Earlier runs' curves laid under a chart's live ones (overlays), and the
// colours they are drawn in: each run's own, unless that is too near a colour
// already shown (an earlier run in worker 0's blue reads as worker 0 far
// ahead of the others); then turned about the hue circle until it is not.
#include "widgets/chartsample.h"

#include <QColor>
#include <QList>
#include <QString>

namespace hwl::ui {

/// A curve of an earlier run, drawn under this run's curves: dashed, or
/// dotted when `dashed` (a test curve), never solid like a worker's.
struct ChartOverlay {
    QString name;
    QColor color;
    bool dashed = false;
    QList<ChartSample> points;
    /// Another curve of the run of overlay `companionOf` (an earlier
    /// index; its test loss beside its training loss): drawn in that
    /// overlay's colour, without a legend entry of its own. -1: none.
    int companionOf = -1;
    /// What sets the run apart from the others shown ("lr=0.1"): what a
    /// legend short of room names it by before cutting its name. Empty:
    /// the name's head.
    QString shortName{};
};

class OverlayPalette {
public:
    /// How far apart (in RGB, 0..441) an overlay's colour stays from the
    /// colours shown and from the other overlays'.
    static constexpr double kMinDistance = 90;
    static double distance(const QColor& a, const QColor& b);
    /// `wanted` (grey when invalid) when it is kMinDistance from every colour
    /// of `avoid`; else the nearest hue that is, at its own lightness, darker
    /// or lighter; else the farthest of those tried.
    static QColor apart(const QColor& wanted, const QList<QColor>& avoid);
    /// The colour of `overlays[index]`, kept apart from `shown` (the
    /// workers' and the test series' colours) and from the overlays before
    /// it; a companion curve takes its run's colour. Invalid past the list.
    static QColor colorOf(const QList<ChartOverlay>& overlays, int index,
                          const QList<QColor>& shown);
};

} // namespace hwl::ui
