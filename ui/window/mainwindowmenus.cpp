// MainWindow's menu bar (File, Run, Presets, Help) and the teaching
// dialogs it opens (the counter toy, the race stepper). The File menu's work
// is in mainwindowfiles.cpp, the View menu in mainwindowview.cpp.
#include "window/mainwindow.h"

#include "charts/chartsizedialog.h"
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "teaching/countertoydialog.h"
#include "teaching/explanationpane.h"
#include "teaching/racestepper.h"

#include "io/atomicfile.h"
#include "strategy/catalog.h"

#include <QAction>
#include <QFileDialog>
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
            QString path = QFileDialog::getSaveFileName(
                window, MainWindow::tr("Save chart"), c.file,
                MainWindow::tr("PNG image (*.png);;SVG drawing (*.svg)"), &filter);
            if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) // the format chosen
                path += filter.contains(QLatin1String("*.svg")) ? QStringLiteral(".svg")
                                                                : QStringLiteral(".png");
            if (!path.isEmpty())
                window->saveChart(c.chart, path, false, *size);
        });
}

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
    // Anew at each opening: a file deleted since shows as missing.
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    lastStartedAction_ =
        file->addAction(tr("Open &last started experiment"), this, [this] { openLastStarted(); });
    lastStartedAction_->setEnabled(!QSettings().value(kLastStartedKey).toString().isEmpty());
    file->addAction(tr("&Save experiment…"), QKeySequence::Save, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save experiment"), "experiment.json", tr("Experiments (*.json)"));
        if (!path.isEmpty())
            saveExperiment(path);
    });
    file->addAction(tr("Open r&un (metrics.csv)…"), this, [this] { chooseRunToOpen(false); });
    file->addAction(tr("Open run from a --out &folder…"), this, [this] { chooseRunToOpen(true); });
    addInitialWeightsActions(file);
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
    buildHelpMenu();
    rebuildRecentMenu();
    acceptFileDrops();
}

QString MainWindow::helpText(const QString& topic) const {
    if (topic == QLatin1String("shortcuts"))
        return tr("<h3>Keyboard shortcuts</h3><table>"
                  "<tr><td>Ctrl+R</td><td>Start</td></tr>"
                  "<tr><td>Ctrl+P</td><td>Pause / Resume</td></tr>"
                  "<tr><td>Ctrl+E</td><td>One step while paused</td></tr>"
                  "<tr><td>Ctrl+T</td><td>Stop</td></tr>"
                  "<tr><td>Alt+1 ... Alt+9</td><td>The first nine presets, in menu order</td></tr>"
                  "<tr><td>Alt+0</td><td>The shared-counter toy</td></tr>"
                  "<tr><td>Ctrl+Shift+R</td><td>The race stepper</td></tr>"
                  "<tr><td>Ctrl+O / Ctrl+S</td><td>Open / save an experiment</td></tr>"
                  "<tr><td>Ctrl+1 / 2 / 3</td><td>The Workers, Events and Runs tabs</td></tr>"
                  "<tr><td>On a chart</td><td>drag: zoom into a rectangle; wheel or + / -: "
                  "zoom; double-click or 0: the whole run; right click: zoom out; hover: "
                  "the point's step, time and value</td></tr>"
                  "<tr><td>F1</td><td>The modes and pitfalls</td></tr>"
                  "<tr><td>F5</td><td>Presentation, for a projector (on / off)</td></tr></table>");
    if (topic == QLatin1String("modes")) {
        QString html = tr("<h3>The modes</h3><ul>");
        for (const StrategyTraits* t : allStrategies())
            html +=
                QStringLiteral("<li><b>%1</b>: %2%3</li>")
                    .arg(QString::fromStdString(t->label).toHtmlEscaped(),
                         QString::fromStdString(t->help).toHtmlEscaped(),
                         t->unavailable.empty()
                             ? QString()
                             : QStringLiteral(" <i>(%1)</i>")
                                   .arg(QString::fromStdString(t->unavailable).toHtmlEscaped()));
        return html +
               tr("</ul><h3>The pitfalls, and where to see them</h3><ul>"
                  "<li><b>Parameters not shared</b> (untick Share parameters): each process "
                  "trains a private copy and the test accuracy never moves.</li>"
                  "<li><b>CUDA before fork</b>: a forked child cannot use its parent's CUDA "
                  "context; fork is refused, spawn and forkserver work.</li>"
                  "<li><b>Lost updates</b> (Count lost updates): lock-free writes of the same "
                  "parameters overlap and one replaces the other; the lock loses none.</li>"
                  "<li><b>fork from a process with threads</b>: the child gets only the "
                  "forking thread; forkserver avoids it.</li></ul>"
                  "<p>Each preset says what to look at, beside the charts.</p>");
    }
    return tr("<h3>Hogwild Lab %1</h3><p>A workbench for parallel SGD: serial, Hogwild over "
              "threads and processes, locked, data-parallel (threads, processes, MPI; CUDA "
              "where built), with live loss, divergence and lost updates from shared "
              "memory, and weights for PyTorch and NumPy.</p><p>Built with Qt %2.</p>"
              "<p>Free software under the MIT License (the LICENSE file; Debian calls it "
              "Expat): use, copy, change and share it, keeping the copyright notice.</p>")
        .arg(QStringLiteral(HWL_VERSION), QString::fromLatin1(qVersion()));
}

void MainWindow::buildHelpMenu() {
    auto* help = menuBar()->addMenu(tr("&Help"));
    const struct {
        QString label, topic;
        QKeySequence keys;
    } entries[] = {{tr("&Modes and pitfalls"), "modes", QKeySequence::HelpContents},
                   {tr("&Keyboard shortcuts"), "shortcuts", {}},
                   {tr("&About Hogwild Lab"), "about", {}}};
    for (const auto& e : entries)
        help->addAction(e.label, e.keys, this, [this, e] {
            QMessageBox box(this);
            // The menu's text without its mnemonic marker ("&Modes ...").
            box.setWindowTitle(QString(e.label).remove(QLatin1Char('&')));
            box.setTextFormat(Qt::RichText);
            box.setText(helpText(e.topic));
            box.exec();
        });
}

RaceStepperDialog* MainWindow::raceStepper() {
    if (!raceStepper_)
        raceStepper_ = new RaceStepperDialog(this);
    return raceStepper_;
}

CounterToyDialog* MainWindow::counterToy() {
    if (!counterToy_)
        counterToy_ = new CounterToyDialog(this);
    return counterToy_;
}

} // namespace hwl::ui
