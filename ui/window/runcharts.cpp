#include "window/runcharts.h"

#include "charts/trainingchart.h"
#include "widgets/numbers.h"

#include "strategy/catalog.h"

#include <QElapsedTimer>
#include <QHash>
#include <QSettings>
#include <QTimer>

#include <algorithm>

namespace hwl::ui {

namespace {
ChartSample point(const Sample& s, float value) {
    return {double(s.step), double(s.samples), s.time, double(value)};
}

/// The QSettings key saying whether the user wants `chart` shown.
QString chartKey(const QObject* chart) {
    return QStringLiteral("view/show/") + chart->objectName();
}
} // namespace

RunCharts::RunCharts(QObject* parent) : QObject(parent) {
    loss_ = new TrainingChart(tr("Loss per worker"), tr("loss"));
    divergence_ = new TrainingChart(
        tr("Divergence per worker (staleness, or distance from the replica mean)"), tr("L2"));
    lost_ = new TrainingChart(tr("Lost updates, % of each worker's block writes"), tr("% lost"));
    lost_->setObjectName("lostUpdatesChart");
    lost_->hide(); // shown for runs that count them
    lr_ = new TrainingChart(tr("Learning rate per worker"), tr("lr"));
    lr_->setObjectName("learningRateChart");
    lr_->hide(); // shown for runs with a schedule or a warm-up
    // Short titles: a small chart may be a third of a projector's width.
    accuracy_ = new TrainingChart(tr("Test accuracy, %"), tr("%"));
    accuracy_->setToolTip(tr("Each mark: one evaluation on the test set"));
    accuracy_->setObjectName("accuracyChart");
    accuracy_->setYBounds(0, 100);  // a percentage: never past 100%
    accuracy_->setYRange(false, 5); // 99.1 to 99.2% is flat, not a band of noise
    accuracy_->hide();              // shown once there is a test set or a run to compare
    rate_ = new TrainingChart(tr("Throughput per worker, samples/s"), tr("rate"));
    rate_->setObjectName("rateChart");
    rate_->setYRange(true, 0); // from 0: a slower earlier run is on the chart, not under it
    loss_->setObjectName("lossChart");
    divergence_->setObjectName("divergenceChart");
    for (TrainingChart* chart : {loss_, divergence_, rate_})
        chart->setProperty("relevant", true); // before any run: empty, but there
    // The small charts share the loss chart's x axis: its title is said once.
    for (TrainingChart* chart : {accuracy_, divergence_, rate_, lost_, lr_})
        chart->setXTitleVisible(false);
    for (TrainingChart* chart : all()) // until a layout takes them: ours
        connect(this, &QObject::destroyed, chart, [chart] {
            if (!chart->parent())
                delete chart;
        });

    // Charts redraw at most every 40 ms, coalescing all telemetry in between.
    redrawTimer_ = new QTimer(this);
    redrawTimer_->setSingleShot(true);
    redrawTimer_->setInterval(kMinRedrawMs);
    connect(redrawTimer_, &QTimer::timeout, this, &RunCharts::redrawDue);
}

QList<TrainingChart*> RunCharts::all() const {
    return {loss_, accuracy_, divergence_, rate_, lost_, lr_};
}

bool RunCharts::ticked(const TrainingChart* chart) {
    return QSettings().value(chartKey(chart), true).toBool();
}

void RunCharts::setTicked(const TrainingChart* chart, bool on) {
    QSettings().setValue(chartKey(chart), on);
}

void RunCharts::show(TrainingChart* chart, bool relevant) {
    chart->setProperty("relevant", relevant);
    chart->setVisible(relevant && ticked(chart));
    Q_EMIT layoutChanged(); // a row of hidden charts goes, and one fewer may now fit
}

void RunCharts::prepare(const ExperimentConfig& config, const ComparisonRecord* compared) {
    for (TrainingChart* chart : all()) // one run, one colour on every chart
        chart->setOverlayColorPeers(config.workers);
    loss_->setWorkerCount(config.workers, true);
    divergence_->setWorkerCount(config.workers, false);
    lost_->setWorkerCount(config.workers, false);
    accuracy_->setWorkerCount(0, true); // shown when the run has a test set
    rate_->setWorkerCount(config.workers, false);
    show(rate_, true);
    deathsMarked_.clear();
    evalInside_ = config.evalEvery > 0;
    insideLines_ = 0;
    // A comparison shows every run of it whole: the axes of every chart fit
    // its earlier runs too. So do the charts of bounded figures, whatever the
    // runs (accuracy in 0..100, rates from 0: an earlier run is never off
    // them, issue 49); elsewhere overlays never stretch the live run's axes.
    for (TrainingChart* chart : {loss_, divergence_, lost_})
        chart->setOverlaysFitAxes(compared != nullptr);
    for (TrainingChart* chart : {rate_, accuracy_})
        chart->setOverlaysFitAxes(true);
    // Say which divergence the mode measures; one worker has none to show.
    const StrategyTraits* traits = findStrategy(config);
    const DivergenceKind kind = traits ? traits->divergence : DivergenceKind::None;
    // Short enough for a third of the window (the explanation pane says more).
    divergence_->setTitle(kind == DivergenceKind::ReplicaDistance
                              ? tr("Divergence: distance to the replica mean")
                              : tr("Divergence per worker: staleness"));
    show(divergence_, kind != DivergenceKind::None);
    show(lost_, config.lostUpdates || (traits && traits->takes(StrategySetting::GpuBlocks)));
    lr_->setWorkerCount(config.workers, false);
    show(lr_, config.lrSchedule != "constant" || config.warmupSteps > 0);
}

void RunCharts::addWorkerRows(const QList<WorkerRow>& rows, double now) {
    for (const WorkerRow& r : rows) { // a death is marked where its curve ends
        const WorkerSnapshot& w = r.worker;
        if (w.state == WorkerState::Failed && !deathsMarked_.contains(int(w.rank))) {
            deathsMarked_.insert(int(w.rank));
            loss_->addMarkers(TrainingChart::Marker::WorkerDeath,
                              {{double(w.steps), double(w.samples), now, double(w.lastLoss)}});
        }
    }
    for (const WorkerRow& r : rows)
        if (r.worker.state == WorkerState::Running)
            rate_->appendPoints(
                int(r.worker.rank),
                {{double(r.worker.steps), double(r.worker.samples), now, r.samplesPerSecond}});
    if (lost_->isHidden())
        return;
    for (const WorkerRow& r : rows)
        if (const WorkerSnapshot& w = r.worker; w.updateWrites > 0)
            lost_->appendPoints(int(w.rank),
                                {{double(w.steps), double(w.samples), now,
                                  100.0 * double(w.lostUpdates) / double(w.updateWrites)}});
    scheduleRedraw();
}

void RunCharts::addSamples(const QList<Sample>& samples, int epochs, int workers, bool testSet) {
    // Group per series so each chart buffer grows once per batch. The event
    // log gets at most ~50 epoch lines per run (every k-th epoch and the last):
    // a long run of short epochs must not keep the GUI thread busy with text.
    const std::uint32_t every = std::uint32_t(std::max(1, (epochs + 49) / 50));
    auto logged = [&](std::uint32_t epoch) {
        return epoch % every == 0 || epoch == std::uint32_t(epochs);
    };
    QHash<int, QList<ChartSample>> loss, divergence, rate;
    const bool scheduled = lr_->property("relevant").toBool();
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
            if (!logged(s.epoch)) // (the same thinning marks the loss chart)
                break;
            epochEnds.append(point(s, s.loss));
            Q_EMIT eventLogged(tr("Epoch %1: worker %2 mean loss %3")
                                   .arg(formatCount(std::int64_t(s.epoch)))
                                   .arg(s.worker)
                                   .arg(double(s.loss), 0, 'f', 4),
                               false);
            break;
        case Sample::Eval: {
            if (!testSet)
                break;
            // An evaluation counts every worker's steps and samples; per
            // worker (the other series' x) that is the mean.
            Sample perWorker = s;
            perWorker.step /= std::uint64_t(std::max(1, workers));
            perWorker.samples /= std::uint64_t(std::max(1, workers));
            loss[TrainingChart::kTestSeries].append(point(perWorker, s.loss));
            accuracy.append(point(perWorker, 100.0f * s.accuracy));
            if (evalInside_) {
                if (++insideLines_ <= kInsideLines)
                    Q_EMIT eventLogged(
                        insideLines_ < kInsideLines
                            ? tr("Epoch %1, %2 samples: test loss %3, accuracy %4%")
                                  .arg(formatCount(std::int64_t(s.epoch)),
                                       formatCount(std::int64_t(s.samples)))
                                  .arg(double(s.loss), 0, 'f', 4)
                                  .arg(formatDecimal(100.0 * double(s.accuracy), 2))
                            : tr("Further evaluations are drawn on the charts and kept in "
                                 "metrics.csv, not listed here"),
                        false);
            } else if (logged(s.epoch))
                Q_EMIT eventLogged(tr("Epoch %1: test loss %2, accuracy %3%")
                                       .arg(formatCount(std::int64_t(s.epoch)))
                                       .arg(double(s.loss), 0, 'f', 4)
                                       .arg(formatDecimal(100.0 * double(s.accuracy), 2)),
                                   false);
            break;
        }
        }
    }
    for (auto it = loss.begin(); it != loss.end(); ++it)
        loss_->appendPoints(it.key(), it.value());
    for (auto it = divergence.begin(); it != divergence.end(); ++it)
        divergence_->appendPoints(it.key(), it.value());
    for (auto it = rate.begin(); it != rate.end(); ++it)
        lr_->appendPoints(it.key(), it.value());
    accuracy_->appendPoints(TrainingChart::kTestSeries, accuracy);
    if (!epochEnds.isEmpty())
        loss_->addMarkers(TrainingChart::Marker::EpochEnd, epochEnds);
    scheduleRedraw();
}

void RunCharts::scheduleRedraw() {
    if (!redrawTimer_->isActive())
        redrawTimer_->start();
}

void RunCharts::refresh(bool paint) {
    // Redraw, paint included, and time it: the next redraw waits until this
    // one's cost is under kCpuBudget of a core, but never more than 100 ms,
    // so a normal run redraws every 40 ms and a huge one (16 workers, 10^6
    // points each, about 20 ms a chart) still at 10 Hz.
    QElapsedTimer cost;
    cost.start();
    for (TrainingChart* chart : all()) {
        if (chart->isHidden())
            continue;
        chart->refresh();
        if (paint)
            chart->repaint();
    }
    const double ms = double(cost.nsecsElapsed()) / 1e6;
    redrawTimer_->setInterval(redrawIntervalMs(ms, coresShared_));
}

int RunCharts::redrawIntervalMs(double costMs, bool coresShared) {
    return coresShared
               ? std::clamp(int(costMs / kSharedCpuBudget), kMinRedrawMs, kSharedMaxRedrawMs)
               : std::clamp(int(costMs / kCpuBudget), kMinRedrawMs, kMaxRedrawMs);
}

void RunCharts::setCoresShared(bool shared) {
    coresShared_ = shared;
}

} // namespace hwl::ui
