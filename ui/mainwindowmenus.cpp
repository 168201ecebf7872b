// MainWindow's menu bar (File, Run, Presets) and the recent-experiments list.
#include "mainwindow.h"

#include "presets.h"
#include "trainingchart.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace hwl::ui {

namespace {
constexpr int kMaxRecent = 8;
} // namespace

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open experiment…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open experiment"), {},
                                                          tr("Experiments (*.json)"));
        if (!path.isEmpty())
            openExperiment(path);
    });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    lastStartedAction_ =
        file->addAction(tr("Open &last started experiment"), this, [this] { openLastStarted(); });
    lastStartedAction_->setEnabled(!QSettings().value(kLastStartedKey).toString().isEmpty());
    file->addAction(tr("&Save experiment…"), QKeySequence::Save, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save experiment"), "experiment.json", tr("Experiments (*.json)"));
        if (!path.isEmpty())
            saveExperiment(path);
    });
    file->addSeparator();
    file->addAction(tr("Export weights (&safetensors)…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export weights"), "weights.safetensors", tr("safetensors (*.safetensors)"));
        if (!path.isEmpty())
            exportWeights(path);
    });
    file->addAction(tr("Export weights (&NumPy .npz)…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export weights"), "weights.npz",
                                                          tr("NumPy (*.npz)"));
        if (!path.isEmpty())
            exportWeights(path);
    });
    file->addAction(tr("Export &metrics CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export metrics"), "metrics.csv",
                                                          tr("CSV (*.csv)"));
        if (!path.isEmpty())
            exportMetrics(path);
    });
    file->addAction(tr("Save &loss chart as PNG…"), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save chart"), "loss.png", tr("PNG (*.png)"));
        if (!path.isEmpty() && !lossChart_->saveImage(path))
            QMessageBox::warning(this, tr("Save chart"), tr("Cannot write %1").arg(path));
    });
    file->addAction(tr("Save &divergence chart as PNG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), "divergence.png",
                                                          tr("PNG (*.png)"));
        if (!path.isEmpty() && !divergenceChart_->saveImage(path))
            QMessageBox::warning(this, tr("Save chart"), tr("Cannot write %1").arg(path));
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(startAction_);
    run->addAction(pauseAction_);
    run->addAction(stopAction_);
    run->addAction(stepAction_);

    // Disabled during a run (updateActions()): a preset must not swap the
    // form under the running charts.
    presetsMenu_ = menuBar()->addMenu(tr("&Presets"));
    int number = 0;
    for (const auto& preset : presets()) {
        const QString name = preset.name;
        QAction* action = presetsMenu_->addAction(name, this, [this, name] { applyPreset(name); });
        if (++number <= 9) // Alt+1 ... Alt+9, in menu order
            action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_0 + number)));
    }
    rebuildRecentMenu();
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentExperiments").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentExperiments", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recentExperiments").toStringList();
    for (const QString& path : recent)
        recentMenu_->addAction(path, this, [this, path] { openExperiment(path); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

} // namespace hwl::ui
