#pragma once
// The toolbar's chart controls: smoothing (a debiased moving average, as
// TensorBoard's; not of test evaluations, drawn as measured), what the x
// axis shows, a log scale, and the mean and band for many workers, each
// applied to every chart at once. GUI thread only.
#include <QList>
#include <QObject>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QToolBar;

namespace hwl::ui {

class RunCharts;
class TrainingChart;

class ChartControls : public QObject {
    Q_OBJECT

public:
    /// From this many workers the charts show the mean and band by themselves.
    static constexpr int kBandWorkers = 8;

    /// Adds the controls to `toolbar` and gives `charts` their settings.
    ChartControls(RunCharts* charts, QToolBar* toolbar);

    QSlider* smoothing() const { return smoothing_; } ///< 0..99: the weight in hundredths
    QComboBox* xAxis() const { return xAxis_; }       ///< TrainingChart::XAxis by index
    QCheckBox* logScale() const { return logScale_; }
    QCheckBox* band() const { return band_; }
    /// A run of `workers`: the mean and band from kBandWorkers on, a line
    /// each below, until the user ticks or unticks it. True when it turned
    /// the band on.
    bool suggestBand(int workers);

Q_SIGNALS:
    /// A setting changed: the charts want a redraw now.
    void redrawRequested();

private:
    /// Every chart but the test accuracy's.
    QList<TrainingChart*> smoothedCharts() const;
    RunCharts* charts_;
    QSlider* smoothing_ = nullptr;
    QLabel* smoothingValue_ = nullptr;
    QComboBox* xAxis_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QCheckBox* band_ = nullptr; ///< mean and min-max band instead of a line per worker
    bool bandTouched_ = false;  ///< the user chose: no more automatic switching
};

} // namespace hwl::ui
