// MainWindow's menu bar (File, Run, Presets, Help) and the teaching
// dialogs it opens (the counter toy, the race stepper). The File menu's work
// is in mainwindowfiles.cpp, the View menu in mainwindowview.cpp.
#include "widgets/filedialogs.h"
#include "window/mainwindow.h"
#include "window/presentationmode.h"

#include "charts/chartsizedialog.h"
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "teaching/countertoydialog.h"
#include "teaching/explanationpane.h"
#include "teaching/racestepper.h"
#include "window/experimentfiles.h"
#include "window/helpmenu.h"
#include "window/recentfiles.h"

#include "io/atomicfile.h"
#include "strategy/catalog.h"

#include <QAction>
#include <QFileInfo>
#include <QImageWriter>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace hwl::ui {

namespace {

/// File > Save chart: every chart, at a size asked for (not the screen's),
/// as PNG or SVG.
void addChartSaving(QMenu* file, MainWindow* window) {
    QMenu* saveCharts = file->addMenu(MainWindow::tr("Save &chart"));
    const struct {
        QString label, file;
        TrainingChart* chart;
    } charts[] = {
        {MainWindow::tr("&Loss…"), "loss.png", window->lossChart()},
        {MainWindow::tr("&Accuracy…"), "accuracy.png", window->accuracyChart()},
        {MainWindow::tr("&Divergence…"), "divergence.png", window->divergenceChart()},
        {MainWindow::tr("&Throughput…"), "throughput.png", window->rateChart()},
        {MainWindow::tr("Lost &updates…"), "lost-updates.png", window->lostUpdatesChart()}};
    for (const auto& c : charts)
        saveCharts->addAction(c.label, window, [window, c] {
            QSettings settings;
            const std::optional<QSize> size =
                askChartSize(window, settings.value("chartSaveSize", QSize(1600, 900)).toSize());
            if (!size)
                return;
            settings.setValue("chartSaveSize", *size);
            QString filter;
            QString path = filedialogs::saveFile(
                window, MainWindow::tr("Save chart"), c.file,
                MainWindow::tr("PNG image (*.png);;SVG drawing (*.svg)"), &filter);
            if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) // the format chosen
                path += filter.contains(QLatin1String("*.svg")) ? QStringLiteral(".svg")
                                                                : QStringLiteral(".png");
            if (!path.isEmpty())
                window->files()->saveChart(c.chart, path, false, *size);
        });
}

/// File > Export weights in each format Run::writeWeights() writes, which
/// it picks by the file's suffix: safetensors, NumPy .npz, and the whole
/// network as ONNX.
void addWeightExports(QMenu* file, MainWindow* window) {
    const struct {
        QString label, file, filter;
    } formats[] = {
        {MainWindow::tr("Export weights (&safetensors)…"), "weights.safetensors",
         MainWindow::tr("safetensors (*.safetensors)")},
        {MainWindow::tr("Export weights (&NumPy .npz)…"), "weights.npz",
         MainWindow::tr("NumPy (*.npz)")},
        {MainWindow::tr("Export model (&ONNX)…"), "model.onnx", MainWindow::tr("ONNX (*.onnx)")}};
    for (const auto& f : formats)
        file->addAction(f.label, window, [window, f] {
            const QString path =
                filedialogs::saveFile(window, MainWindow::tr("Export weights"), f.file, f.filter);
            if (!path.isEmpty())
                window->files()->exportWeights(path);
        });
}

} // namespace

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open experiment…"), QKeySequence::Open, this, [this] {
        const QString path =
            filedialogs::openFile(this, tr("Open experiment"), tr("Experiments (*.json)"));
        if (!path.isEmpty())
            files_->openExperiment(path);
    });
    recent_ = new RecentFiles(file->addMenu(tr("Open &recent")), this);
    connect(files_, &ExperimentFiles::fileUsed, recent_, &RecentFiles::add);
    connect(recent_, &RecentFiles::openRequested, this,
            [this](const QString& path) { files_->openFile(path); });
    lastStartedAction_ = file->addAction(tr("Open &last started experiment"), this,
                                         [this] { files_->openLastStarted(); });
    lastStartedAction_->setEnabled(
        !QSettings().value(ExperimentFiles::kLastStartedKey).toString().isEmpty());
    file->addAction(tr("&Save experiment…"), QKeySequence::Save, this, [this] {
        const QString path = filedialogs::saveFile(this, tr("Save experiment"), "experiment.json",
                                                   tr("Experiments (*.json)"));
        if (!path.isEmpty())
            files_->saveExperiment(path);
    });
    file->addAction(tr("Open r&un (metrics.csv)…"), this, [this] { chooseRunToOpen(false); });
    file->addAction(tr("Open run from a --out &folder…"), this, [this] { chooseRunToOpen(true); });
    files_->addInitialWeightsActions(file);
    file->addSeparator();
    addWeightExports(file, this);
    file->addAction(tr("Export &metrics CSV…"), this, [this] {
        const QString path =
            filedialogs::saveFile(this, tr("Export metrics"), "metrics.csv", tr("CSV (*.csv)"));
        if (!path.isEmpty())
            files_->exportMetrics(path);
    });
    addChartSaving(file, this);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(startAction_);
    run->addAction(pauseAction_);
    run->addAction(stopAction_);
    run->addAction(stepAction_);
    run->addSeparator();
    addSweepAction(run);
    addTensorBoardAction(run);

    // Disabled during a run (updateActions()): a preset must not swap the
    // form under the running charts.
    presetsMenu_ = menuBar()->addMenu(tr("&Presets"));
    int number = 0;
    for (const hwl::Preset& preset : presets_) {
        const QString name = QString::fromStdString(preset.name);
        QAction* action = presetsMenu_->addAction(name, this, [this, name] { applyPreset(name); });
        if (++number <= 9) // Alt+1 ... Alt+9, in menu order
            action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_0 + number)));
    }
    presetsMenu_->addSeparator();
    presetsMenu_->addAction(tr("Shared-counter &toy…"), QKeySequence(Qt::ALT | Qt::Key_0), this,
                            [this] { counterToy()->show(); });
    presetsMenu_->addAction(tr("&Race stepper…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                            this, [this] { raceStepper()->show(); });
    buildViewMenu();
    new HelpMenu(menuBar(), this);
    files_->acceptFileDrops();
}

RaceStepperDialog* MainWindow::raceStepper() {
    if (!raceStepper_) {
        raceStepper_ = new RaceStepperDialog(this);
        PresentationMode::scaleFont(raceStepper_, presentation());
    }
    return raceStepper_;
}

CounterToyDialog* MainWindow::counterToy() {
    if (!counterToy_) {
        counterToy_ = new CounterToyDialog(this);
        PresentationMode::scaleFont(counterToy_, presentation());
    }
    return counterToy_;
}

} // namespace hwl::ui
