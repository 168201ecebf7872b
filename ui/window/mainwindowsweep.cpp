// MainWindow's Run > Sweep…: a grid of runs over experiment fields (the
// command line's --sweep), chosen in a SweepDialog and made one after
// another as a comparison (each kept in the Runs tab and overlaid; Stop ends
// it).
#include "window/mainwindow.h"

#include "form/experimentform.h"
#include "runs/sweepdialog.h"
#include "teaching/comparisonverdict.h"

#include <QAction>
#include <QMenu>

namespace hwl::ui {

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
    if (dialog.exec() != QDialog::Accepted || dialog.runs().empty())
        return false;
    const std::vector<PresetRun> runs = dialog.runs();
    if (!startComparison(runs))
        return false;
    if (compared_) // its table's title: a sweep, not a preset's comparison
        compared_->title = tr("Sweep");
    logEvent(tr("Sweep: %1 … %2")
                 .arg(QString::fromStdString(runs.front().label),
                      QString::fromStdString(runs.back().label)));
    return true;
}

} // namespace hwl::ui
