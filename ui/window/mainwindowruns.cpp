// MainWindow's run list: finished runs kept, overlaid, opened from files,
// and a comparison's runs made one after another.
#include "window/mainwindow.h"

#include "widgets/numbers.h"
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "teaching/comparisonverdict.h"
#include "teaching/explanationpane.h"
#include "teaching/verdict.h"

#include "strategy/catalog.h"

#include <QActionGroup>
#include <QApplication>
#include <QEvent>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>

namespace hwl::ui {

void MainWindow::buildRunList() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    runs_ = new RunLibrary(dir + QStringLiteral("/runs.json"), this);
    runPanel_ = new RunListPanel(runs_);
    bottomTabs_->addTab(runPanel_, tr("Runs"));
    connect(runs_, &RunLibrary::changed, this, &MainWindow::updateOverlays);
    connect(runPanel_, &RunListPanel::openRequested, this, &MainWindow::chooseRunToOpen);
    connect(runPanel_, &RunListPanel::saveFailed, this,
            [this](const QString& why) { logEvent(why, true); });
    connect(runPanel_, &RunListPanel::runTicked, this, &MainWindow::onRunTicked);
    // Where a comparison is, on screen while it goes (the event log scrolls).
    comparisonStatus_ = new QLabel;
    comparisonStatus_->setObjectName("comparisonStatus");
    comparisonStatus_->hide();
    statusBar()->addPermanentWidget(comparisonStatus_);
    connect(controller_, &RunController::failedToStart, this, &MainWindow::endComparison);
    connect(controller_, &RunController::stoppedWhileLoading, this, &MainWindow::endComparison);
    const ExperimentConfig shown = form_->config();
    chartedModel_ = QString::fromStdString(shown.model);
    chartedDataset_ = QString::fromStdString(shown.dataset);
    if (const QString why = runs_->load(); !why.isEmpty())
        logEvent(why, true);
}

void MainWindow::keepFinishedRun(const RunSummary& summary) {
    const Run* run = controller_->run();
    if (!run || controller_->metrics().size() == 0)
        return;
    SavedRun saved = RunLibrary::fromLog(controller_->metrics());
    if (saved.trainLoss.isEmpty())
        return; // no step was taken: nothing to compare
    QSettings settings;
    const int number = settings.value("runs/next", 1).toInt();
    settings.setValue("runs/next", number + 1);
    // Named after its preset (marked when edited, or with the change its
    // text invited), else after its mode.
    QString what = QStringLiteral("%1 ×%2")
                       .arg(QString::fromStdString(run->config().mode))
                       .arg(run->config().workers);
    // A comparison's runs overlay each other (the one going: run 2 of 2 shows run 1).
    const bool compared = compared_ != nullptr;
    if (compared)
        what = QStringLiteral("%1: %2").arg(runName_, compared_->current);
    else if (explanation_->modified())
        what = tr("%1 (modified) · %2").arg(runName_, what);
    else if (!explanation_->activePreset().isEmpty())
        what = explanation_->followed().isEmpty()
                   ? runName_
                   : QStringLiteral("%1 · %2").arg(runName_, explanation_->followed());
    saved.name = QStringLiteral("#%1 %2").arg(number).arg(what);
    saved.description = RunLibrary::describe(run->config());
    saved.model = QString::fromStdString(run->config().model);
    saved.dataset = QString::fromStdString(run->config().dataset);
    saved.fields = RunLibrary::fieldsOf(run->config());
    saved.visible = compared;
    RunLibrary::applySummary(saved, summary); // the figures summary.json would hold
    // A run too short for two step samples a worker (they come every 2 ms)
    // has no throughput curve: its whole-run average per worker, flat.
    if (saved.throughput.isEmpty() && summary.samplesPerSecond > 0) {
        const double perWorker = summary.samplesPerSecond / std::max(1, saved.workers);
        for (const ChartSample& at : {saved.trainLoss.front(), saved.trainLoss.back()})
            saved.throughput.append({at.step, at.samples, at.time, perWorker});
    }
    if (summary.state != RunState::Finished)
        saved.name += tr(" (%1)").arg(QString::fromLatin1(stateName(summary.state)));
    runOnCharts_ = saved.name; // before add(), whose change redraws the overlays
    if (const QString why = runs_->add(saved); !why.isEmpty())
        logEvent(why, true);
    logEvent(saved.visible ? tr("Kept in the run list as \"%1\", overlaid on the charts as a "
                                "run of the comparison (untick it under Runs to hide it)")
                                 .arg(saved.name)
                           : tr("Kept in the run list as \"%1\": tick it under Runs to "
                                "overlay it")
                                 .arg(saved.name));
}

void MainWindow::recordComparedRun(const RunSummary& summary) {
    const Run* run = controller_->run();
    if (!compared_ || !run)
        return;
    compared_->rows.append({compared_->current, summary, workersAreProcesses(run->config()),
                            meanDivergence(controller_->metrics())});
}

void MainWindow::endComparison() {
    if (compared_ && !compared_->rows.isEmpty())
        verdict_->showVerdict(comparisonVerdict(*compared_));
    compared_.reset();
    comparisonStatus_->clear();
    comparisonStatus_->hide();
}

void MainWindow::onRunTicked(int index) {
    if (index < 0 || index >= runs_->size())
        return;
    const SavedRun& r = runs_->runs()[index];
    if (r.trained(chartedModel_, chartedDataset_))
        return;
    const QString what =
        r.model.isEmpty()
            ? tr("\"%1\" does not say what it trained (it was kept before the run list noted it)")
                  .arg(r.name)
            : tr("\"%1\" trained %2 on %3").arg(r.name, r.model, r.dataset);
    logEvent(tr("%1, while the charts show %2 on %3: its loss and accuracy are drawn there "
                "only because you ticked it")
                 .arg(what, chartedModel_, chartedDataset_));
}

void MainWindow::continueComparison(const RunSummary& summary) {
    if (!comparison_)
        return;
    const std::size_t run = comparison_->index() + 1;
    if (summary.state == RunState::Failed)
        logEvent(tr("Comparison run %1 failed; the next one starts").arg(run), true);
    if (!comparison_->ended(/*stopped=*/summary.state == RunState::Stopped)) {
        if (comparison_->stoppedEarly())
            logEvent(tr("The comparison stops: run %1 was stopped").arg(run), true);
        else
            logEvent(tr("Comparison done: its %1 runs are overlaid, side by side in the table "
                        "over the charts (and under Runs)")
                         .arg(formatCount(std::uint64_t(comparison_->size()))));
        comparison_.reset();
        return;
    }
    // A moment between runs, for the eye and for the workers to be gone.
    QTimer::singleShot(300, this, [this] {
        if (comparison_ && comparison_->current() && !controller_->busy())
            startConfig(comparison_->current()->config);
    });
}

void MainWindow::updateOverlays() {
    QList<TrainingChart::Overlay> loss, accuracy, rate, divergence;
    for (const SavedRun& r : runs_->runs()) {
        // Another task's curves would contradict the lesson on the charts
        // (a comparison's runs, ticked by it, under the next preset): only
        // when the user asked for it by ticking it.
        if (!r.visible || (!r.userTicked && !r.trained(chartedModel_, chartedDataset_)))
            continue;
        if (r.name == runOnCharts_) // the live curves are this run's
            continue;
        if (!r.throughput.isEmpty())
            rate.append({r.name, r.color, false, r.throughput});
        if (!r.divergence.isEmpty())
            divergence.append({r.name, r.color, false, r.divergence});
        loss.append({r.name, r.color, false, r.trainLoss});
        if (!r.testLoss.isEmpty()) // dotted, in the training curve's colour
            loss.append(
                {tr("%1 (test)").arg(r.name), r.color, true, r.testLoss, int(loss.size()) - 1});
        if (!r.accuracy.isEmpty())
            accuracy.append({r.name, r.color, true, r.accuracy});
    }
    lossChart_->setOverlays(loss);
    accuracyChart_->setOverlays(accuracy);
    rateChart_->setOverlays(rate);
    divergenceChart_->setOverlays(divergence);
    // The accuracy chart is worth its room once there is an accuracy to show.
    const Run* run = controller_->run();
    showChart(accuracyChart_, !accuracy.isEmpty() || (run && run->info().testRows > 0));
}

bool MainWindow::openRun(const QString& path, bool quiet, QString* why) {
    QString error;
    SavedRun run = RunLibrary::fromPath(path, &error);
    if (run.name.isEmpty()) {
        logEvent(tr("Could not open the run: %1").arg(error), true);
        if (why)
            *why = error;
        if (!quiet)
            QMessageBox::warning(this, tr("Could not open the run"), error);
        return false;
    }
    run.visible = run.userTicked = true; // opened to be compared: overlaid at once
    if (const QString saveError = runs_->add(run); !saveError.isEmpty())
        logEvent(saveError, true);
    addRecent(path);
    logEvent(tr("Opened run \"%1\" (%2)").arg(run.name, run.description));
    onRunTicked(runs_->size() - 1);
    bottomTabs_->setCurrentWidget(runPanel_);
    return true;
}

void MainWindow::chooseRunToOpen(bool folder) {
    const QString path =
        folder ? QFileDialog::getExistingDirectory(this, tr("Open a --out folder"))
               : QFileDialog::getOpenFileName(this, tr("Open run"), {},
                                              tr("Metrics (metrics.csv *.csv);;All files (*)"));
    if (!path.isEmpty())
        openRun(path);
}

} // namespace hwl::ui
