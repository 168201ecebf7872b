#include "window/tensorboardlogs.h"

#include "config/sweep.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QSettings>

namespace hwl::ui {

TensorBoardLogs::TensorBoardLogs(QMenu* run, QWidget* dialogParent) : QObject(run) {
    action_ = run->addAction(tr("&TensorBoard logs…"));
    action_->setObjectName(QStringLiteral("tensorBoardAction"));
    action_->setCheckable(true);
    connect(action_, &QAction::triggered, this, [this, dialogParent](bool on) {
        QString dir;
        if (on)
            dir = QFileDialog::getExistingDirectory(dialogParent, tr("Folder for TensorBoard logs"),
                                                    folder_);
        setFolder(dir); // cancelled: off
    });
    setFolder(QSettings().value(kSettingsKey).toString());
}

void TensorBoardLogs::setFolder(const QString& dir) {
    const bool changed = dir != folder_;
    folder_ = dir.isEmpty() ? QString() : QDir(dir).absolutePath();
    QSettings().setValue(kSettingsKey, folder_);
    action_->setChecked(!folder_.isEmpty());
    action_->setToolTip(
        folder_.isEmpty()
            ? tr("Write each run's TensorBoard event file (losses, test figures, samples/s, "
                 "divergence, the experiment as HParams) under a folder of your choice")
            : tr("Each run writes its TensorBoard event file into a folder of its own under "
                 "%1 (tensorboard --logdir %1). Untick to stop")
                  .arg(folder_));
    if (changed)
        Q_EMIT eventLogged(
            folder_.isEmpty()
                ? tr("TensorBoard logs: off")
                : tr("TensorBoard logs: each run writes into a folder of its own under %1")
                      .arg(folder_));
}

QString TensorBoardLogs::runFolder(const QString& base, const QString& label) {
    QString name = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    if (!label.isEmpty())
        name += QLatin1Char('-') +
                QString::fromStdString(sweepFolderName(label.toStdString())).left(100);
    return QDir(base).filePath(name);
}

} // namespace hwl::ui
