#include "window/mainwindow.h"

#include "widgets/numbers.h"
#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/workertablemodel.h"
#include "teaching/comparisonverdict.h"
#include "teaching/countertoydialog.h"
#include "teaching/explanationpane.h"
#include "teaching/racestepper.h"
#include "teaching/verdict.h"
#include "window/progress.h"

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
                                          .arg(formatDecimal(rate, 0)));
        });
    connect(controller_, &RunController::finished, this, &MainWindow::onFinished);
    connect(controller_, &RunController::eventLogged, this, &MainWindow::logEvent);
    connect(form_, &ExperimentForm::validityChanged, this, &MainWindow::updateActions);
    connect(form_, &ExperimentForm::changed, this, &MainWindow::updateActions);
    // GPU modes say at once whether this machine can run them (in the background).
    form_->startGpuProbe();

    restoreSettings();
    if (QSettings().value(kPresentationKey, false).toBool())
        setPresentation(true);
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
    progress_ = new RunProgress;
    statusBar()->addPermanentWidget(progress_);
    wireProgress();
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
        for (TrainingChart* chart :
             {lossChart_, divergenceChart_, rateChart_, lostChart_, lrChart_})
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

void MainWindow::wireProgress() {
    connect(controller_, &RunController::started, this, [this] {
        progress_->start(controller_->run()->config().epochs,
                         controller_->run()->info().samplesPerEpoch);
    });
    connect(controller_, &RunController::workersUpdated, this,
            [this](const QList<WorkerRow>& rows) {
                if (controller_->busy())
                    progress_->update(rows, controller_->elapsed(), controller_->paused());
            });
    connect(controller_, &RunController::finished, this,
            [this](const RunSummary& s) { progress_->finish(s.epochsCompleted); });
    connect(controller_, &RunController::failedToStart, progress_, &QWidget::hide);
    connect(controller_, &RunController::stoppedWhileLoading, progress_, &QWidget::hide);
}

void MainWindow::buildDock() {
    // Left: the experiment form.
    form_ = new ExperimentForm;
    auto* scroll = new QScrollArea;
    scroll->setWidget(form_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(360);
    auto* dock = dock_ = new QDockWidget(tr("Experiment"), this);
    dock->setObjectName("ExperimentDock");
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

void MainWindow::buildToolbar() {
    // Run control and chart controls.
    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("RunToolbar");
    buildPresentationActions(toolbar);
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
    buildCharts();
    // The loss over the width; below, two rows of two (the second may hold
    // a third, the learning rate) side by side (a hidden
    // chart gives its room to its neighbour, a row of hidden ones goes).
    chartSplitter_ = new QSplitter(Qt::Vertical);
    chartSplitter_->addWidget(lossChart_);
    chartSplitter_->setChildrenCollapsible(false); // a chart is shown readable, or not at all
    for (int i = 0; i < 2; ++i) {
        auto* row = chartRows_[i] = new QSplitter(Qt::Horizontal);
        row->setChildrenCollapsible(false);
        row->addWidget(i == 0 ? accuracyChart_ : rateChart_);
        row->addWidget(i == 0 ? divergenceChart_ : lostChart_);
        if (i == 1)
            row->addWidget(lrChart_);
        chartSplitter_->addWidget(row);
    }
    chartSplitter_->setStretchFactor(0, 3); // the loss chart gets the most room
    chartSplitter_->setStretchFactor(1, 2);
    chartSplitter_->setStretchFactor(2, 2);

    workerModel_ = new WorkerTableModel(this);
    workerTable_ = new QTableView;
    workerModel_->setUpView(workerTable_);
    eventLog_ = new QPlainTextEdit;
    eventLog_->setReadOnly(true);
    eventLog_->setMaximumBlockCount(5000);
    auto* bottom = bottomTabs_ = new QTabWidget;
    bottom->addTab(workerTable_, tr("Workers"));
    bottom->addTab(eventLog_, tr("Events"));
    // Lines that came while the tab was hidden: show the newest on opening it.
    // In presentation the tabs are a strip: a click opens them, a click on
    // the open tab folds them again.
    connect(bottom, &QTabWidget::tabBarClicked, this, [this](int i) {
        if (presentation_)
            setBottomTabsCollapsed(!bottomTabs_->property("collapsed").toBool() &&
                                   i == bottomTabs_->currentIndex());
    });
    connect(bottom, &QTabWidget::currentChanged, this, [this](int) {
        if (eventLog_->isVisible() && eventLog_->textCursor().atEnd())
            eventLog_->verticalScrollBar()->setValue(eventLog_->verticalScrollBar()->maximum());
    });

    explanation_ = new ExplanationPane;

    QWidget* charts = buildChartsArea();
    auto* centre = centreSplitter_ = new QSplitter(Qt::Vertical);
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

QWidget* MainWindow::buildChartsArea() {
    // The verdict banner sits over the charts, where the eye is; a long one
    // scrolls rather than squeezing the charts (fitChartRows() bounds it).
    verdict_ = new VerdictBanner;
    verdictScroll_ = new QScrollArea;
    verdictScroll_->setObjectName("verdictArea");
    verdictScroll_->setWidget(verdict_);
    verdictScroll_->setWidgetResizable(true);
    verdictScroll_->setFrameShape(QFrame::NoFrame);
    verdictScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    verdict_->hide();       // setWidget() showed it: hidden until a run ends
    verdictScroll_->hide(); // with the banner
    verdict_->installEventFilter(this);
    auto* charts = chartsArea_ = new QWidget;
    charts->installEventFilter(this);
    auto* chartsLayout = new QVBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(verdictScroll_);
    chartsLayout->addWidget(chartSplitter_, 1);
    return charts;
}

void MainWindow::updateActions() {
    const bool busy = controller_->busy();
    startAction_->setEnabled(!busy && form_->isValid());
    // Invalid: which field and why, in the form's words (it may be out of view).
    startAction_->setToolTip(form_->isValid()
                                 ? tr("Start training with the experiment on the left (Ctrl+R)")
                                 : form_->problemSummary());
    pauseAction_->setEnabled(busy);
    stepAction_->setEnabled(controller_->canStep());
    if (sweepAction_)
        sweepAction_->setEnabled(!busy);
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
    // What it compares comes from its preset (a comparison of no preset: samples/s).
    const hwl::Preset* preset = comparingPreset(presets_, explanation_->activePreset(), runs);
    compared_ = std::make_unique<ComparisonRecord>();
    compared_->title = preset ? QString::fromStdString(preset->name) : tr("Comparison");
    compared_->figure = preset ? preset->compares : hwl::ComparedFigure::None;
    compared_->planned = int(runs.size());
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

void MainWindow::startConfig(const ExperimentConfig& experiment) {
    ExperimentConfig config = experiment;
    if (config.tensorboard.empty())
        config.tensorboard = tensorBoardDir_.toStdString();
    if (!config.tensorboard.empty()) // each run its own folder under the chosen one
        config.tensorboard =
            tensorBoardRunFolder(QString::fromStdString(config.tensorboard),
                                 comparison_ && comparison_->current()
                                     ? QString::fromStdString(comparison_->current()->label)
                                     : QString())
                .toStdString();
    if (config.workers > QThread::idealThreadCount())
        logEvent(tr("%1 workers on %2 cores: they will time-share the CPUs, so adding workers "
                    "past the core count will not add throughput")
                     .arg(config.workers)
                     .arg(QThread::idealThreadCount()),
                 true);
    if (comparison_ && comparison_->current() && compared_) {
        compared_->current = QString::fromStdString(comparison_->current()->label);
        const QString run = formatCount(std::uint64_t(comparison_->index() + 1));
        const QString of = formatCount(std::uint64_t(comparison_->size()));
        logEvent(tr("Comparison run %1 of %2: %3").arg(run, of, compared_->current));
        comparisonStatus_->setText(tr("Run %1 of %2: %3").arg(run, of, compared_->current));
        comparisonStatus_->show();
    } else {
        endComparison(); // a run of its own: no comparison table at its end
    }
    chartedModel_ = QString::fromStdString(config.model);
    chartedDataset_ = QString::fromStdString(config.dataset);
    prepareCharts(config);
    deathsMarked_.clear();
    verdict_->hide();
    workerModel_->setRows({});
    updateOverlays(); // against this run's model and dataset
    controller_->start(config);
    // Kept at once (and synced), so that a crash of the app loses no experiment.
    QSettings settings;
    settings.setValue(kLastStartedKey, QString::fromStdString(experiment.toJson()));
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
                 .arg(formatCount(c.epochs)));
    for (const auto& note : notes)
        logEvent(note, true);
    showChart(accuracyChart_,
              controller_->run()->info().testRows > 0 || accuracyChart_->overlayCount() > 0);
    updateActions();
}

void MainWindow::onFinished(const RunSummary& s) {
    refreshCharts();
    keepFinishedRun(s);
    recordComparedRun(s);
    continueComparison(s);
    QString line = tr("Run %1 after %2 epochs: %3 samples/s over %4 s")
                       .arg(QString::fromLatin1(stateName(s.state)), formatCount(s.epochsCompleted),
                            formatDecimal(s.samplesPerSecond, 0), formatDecimal(s.trainSeconds, 2));
    if (s.evaluated)
        line += tr(", test accuracy %1%").arg(formatDecimal(100.0 * s.testAccuracy, 2));
    logEvent(line, s.state == RunState::Failed);
    // A comparison's verdict is its table, once its last run ended (while
    // its next run starts: none).
    if (!comparison_ && compared_)
        endComparison();
    else if (!comparison_ && controller_->run())
        verdict_->showVerdict(verdictOf(controller_->run()->config(), s, controller_->pace()));
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
        // The new explanation is not left under the last run's verdict and curves.
        verdict_->hide();
        deathsMarked_.clear();
        workerModel_->setRows({});
        chartedModel_ = QString::fromStdString(preset.config.model);
        chartedDataset_ = QString::fromStdString(preset.config.dataset);
        prepareCharts(preset.config);
        updateOverlays();
        refreshCharts();
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
    // In presentation, the layout to come back to is the one it replaced.
    settings.setValue("window/state", presentation_ ? normalState_ : saveState());
    settings.setValue("window/mainSplitter",
                      presentation_ ? normalMain_ : mainSplitter_->saveState());
    settings.setValue("window/chartRows", chartSplitter_->saveState());
    comparison_.reset(); // no next run
    controller_->stop(); // the controller's destructor waits for the workers
    event->accept();
}

} // namespace hwl::ui
