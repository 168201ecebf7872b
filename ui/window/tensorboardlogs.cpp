#include "window/tensorboardlogs.h"

#include "io/tensorboardlogdir.h"

#include <QAction>
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

std::string TensorBoardLogs::logdirOf(const ExperimentConfig& config) const {
    return config.tensorboard.empty() ? folder_.toStdString() : config.tensorboard;
}

QString TensorBoardLogs::prepareComparison(const std::vector<PresetRun>& runs) const {
    if (runs.empty() || logdirOf(runs.front().config).empty())
        return {};
    std::vector<ExperimentConfig> configs;
    for (const PresetRun& r : runs)
        configs.push_back(r.config);
    try {
        writeTensorBoardExperiment(logdirOf(runs.front().config), configs);
    } catch (const std::exception& e) {
        return tr("TensorBoard: %1").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

} // namespace hwl::ui
