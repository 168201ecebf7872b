#pragma once
// The terms TrainingChart's API speaks in: its series ids, the x axis modes,
// the kinds of marks and the overlays, its limits and the presentation
// scales. TrainingChart derives from TrainingChartTerms, so that each is
// spelled TrainingChart::kTestSeries, TrainingChart::XAxis::Step, ...
#include "charts/chartmarks.h"
#include "charts/overlaypalette.h"

#include <QtGlobal>

namespace hwl::ui {

struct TrainingChartTerms {
    /// Series id of the test series; workers are 0..n-1 (their rank).
    static constexpr int kTestSeries = -1;
    /// Overlay i (see setOverlays()) has series id kOverlayBase - i.
    static constexpr int kOverlayBase = -1000;
    static constexpr int overlaySeries(int index) { return kOverlayBase - index; }

    using Overlay = ChartOverlay; ///< an earlier run's curve (overlaypalette.h)
    /// Fewest downsampling buckets, whatever the plot width.
    static constexpr int kMinBuckets = 200;

    /// What the x axis shows: the ChartSample field of that name
    /// (Time: seconds since the run started).
    enum class XAxis { Step, Samples, Time };

    /// Marks on the curves (ChartMarks), see TrainingChart::addMarkers().
    using Marker = ChartMarker;
    static constexpr qsizetype kMaxMarkers = ChartMarks::kMaxMarks;
    /// The test series dots each evaluation up to this many of them.
    static constexpr qsizetype kMaxDottedEvaluations = 150;

    /// Default for rawPointLimit(): about 16 points per pixel column of a
    /// wide chart, 1 MiB of raw points per series.
    static constexpr qsizetype kRawPointLimit = qsizetype(1) << 15;

    /// In presentation (TrainingChart::setPresentation()): the fonts, the
    /// lines' widths and the markers' sizes are these times the theme's.
    static constexpr double kPresentationFontScale = 1.25;
    static constexpr double kPresentationPenScale = 1.6;
    static constexpr double kPresentationMarkerScale = 1.3;
};

} // namespace hwl::ui
