// MainWindow's charts: which ones a run shows, what telemetry feeds them,
// and the paced redraw.
#include "window/mainwindow.h"

#include "widgets/numbers.h"
#include "charts/trainingchart.h"
#include "teaching/comparisonverdict.h"

#include "strategy/catalog.h"

#include <QChart>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QHash>
#include <QTimer>

#include <algorithm>

namespace hwl::ui {

namespace {
ChartSample point(const Sample& s, float value) {
    return {double(s.step), double(s.samples), s.time, double(value)};
}
} // namespace

void MainWindow::buildCharts() {
    lossChart_ = new TrainingChart(tr("Loss per worker"), tr("loss"));
    divergenceChart_ = new TrainingChart(
        tr("Divergence per worker (staleness, or distance from the replica mean)"), tr("L2"));
    lostChart_ =
        new TrainingChart(tr("Lost updates, % of each worker's block writes"), tr("% lost"));
    lostChart_->setObjectName("lostUpdatesChart");
    lostChart_->hide(); // shown for runs that count them
    lrChart_ = new TrainingChart(tr("Learning rate per worker"), tr("lr"));
    lrChart_->setObjectName("learningRateChart");
    lrChart_->hide(); // shown for runs with a schedule or a warm-up
    // Short titles: a small chart may be a third of a projector's width.
    accuracyChart_ = new TrainingChart(tr("Test accuracy, %"), tr("%"));
    accuracyChart_->setToolTip(tr("Each mark: one evaluation on the test set"));
    accuracyChart_->setObjectName("accuracyChart");
    accuracyChart_->setYBounds(0, 100); // a percentage: never past 100%
    accuracyChart_->hide();             // shown once there is a test set or a run to compare
    rateChart_ = new TrainingChart(tr("Throughput per worker, samples/s"), tr("rate"));
    rateChart_->setObjectName("rateChart");
    lossChart_->setObjectName("lossChart");
    divergenceChart_->setObjectName("divergenceChart");
    for (TrainingChart* chart : {lossChart_, divergenceChart_, rateChart_})
        chart->setProperty("relevant", true); // before any run: empty, but there
    // The small charts share the loss chart's x axis: its title is said once.
    for (TrainingChart* chart :
         {accuracyChart_, divergenceChart_, rateChart_, lostChart_, lrChart_})
        chart->setXTitleVisible(false);
}

QList<TrainingChart*> MainWindow::charts() const {
    return {lossChart_, accuracyChart_, divergenceChart_, rateChart_, lostChart_, lrChart_};
}

void MainWindow::prepareCharts(const ExperimentConfig& config) {
    for (TrainingChart* chart : charts()) // one run, one colour on every chart
        chart->setOverlayColorPeers(config.workers);
    lossChart_->setWorkerCount(config.workers, true);
    divergenceChart_->setWorkerCount(config.workers, false);
    lostChart_->setWorkerCount(config.workers, false);
    accuracyChart_->setWorkerCount(0, true); // shown when the run has a test set (onStarted)
    rateChart_->setWorkerCount(config.workers, false);
    showChart(rateChart_, true);
    runOnCharts_.clear();
    // The chart that carries a comparison shows every run of it whole: its
    // axes fit the earlier runs too (elsewhere overlays never stretch them).
    const ComparedFigure figure = compared_ ? compared_->figure : ComparedFigure::Throughput;
    rateChart_->setOverlaysFitAxes(
        compared_ && (figure == ComparedFigure::Throughput || figure == ComparedFigure::None));
    divergenceChart_->setOverlaysFitAxes(compared_ && figure == ComparedFigure::Divergence);
    // Many workers read best as a mean and a band, unless the user chose.
    if (!bandTouched_ && band_->isChecked() != (config.workers >= kBandWorkers)) {
        band_->setChecked(config.workers >= kBandWorkers);
        if (band_->isChecked())
            logEvent(tr("%1 workers: the charts show their mean and range (untick Mean and "
                        "band for a line each)")
                         .arg(config.workers));
    }
    // Say which divergence the mode measures; one worker has none to show.
    const StrategyTraits* traits = findStrategy(config);
    const DivergenceKind kind = traits ? traits->divergence : DivergenceKind::None;
    // Short enough for a third of the window (the explanation pane says more).
    divergenceChart_->setTitle(kind == DivergenceKind::ReplicaDistance
                                   ? tr("Divergence: distance to the replica mean")
                                   : tr("Divergence per worker: staleness"));
    showChart(divergenceChart_, kind != DivergenceKind::None);
    showChart(lostChart_,
              config.lostUpdates || (traits && traits->takes(StrategySetting::GpuBlocks)));
    lrChart_->setWorkerCount(config.workers, false);
    showChart(lrChart_, config.lrSchedule != "constant" || config.warmupSteps > 0);
}

void MainWindow::chartRates(const QList<WorkerRow>& rows) {
    const double now = controller_->elapsed();
    for (const WorkerRow& r : rows) { // a death is marked where its curve ends
        const WorkerSnapshot& w = r.worker;
        if (w.state == WorkerState::Failed && !deathsMarked_.contains(int(w.rank))) {
            deathsMarked_.insert(int(w.rank));
            lossChart_->addMarkers(TrainingChart::Marker::WorkerDeath,
                                   {{double(w.steps), double(w.samples), now, double(w.lastLoss)}});
        }
    }
    for (const WorkerRow& r : rows)
        if (r.worker.state == WorkerState::Running)
            rateChart_->appendPoints(
                int(r.worker.rank),
                {{double(r.worker.steps), double(r.worker.samples), now, r.samplesPerSecond}});
}

void MainWindow::chartLostUpdates(const QList<WorkerRow>& rows) {
    if (lostChart_->isHidden())
        return;
    const double now = controller_->elapsed();
    for (const WorkerRow& r : rows)
        if (const WorkerSnapshot& w = r.worker; w.updateWrites > 0)
            lostChart_->appendPoints(int(w.rank),
                                     {{double(w.steps), double(w.samples), now,
                                       100.0 * double(w.lostUpdates) / double(w.updateWrites)}});
    if (!redrawTimer_->isActive())
        redrawTimer_->start();
}

void MainWindow::onSamples(const QList<Sample>& samples) {
    // Group per series so each chart buffer grows once per batch. The event
    // log gets at most ~50 epoch lines per run (every k-th epoch and the last):
    // a long run of short epochs must not keep the GUI thread busy with text.
    const int epochs = controller_->run() ? controller_->run()->config().epochs : 1;
    const std::uint32_t every = std::uint32_t(std::max(1, (epochs + 49) / 50));
    auto logged = [&](std::uint32_t epoch) {
        return epoch % every == 0 || epoch == std::uint32_t(epochs);
    };
    QHash<int, QList<ChartSample>> loss, divergence, rate;
    const bool scheduled = lrChart_->property("relevant").toBool();
    QList<ChartSample> accuracy, epochEnds;
    for (const Sample& s : samples) {
        switch (s.kind) {
        case Sample::Step:
            loss[s.worker].append(point(s, s.loss));
            divergence[s.worker].append(point(s, s.divergence));
            if (scheduled)
                rate[s.worker].append(point(s, s.lr));
            break;
        case Sample::EpochEnd:
            if (logged(s.epoch)) // (the same thinning marks the loss chart)
                epochEnds.append(point(s, s.loss));
            if (logged(s.epoch))
                logEvent(tr("Epoch %1: worker %2 mean loss %3")
                             .arg(formatCount(std::int64_t(s.epoch)))
                             .arg(s.worker)
                             .arg(double(s.loss), 0, 'f', 4));
            break;
        case Sample::Eval:
            if (controller_->run() && controller_->run()->info().testRows > 0) {
                // An evaluation counts every worker's steps and samples; per
                // worker (the other series' x) that is the mean.
                Sample perWorker = s;
                const auto workers = std::uint64_t(controller_->run()->config().workers);
                perWorker.step /= workers;
                perWorker.samples /= workers;
                loss[TrainingChart::kTestSeries].append(point(perWorker, s.loss));
                accuracy.append(point(perWorker, 100.0f * s.accuracy));
                if (logged(s.epoch))
                    logEvent(tr("Epoch %1: test loss %2, accuracy %3%")
                                 .arg(formatCount(std::int64_t(s.epoch)))
                                 .arg(double(s.loss), 0, 'f', 4)
                                 .arg(formatDecimal(100.0 * double(s.accuracy), 2)));
            }
            break;
        }
    }
    for (auto it = loss.begin(); it != loss.end(); ++it)
        lossChart_->appendPoints(it.key(), it.value());
    for (auto it = divergence.begin(); it != divergence.end(); ++it)
        divergenceChart_->appendPoints(it.key(), it.value());
    for (auto it = rate.begin(); it != rate.end(); ++it)
        lrChart_->appendPoints(it.key(), it.value());
    accuracyChart_->appendPoints(TrainingChart::kTestSeries, accuracy);
    if (!epochEnds.isEmpty())
        lossChart_->addMarkers(TrainingChart::Marker::EpochEnd, epochEnds);
    if (!redrawTimer_->isActive())
        redrawTimer_->start();
}

void MainWindow::refreshCharts() {
    // Redraw, paint included, and time it: the next redraw waits until this
    // one's cost is under kChartCpuBudget of a core, but never more than
    // 100 ms, so a normal run redraws every 40 ms and a huge one (16 workers,
    // 10^6 points each, about 20 ms a chart) still at 10 Hz.
    QElapsedTimer cost;
    cost.start();
    for (TrainingChart* chart : charts()) {
        if (chart->isHidden())
            continue;
        chart->refresh();
        if (isVisible())
            chart->repaint();
    }
    const double ms = double(cost.nsecsElapsed()) / 1e6;
    redrawTimer_->setInterval(std::clamp(int(ms / kChartCpuBudget), kMinRedrawMs, kMaxRedrawMs));
}

} // namespace hwl::ui
