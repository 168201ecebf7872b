#pragma once
// Run > TensorBoard logs…: the folder under which every run started from the
// window writes its TensorBoard event file (the command line's
// --tensorboard), each run into a folder of its own that it makes there
// (io/tensorboardlogdir.h). A window setting, kept
// in QSettings between sessions, whatever preset or file is opened. GUI
// thread only.
#include "config/presetrun.h"

#include <QObject>
#include <QString>

#include <string>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace hwl::ui {

class TensorBoardLogs : public QObject {
    Q_OBJECT

public:
    /// QSettings key of the folder (empty: off).
    static inline const QString kSettingsKey = QStringLiteral("run/tensorboard");

    /// Adds the checkable action to `run` (a folder dialog over `dialogParent`
    /// when ticked) and takes the folder kept in QSettings.
    TensorBoardLogs(QMenu* run, QWidget* dialogParent);

    /// Where the next runs write (made absolute); empty: none. Kept in
    /// QSettings; the action is ticked while there is one.
    void setFolder(const QString& dir);
    const QString& folder() const { return folder_; }
    QAction* action() const { return action_; }

    /// The logdir a run of `config` writes into: its own "tensorboard", else
    /// the folder; empty: none. The run makes its own folder there
    /// (io/tensorboardlogdir.h).
    std::string logdirOf(const ExperimentConfig& config) const;
    /// Before a comparison's or sweep's `runs`: their logdir's experiment,
    /// written for them all (so HParams lists first what they vary). Returns
    /// what the event log says when it cannot be written; empty otherwise.
    QString prepareComparison(const std::vector<PresetRun>& runs) const;

Q_SIGNALS:
    /// The folder changed: what the event log says of it.
    void eventLogged(const QString& text);

private:
    QAction* action_ = nullptr;
    QString folder_;
};

} // namespace hwl::ui
