#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/workertablemodel.h"
#include "teaching/countertoydialog.h"
#include "teaching/explanationpane.h"
#include "teaching/racestepper.h"
#include "teaching/verdict.h"

#include "io/tensorfile.h"
#include "strategy/catalog.h"
#include "util/limits.h"

#include <QAction>
#include <QChart>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace hwl::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Hogwild Lab"));
    setObjectName("MainWindow");
    controller_ = new RunController(this);
    buildActions();
    buildLayout();
    buildRunList();
    buildMenus();

    // Charts redraw at most every 40 ms, coalescing all telemetry in between.
    redrawTimer_ = new QTimer(this);
    redrawTimer_->setSingleShot(true);
    redrawTimer_->setInterval(kMinRedrawMs);
    connect(redrawTimer_, &QTimer::timeout, this, &MainWindow::refreshCharts);

    connect(controller_, &RunController::preparing, this, [this](const QString& what) {
        statusLabel_->setText(what);
        logEvent(tr("Preparing: %1").arg(what));
        updateActions();
    });
    connect(controller_, &RunController::started, this, &MainWindow::onStarted);
    connect(controller_, &RunController::failedToStart, this, [this](const QString& message) {
        comparison_.reset(); // a comparison stops at a run that cannot start
        logEvent(tr("Could not start: %1").arg(message), true);
        statusLabel_->setText(tr("Could not start"));
        updateActions();
        QMessageBox::warning(this, tr("Could not start the run"), message);
    });
    connect(controller_, &RunController::stoppedWhileLoading, this, [this] {
        statusLabel_->setText(tr("Stopped while loading"));
        updateActions();
    });
    connect(controller_, &RunController::samplesArrived, this, &MainWindow::onSamples);
    connect(
        controller_, &RunController::workersUpdated, this, [this](const QList<WorkerRow>& rows) {
            workerModel_->setRows(rows);
            chartLostUpdates(rows);
            chartRates(rows);
            double rate = 0;
            for (const auto& r : rows)
                rate += r.samplesPerSecond;
            if (controller_->busy())
                statusLabel_->setText(tr("%1 — %2 samples/s")
                                          .arg(controller_->paused() ? tr("Paused") : tr("Running"))
                                          .arg(rate, 0, 'f', 0));
        });
    connect(controller_, &RunController::finished, this, &MainWindow::onFinished);
    connect(controller_, &RunController::eventLogged, this, &MainWindow::logEvent);
    connect(form_, &ExperimentForm::validityChanged, this, &MainWindow::updateActions);

    restoreSettings();
    connect(explanation_, &ExplanationPane::instrumentRequested, this, [this](const QString& what) {
        if (what == QLatin1String("race-stepper"))
            raceStepper()->show();
        else if (what == QLatin1String("counter-toy"))
            counterToy()->show();
    });
    connect(form_, &ExperimentForm::changed, this,
            [this] { explanation_->formChanged(form_->config()); });
    if (!presets_.empty()) { // the default experiment's
        explanation_->showPreset(presets_.back());
        runName_ = QString::fromStdString(presets_.back().name);
    }
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
    startAction_ = new QAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), this);
    startAction_->setShortcut(Qt::CTRL | Qt::Key_R);
    startAction_->setToolTip(tr("Start training with the experiment on the left (Ctrl+R)"));
    pauseAction_ = new QAction(style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
    pauseAction_->setShortcut(Qt::CTRL | Qt::Key_P);
    stopAction_ = new QAction(style()->standardIcon(QStyle::SP_MediaStop), tr("S&top"), this);
    stopAction_->setShortcut(Qt::CTRL | Qt::Key_T);
    stopAction_->setToolTip(tr("Stop every worker after its current step"));
    stepAction_ =
        new QAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("St&ep"), this);
    stepAction_->setShortcut(Qt::CTRL | Qt::Key_E);
    stepAction_->setToolTip(tr("While paused: every worker takes one step, then waits (Ctrl+E)"));
    connect(stepAction_, &QAction::triggered, this, [this] {
        controller_->step();
        logEvent(tr("One step"));
    });
    connect(startAction_, &QAction::triggered, this, &MainWindow::startRun);
    connect(pauseAction_, &QAction::triggered, this, &MainWindow::togglePause);
    connect(stopAction_, &QAction::triggered, this, &MainWindow::stopRun);
}

void MainWindow::buildLayout() {
    buildDock();
    buildToolbar();
    buildCentre();
    statusLabel_ = new QLabel(tr("Ready"));
    statusBar()->addWidget(statusLabel_, 1);
    connect(smoothing_, &QSlider::valueChanged, this, [this](int v) {
        smoothingValue_->setText(QString::number(v / 100.0, 'f', 2) + ' ');
        for (TrainingChart* chart : charts())
            chart->setSmoothing(v / 100.0);
        refreshCharts();
    });
    connect(xAxis_, &QComboBox::currentIndexChanged, this, [this](int i) {
        for (TrainingChart* chart : charts())
            chart->setXAxis(TrainingChart::XAxis(i));
        refreshCharts();
    });
    connect(band_, &QCheckBox::clicked, this, [this] { bandTouched_ = true; });
    connect(band_, &QCheckBox::toggled, this, [this](bool on) {
        for (TrainingChart* chart : {lossChart_, divergenceChart_, rateChart_, lostChart_})
            chart->setBandView(on);
        refreshCharts();
    });
    connect(logScale_, &QCheckBox::toggled, this, [this](bool on) {
        for (TrainingChart* chart : charts())
            chart->setLogScale(on);
        refreshCharts();
    });
    for (TrainingChart* chart : charts())
        chart->setSmoothing(smoothing_->value() / 100.0);
}

void MainWindow::buildDock() {
    // Left: the experiment form.
    form_ = new ExperimentForm;
    auto* scroll = new QScrollArea;
    scroll->setWidget(form_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(360);
    auto* dock = new QDockWidget(tr("Experiment"), this);
    dock->setObjectName("ExperimentDock");
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

void MainWindow::buildToolbar() {
    // Run control and chart controls.
    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("RunToolbar");
    toolbar->addAction(startAction_);
    toolbar->addAction(pauseAction_);
    toolbar->addAction(stopAction_);
    toolbar->addAction(stepAction_);
    toolbar->addWidget(new QLabel(tr(" Pace ")));
    pace_ = new QSpinBox;
    pace_->setObjectName("pace");
    pace_->setRange(0, limits::kMaxPace);
    pace_->setSpecialValueText(tr("full speed"));
    pace_->setSuffix(tr(" steps/s"));
    pace_->setToolTip(tr("At most this many steps per second per worker, to watch a run and "
                         "talk over it; full speed at 0. Only the timing changes, not the "
                         "arithmetic. Takes effect at once, also during a run"));
    connect(pace_, &QSpinBox::valueChanged, this,
            [this](int v) { controller_->setPace(std::uint32_t(v)); });
    toolbar->addWidget(pace_);
    toolbar->addSeparator();
    toolbar->addWidget(new QLabel(tr(" Smoothing ")));
    smoothing_ = new QSlider(Qt::Horizontal);
    smoothing_->setRange(0, 99);
    smoothing_->setValue(60);
    smoothing_->setMaximumWidth(140);
    smoothing_->setToolTip(tr("Exponential moving average, debiased (as TensorBoard)"));
    toolbar->addWidget(smoothing_);
    smoothingValue_ = new QLabel(QStringLiteral("0.60 "));
    toolbar->addWidget(smoothingValue_);
    toolbar->addWidget(new QLabel(tr(" X axis ")));
    xAxis_ = new QComboBox;
    xAxis_->addItems({tr("Step"), tr("Samples"), tr("Wall time (s)")});
    toolbar->addWidget(xAxis_);
    logScale_ = new QCheckBox(tr("Log scale"));
    toolbar->addWidget(logScale_);
    band_ = new QCheckBox(tr("Mean and band"));
    band_->setObjectName("bandView");
    band_->setToolTip(tr("Instead of a line per worker: their mean and a band from the lowest "
                         "to the highest worker. On by itself for 8 workers or more"));
    toolbar->addWidget(band_);
}

void MainWindow::buildCentre() {
    // The charts above, workers and events below; explanation on the right.
    lossChart_ = new TrainingChart(tr("Loss per worker"), tr("loss"));
    divergenceChart_ = new TrainingChart(
        tr("Divergence per worker (staleness, or distance from the replica mean)"), tr("L2"));
    lostChart_ =
        new TrainingChart(tr("Lost updates, % of each worker's block writes"), tr("% lost"));
    lostChart_->setObjectName("lostUpdatesChart");
    lostChart_->hide(); // shown for runs that count them
    accuracyChart_ = new TrainingChart(tr("Test accuracy, % (each mark: one evaluation)"), tr("%"));
    accuracyChart_->setObjectName("accuracyChart");
    accuracyChart_->setYBounds(0, 100); // a percentage: never past 100%
    accuracyChart_->hide();             // shown once there is a test set or a run to compare
    rateChart_ = new TrainingChart(tr("Throughput per worker, samples/s"), tr("rate"));
    rateChart_->setObjectName("rateChart");
    lossChart_->setObjectName("lossChart");
    divergenceChart_->setObjectName("divergenceChart");
    for (TrainingChart* chart : {lossChart_, divergenceChart_, rateChart_})
        chart->setProperty("relevant", true); // before any run: empty, but there
    // The small charts share the loss chart's x axis: its title is said once.
    for (TrainingChart* chart : {accuracyChart_, divergenceChart_, rateChart_, lostChart_})
        chart->setXTitleVisible(false);
    // The loss over the width; below, two rows of two side by side (a hidden
    // chart gives its room to its neighbour, a row of hidden ones goes).
    chartSplitter_ = new QSplitter(Qt::Vertical);
    chartSplitter_->addWidget(lossChart_);
    for (const auto& [left, right] :
         {std::pair{accuracyChart_, divergenceChart_}, std::pair{rateChart_, lostChart_}}) {
        auto* row = new QSplitter(Qt::Horizontal);
        row->addWidget(left);
        row->addWidget(right);
        chartSplitter_->addWidget(row);
    }
    chartSplitter_->setStretchFactor(0, 3); // the loss chart gets the most room
    chartSplitter_->setStretchFactor(1, 2);
    chartSplitter_->setStretchFactor(2, 2);

    workerModel_ = new WorkerTableModel(this);
    workerTable_ = new QTableView;
    workerTable_->setModel(workerModel_);
    workerTable_->verticalHeader()->hide();
    workerTable_->horizontalHeader()->setStretchLastSection(true);
    workerTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    eventLog_ = new QPlainTextEdit;
    eventLog_->setReadOnly(true);
    eventLog_->setMaximumBlockCount(5000);
    auto* bottom = bottomTabs_ = new QTabWidget;
    bottom->addTab(workerTable_, tr("Workers"));
    bottom->addTab(eventLog_, tr("Events"));
    // Lines that came while the tab was hidden: show the newest on opening it.
    connect(bottom, &QTabWidget::currentChanged, this, [this](int) {
        if (eventLog_->isVisible() && eventLog_->textCursor().atEnd())
            eventLog_->verticalScrollBar()->setValue(eventLog_->verticalScrollBar()->maximum());
    });

    explanation_ = new ExplanationPane;

    // The verdict banner sits over the charts, where the eye is.
    verdict_ = new VerdictBanner;
    auto* charts = new QWidget;
    auto* chartsLayout = new QVBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(verdict_);
    chartsLayout->addWidget(chartSplitter_, 1);
    auto* centre = new QSplitter(Qt::Vertical);
    centre->addWidget(charts);
    centre->addWidget(bottom);
    centre->setStretchFactor(0, 3);
    centre->setStretchFactor(1, 1);
    mainSplitter_ = new QSplitter(Qt::Horizontal);
    mainSplitter_->addWidget(centre);
    mainSplitter_->addWidget(explanation_);
    mainSplitter_->setStretchFactor(0, 4);
    mainSplitter_->setStretchFactor(1, 1);
    setCentralWidget(mainSplitter_);
}

void MainWindow::updateActions() {
    const bool busy = controller_->busy();
    startAction_->setEnabled(!busy && form_->isValid());
    startAction_->setToolTip(form_->isValid()
                                 ? tr("Start training with the experiment on the left (Ctrl+R)")
                                 : tr("Fix the fields marked in red first"));
    pauseAction_->setEnabled(busy);
    stepAction_->setEnabled(controller_->canStep());
    if (presetsMenu_)
        presetsMenu_->setEnabled(!busy);
    stopAction_->setEnabled(busy);
    pauseAction_->setText(controller_->paused() ? tr("&Resume") : tr("&Pause"));
    pauseAction_->setIcon(style()->standardIcon(controller_->paused() ? QStyle::SP_MediaPlay
                                                                      : QStyle::SP_MediaPause));
    form_->setRunning(busy);
}

void MainWindow::logEvent(const QString& text, bool warning) {
    const QString stamp = QTime::currentTime().toString("HH:mm:ss");
    QScrollBar* bar = eventLog_->verticalScrollBar();
    // Follow new lines unless the reader scrolled up to read (hidden: follow).
    const bool follow = !eventLog_->isVisible() || bar->value() >= bar->maximum();
    eventLog_->appendPlainText(QStringLiteral("%1  %2%3").arg(stamp, warning ? "⚠ " : "", text));
    if (follow) {
        eventLog_->moveCursor(QTextCursor::End);
        bar->setValue(bar->maximum());
    }
}

QString MainWindow::eventLogText() const {
    return eventLog_->toPlainText();
}
QString MainWindow::explanationText() const {
    return explanation_->toPlainText();
}

void MainWindow::startRun() {
    if (controller_->busy() || !form_->isValid())
        return;
    // A comparison preset, as it was applied: Start makes each of its runs.
    if (!explanation_->modified())
        for (const hwl::Preset& p : presets_)
            if (QString::fromStdString(p.id) == explanation_->activePreset() &&
                !p.compare.empty()) {
                startComparison(p.compare);
                return;
            }
    comparison_.reset();
    startConfig(form_->config());
}

bool MainWindow::startComparison(const std::vector<PresetRun>& runs) {
    if (controller_->busy() || runs.empty())
        return false;
    comparison_.emplace(runs);
    logEvent(tr("Comparison: %1 runs, one after another; each stays in the Runs tab, "
                "overlaid on the next. Stop ends the comparison")
                 .arg(runs.size()));
    startConfig(comparison_->current()->config);
    return true;
}

void MainWindow::startConfig(const ExperimentConfig& config) {
    if (config.workers > QThread::idealThreadCount())
        logEvent(tr("%1 workers on %2 cores: they will time-share the CPUs, so adding workers "
                    "past the core count will not add throughput")
                     .arg(config.workers)
                     .arg(QThread::idealThreadCount()),
                 true);
    if (comparison_ && comparison_->current())
        logEvent(tr("Comparison run %1 of %2: %3")
                     .arg(comparison_->index() + 1)
                     .arg(comparison_->size())
                     .arg(QString::fromStdString(comparison_->current()->label)));
    prepareCharts(config);
    deathsMarked_.clear();
    verdict_->hide();
    workerModel_->setRows({});
    controller_->start(config);
    // Kept at once (and synced), so that a crash of the app loses no experiment.
    QSettings settings;
    settings.setValue(kLastStartedKey, QString::fromStdString(config.toJson()));
    settings.sync();
    lastStartedAction_->setEnabled(true);
    updateActions();
}

void MainWindow::togglePause() {
    if (!controller_->busy())
        return;
    if (controller_->paused()) {
        controller_->resume();
        logEvent(tr("Resumed"));
    } else {
        controller_->pause();
        logEvent(tr("Paused: every worker waits after its current step"));
    }
    updateActions();
}

void MainWindow::stopRun() {
    if (!controller_->busy())
        return;
    controller_->stop();
    if (comparison_)
        logEvent(tr("The comparison ends with this run"));
    comparison_.reset();
    logEvent(tr("Stop requested"));
}

void MainWindow::onStarted(int workers, const QStringList& notes) {
    const ExperimentConfig& c = controller_->run()->config();
    logEvent(tr("Run started: %1 on %2, mode %3, %4 worker(s), %5 epochs")
                 .arg(QString::fromStdString(c.model), QString::fromStdString(c.dataset),
                      QString::fromStdString(controller_->run()->info().mode))
                 .arg(workers)
                 .arg(c.epochs));
    for (const auto& note : notes)
        logEvent(note, true);
    showChart(accuracyChart_,
              controller_->run()->info().testRows > 0 || accuracyChart_->overlayCount() > 0);
    updateActions();
}

void MainWindow::onFinished(const RunSummary& s) {
    refreshCharts();
    keepFinishedRun(s);
    continueComparison(s);
    QString line = tr("Run %1 after %2 epochs: %3 samples/s over %4 s")
                       .arg(QString::fromLatin1(toString(s.state)))
                       .arg(s.epochsCompleted)
                       .arg(s.samplesPerSecond, 0, 'f', 0)
                       .arg(s.trainSeconds, 0, 'f', 2);
    if (s.evaluated)
        line += tr(", test accuracy %1%").arg(100.0 * s.testAccuracy, 0, 'f', 2);
    logEvent(line, s.state == RunState::Failed);
    if (controller_->run())
        verdict_->showVerdict(verdictOf(controller_->run()->config(), s));
    if (!s.failure.empty())
        logEvent(tr("Failure: %1").arg(QString::fromStdString(s.failure)), true);
    statusLabel_->setText(line);
    updateActions();
}

bool MainWindow::applyPreset(const QString& name) {
    if (controller_->busy()) {
        logEvent(tr("Presets wait until the run ends: stop it first"), true);
        return false;
    }
    for (const hwl::Preset& preset : presets_) {
        const QString presetName = QString::fromStdString(preset.name);
        if (presetName != name && QString::fromStdString(preset.id) != name)
            continue;
        explanation_->showPreset(preset); // before the form, whose change it then compares
        runName_ = presetName;
        form_->setConfig(preset.config);
        pace_->setValue(int(preset.pace));
        logEvent(tr("Preset: %1").arg(presetName));
        return true;
    }
    return false;
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray())) {
        // First start: most of the screen it opens on (a 1280x720 projector
        // included), not a fixed size that hides the explanation there.
        const QRect screen =
            this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        resize(std::min(1600, screen.width() * 9 / 10), std::min(1000, screen.height() * 9 / 10));
    }
    restoreState(settings.value("window/state").toByteArray());
    mainSplitter_->restoreState(settings.value("window/mainSplitter").toByteArray());
    chartSplitter_->restoreState(settings.value("window/chartRows").toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/mainSplitter", mainSplitter_->saveState());
    settings.setValue("window/chartRows", chartSplitter_->saveState());
    comparison_.reset(); // no next run
    controller_->stop(); // the controller's destructor waits for the workers
    event->accept();
}

} // namespace hwl::ui
