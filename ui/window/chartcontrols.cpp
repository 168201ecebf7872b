#include "window/chartcontrols.h"

#include "charts/trainingchart.h"
#include "window/runcharts.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QToolBar>

namespace hwl::ui {

ChartControls::ChartControls(RunCharts* charts, QToolBar* toolbar)
    : QObject(toolbar), charts_(charts) {
    toolbar->addWidget(new QLabel(tr(" Smoothing ")));
    smoothing_ = new QSlider(Qt::Horizontal);
    smoothing_->setRange(0, 99);
    smoothing_->setValue(60);
    smoothing_->setMaximumWidth(140);
    smoothing_->setToolTip(tr("Smooths the workers' batch losses and the other per-step "
                              "curves: exponential moving average, debiased (as TensorBoard). "
                              "Test evaluations are drawn as measured, so a curve's last point "
                              "is the figure the run reports"));
    toolbar->addWidget(smoothing_);
    smoothingValue_ = new QLabel(QStringLiteral("0.60 "));
    toolbar->addWidget(smoothingValue_);
    toolbar->addWidget(new QLabel(tr(" X axis ")));
    xAxis_ = new QComboBox;
    xAxis_->addItems({tr("Step"), tr("Samples"), tr("Wall time (s)")});
    toolbar->addWidget(xAxis_);
    logScale_ = new QCheckBox(tr("Log scale"));
    toolbar->addWidget(logScale_);
    band_ = new QCheckBox(tr("Mean and band"));
    band_->setObjectName("bandView");
    band_->setToolTip(tr("Instead of a line per worker: their mean and a band from the lowest "
                         "to the highest worker. On by itself for 8 workers or more"));
    toolbar->addWidget(band_);

    connect(smoothing_, &QSlider::valueChanged, this, [this](int v) {
        smoothingValue_->setText(QString::number(v / 100.0, 'f', 2) + ' ');
        for (TrainingChart* chart : smoothedCharts())
            chart->setSmoothing(v / 100.0);
        Q_EMIT redrawRequested();
    });
    connect(xAxis_, &QComboBox::currentIndexChanged, this, [this](int i) {
        for (TrainingChart* chart : charts_->all())
            chart->setXAxis(TrainingChart::XAxis(i));
        Q_EMIT redrawRequested();
    });
    connect(band_, &QCheckBox::clicked, this, [this] { bandTouched_ = true; });
    connect(band_, &QCheckBox::toggled, this, [this](bool on) {
        for (TrainingChart* chart : charts_->all())
            if (chart != charts_->accuracy()) // one test curve: no band to draw
                chart->setBandView(on);
        Q_EMIT redrawRequested();
    });
    connect(logScale_, &QCheckBox::toggled, this, [this](bool on) {
        for (TrainingChart* chart : charts_->all())
            chart->setLogScale(on);
        Q_EMIT redrawRequested();
    });
    for (TrainingChart* chart : smoothedCharts())
        chart->setSmoothing(smoothing_->value() / 100.0);
}

QList<TrainingChart*> ChartControls::smoothedCharts() const {
    QList<TrainingChart*> charts = charts_->all();
    charts.removeAll(charts_->accuracy()); // test evaluations, each drawn as measured
    return charts;
}

bool ChartControls::suggestBand(int workers) {
    const bool wanted = workers >= kBandWorkers;
    if (bandTouched_ || band_->isChecked() == wanted)
        return false;
    band_->setChecked(wanted);
    return wanted;
}

} // namespace hwl::ui
