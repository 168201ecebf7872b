// MainWindow's run list: finished runs kept, overlaid, opened from files,
// and a comparison's runs made one after another.
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "teaching/explanationpane.h"

#include <QActionGroup>
#include <QApplication>
#include <QEvent>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>

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
    // Named after its preset (marked when edited), else after its mode.
    QString what = QStringLiteral("%1 ×%2")
                       .arg(QString::fromStdString(run->config().mode))
                       .arg(run->config().workers);
    if (comparison_ && comparison_->current())
        what = QStringLiteral("%1: %2").arg(runName_,
                                            QString::fromStdString(comparison_->current()->label));
    else if (!explanation_->activePreset().isEmpty())
        what = explanation_->modified() ? tr("%1 (modified) · %2").arg(runName_, what) : runName_;
    saved.name = QStringLiteral("#%1 %2").arg(number).arg(what);
    saved.description = RunLibrary::describe(run->config());
    saved.samplesPerSecond = summary.samplesPerSecond;
    if (summary.evaluated)
        saved.testAccuracy = summary.testAccuracy;
    if (summary.state != RunState::Finished)
        saved.name += tr(" (%1)").arg(QString::fromLatin1(toString(summary.state)));
    if (const QString why = runs_->add(saved); !why.isEmpty())
        logEvent(why, true);
    logEvent(
        tr("Kept in the run list as \"%1\": tick it under Runs to overlay it").arg(saved.name));
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
            logEvent(tr("Comparison done: its %1 runs are overlaid (Runs tab)")
                         .arg(comparison_->size()));
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
    QList<TrainingChart::Overlay> loss, accuracy;
    for (const SavedRun& r : runs_->runs()) {
        if (!r.visible)
            continue;
        loss.append({r.name, r.color, false, r.trainLoss});
        if (!r.testLoss.isEmpty())
            loss.append({tr("%1 (test)").arg(r.name), r.color, true, r.testLoss});
        if (!r.accuracy.isEmpty())
            accuracy.append({r.name, r.color, true, r.accuracy});
    }
    lossChart_->setOverlays(loss);
    accuracyChart_->setOverlays(accuracy);
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
    if (const QString saveError = runs_->add(run); !saveError.isEmpty())
        logEvent(saveError, true);
    logEvent(tr("Opened run \"%1\" (%2)").arg(run.name, run.description));
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
