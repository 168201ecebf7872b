// MainWindow's Run menu beyond Start and Stop: Sweep…, a grid of runs over
// experiment fields (the command line's --sweep), chosen in a SweepDialog
// and made one after another as a comparison (each kept in the Runs tab and
// overlaid; Stop ends it); TensorBoard logs…, the folder every run writes
// its event file under (the command line's --tensorboard).
#include "window/mainwindow.h"

#include "form/experimentform.h"
#include "runs/sweepdialog.h"
#include "teaching/comparisonverdict.h"

#include "config/sweep.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QSettings>

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
    std::vector<PresetRun> runs = dialog.runs();
    for (PresetRun& r : runs) // startConfig() gives each run its own event folder
        r.config.tensorboard = form_->config().tensorboard;
    if (!startComparison(runs))
        return false;
    if (compared_) // its table's title: a sweep, not a preset's comparison
        compared_->title = tr("Sweep");
    logEvent(tr("Sweep: %1 … %2")
                 .arg(QString::fromStdString(runs.front().label),
                      QString::fromStdString(runs.back().label)));
    return true;
}

void MainWindow::addTensorBoardAction(QMenu* run) {
    tensorBoardAction_ = run->addAction(tr("&TensorBoard logs…"));
    tensorBoardAction_->setObjectName(QStringLiteral("tensorBoardAction"));
    tensorBoardAction_->setCheckable(true);
    connect(tensorBoardAction_, &QAction::triggered, this, [this](bool on) {
        QString dir;
        if (on)
            dir = QFileDialog::getExistingDirectory(this, tr("Folder for TensorBoard logs"),
                                                    tensorBoardDir_);
        setTensorBoardFolder(dir); // cancelled: off
    });
    setTensorBoardFolder(QSettings().value(kTensorBoardKey).toString());
}

void MainWindow::setTensorBoardFolder(const QString& dir) {
    const bool changed = dir != tensorBoardDir_;
    tensorBoardDir_ = dir.isEmpty() ? QString() : QDir(dir).absolutePath();
    QSettings().setValue(kTensorBoardKey, tensorBoardDir_);
    tensorBoardAction_->setChecked(!tensorBoardDir_.isEmpty());
    tensorBoardAction_->setToolTip(
        tensorBoardDir_.isEmpty()
            ? tr("Write each run's TensorBoard event file (losses, test figures, samples/s, "
                 "divergence, the experiment as HParams) under a folder of your choice")
            : tr("Each run writes its TensorBoard event file into a folder of its own under "
                 "%1 (tensorboard --logdir %1). Untick to stop")
                  .arg(tensorBoardDir_));
    if (changed)
        logEvent(tensorBoardDir_.isEmpty()
                     ? tr("TensorBoard logs: off")
                     : tr("TensorBoard logs: each run writes into a folder of its own under %1")
                           .arg(tensorBoardDir_));
}

QString MainWindow::tensorBoardRunFolder(const QString& base, const QString& label) {
    QString name = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    if (!label.isEmpty())
        name += QLatin1Char('-') +
                QString::fromStdString(sweepFolderName(label.toStdString())).left(100);
    return QDir(base).filePath(name);
}

} // namespace hwl::ui
