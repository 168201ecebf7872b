// MainWindow's comparisons: a preset's runs (what Start makes of a comparison
// preset) or a sweep's, made one after another by the ComparisonDriver. And
// the Run menu beyond Start and Stop: Sweep…, a grid of runs over
// experiment fields (the command line's --sweep), chosen in a SweepDialog
// and made one after another as a comparison (each kept in the Runs tab and
// overlaid; Stop ends it); TensorBoard logs… (TensorBoardLogs), the folder
// every run writes its event file under (the command line's --tensorboard).
#include "window/mainwindow.h"

#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/sweepdialog.h"
#include "teaching/explanationpane.h"
#include "widgets/numbers.h"
#include "window/comparisondriver.h"
#include "window/tensorboardlogs.h"

#include <QAction>
#include <QMenu>

namespace hwl::ui {

bool MainWindow::startComparison(const std::vector<PresetRun>& runs) {
    if (controller_->busy() || runs.empty())
        return false;
    // What it compares comes from its preset (a comparison of no preset: samples/s).
    const hwl::Preset* preset = comparingPreset(presets_, explanation_->activePreset(), runs);
    if (const QString why = tensorBoard_->prepareComparison(runs); !why.isEmpty())
        logEvent(why, true);
    comparison_->begin(runs, preset ? QString::fromStdString(preset->name) : tr("Comparison"),
                       preset ? preset->compares : hwl::ComparedFigure::None);
    // The comparison overlays its own runs, not whatever was ticked before.
    if (const QString why = runs_->untickAll(); !why.isEmpty())
        logEvent(why, true);
    logEvent(tr("Comparison: %1 runs, one after another; each stays in the Runs tab, "
                "overlaid on the next (earlier runs are unticked, not deleted). Stop ends "
                "the comparison")
                 .arg(formatCount(std::uint64_t(runs.size()))));
    startConfig(comparison_->current()->config);
    return true;
}

void MainWindow::addSweepAction(QMenu* run) {
    sweepAction_ = run->addAction(tr("S&weep…"), this, [this] { openSweep(); });
    sweepAction_->setObjectName(QStringLiteral("sweepAction"));
    sweepAction_->setToolTip(tr("A grid of runs over fields of the experiment on the left "
                                "(workers=1,2,4 × mode=...), made one after another"));
    sweepAction_->setEnabled(!controller_->busy());
}

bool MainWindow::openSweep() {
    if (controller_->busy())
        return false;
    if (!form_->isValid()) {
        logEvent(tr("Sweep: the experiment is not valid; fix it first (%1)")
                     .arg(form_->problemSummary()),
                 true);
        return false;
    }
    SweepDialog dialog(form_->config(), this);
    if (!sweepRows_.isEmpty()) // the rows typed last time, cancelled or not
        dialog.setRows(sweepRows_);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    sweepRows_ = dialog.rowTexts();
    if (!accepted || dialog.runs().empty())
        return false;
    std::vector<PresetRun> runs = dialog.runs();
    for (PresetRun& r : runs) // the logdir where each run makes its own folder
        r.config.tensorboard = form_->config().tensorboard;
    if (!startComparison(runs))
        return false;
    comparison_->setTitle(tr("Sweep")); // not a preset's comparison
    logEvent(tr("Sweep: %1 … %2")
                 .arg(QString::fromStdString(runs.front().label),
                      QString::fromStdString(runs.back().label)));
    return true;
}

void MainWindow::addTensorBoardAction(QMenu* run) {
    tensorBoard_ = new TensorBoardLogs(run, this);
    connect(tensorBoard_, &TensorBoardLogs::eventLogged, this,
            [this](const QString& text) { logEvent(text); });
}

} // namespace hwl::ui
