#include "window/mainwindow.h"

#include "charts/timelineview.h"
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
#include "widgets/fittingscrollarea.h"
#include "widgets/numbers.h"
#include "widgets/statusline.h"
#include "window/chartcontrols.h"
#include "window/chartgrid.h"
#include "window/comparisondriver.h"
#include "window/experimentfiles.h"
#include "window/presentationmode.h"
#include "window/progress.h"
#include "window/runcharts.h"
#include "window/tensorboardlogs.h"
#include "window/windowtheme.h"

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
#include <QResizeEvent>
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
    charts_ = new RunCharts(this);
    connect(charts_, &RunCharts::redrawDue, this, &MainWindow::refreshCharts);
    connect(charts_, &RunCharts::eventLogged, this, &MainWindow::logEvent);
    comparison_ = new ComparisonDriver(this);
    buildActions();
    buildLayout();
    buildParts();
    buildRunList();
    wireMeasuredRuns();
    buildMenus();

    connect(controller_, &RunController::preparing, this, [this](const QString& what) {
        statusLabel_->setStatus(what);
        logEvent(tr("Preparing: %1").arg(what));
        updateActions();
    });
    connect(controller_, &RunController::started, this, &MainWindow::onStarted);
    connect(controller_, &RunController::failedToStart, this, [this](const QString& engine) {
        const QString message = form_->inFormWords({}, engine); // "Learning rate", not "--lr"
        comparison_->stop(); // a comparison stops at a run that cannot start
        logEvent(tr("Could not start: %1").arg(message), true);
        statusLabel_->setStatus(tr("Could not start"));
        updateActions();
        // Said over the charts, where it stays (a refusal is a preset's lesson:
        // cuda-before-fork), and in a box the user dismisses.
        verdict_->showVerdict(
            {Verdict::Problem, tr("The run could not start"), message, {}, {}, {}});
        if (interactive_)
            QMessageBox::warning(this, tr("Could not start the run"), message);
    });
    connect(controller_, &RunController::stoppedWhileLoading, this, [this] {
        statusLabel_->setStatus(tr("Stopped while loading"));
        updateActions();
    });
    connect(controller_, &RunController::samplesArrived, this, [this](const QList<Sample>& s) {
        const Run* run = controller_->run();
        charts_->addSamples(s, run ? run->config().epochs : 1, run ? run->config().workers : 1,
                            run && run->info().testRows > 0);
    });
    connect(controller_, &RunController::finished, this, &MainWindow::onFinished);
    connect(controller_, &RunController::eventLogged, this, [this](const QString& line, bool warn) {
        logEvent(form_->inFormWords({}, line), warn);
    });
    connect(form_, &ExperimentForm::validityChanged, this, &MainWindow::updateActions);
    connect(form_, &ExperimentForm::changed, this, &MainWindow::updateActions);
    // GPU modes say at once whether this machine can run them (in the background).
    form_->startGpuProbe();

    restoreSettings();
    if (QSettings().value(PresentationMode::kSettingsKey, false).toBool())
        setPresentation(true);
    connect(explanation_, &ExplanationPane::instrumentRequested, this, [this](const QString& what) {
        if (what == QLatin1String("race-stepper"))
            raceStepper()->show();
        else if (what == QLatin1String("counter-toy"))
            counterToy()->show();
    });
    connect(form_, &ExperimentForm::changed, this,
            [this] { explanation_->formChanged(form_->config()); });
    if (const hwl::Preset* p = hwl::findPreset(presets_, hwl::kDefaultPresetId)) {
        explanation_->showPreset(*p); // the default experiment's
        runName_ = QString::fromStdString(p->name);
        pace_->setValue(int(p->pace)); // as its text says ("runs at 200 steps per second")
    }
    for (const hwl::PresetProblem& problem : presetProblems_)
        logEvent(QString::fromStdString(problem.message), true);
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildParts() {
    theme_ = new WindowTheme(this);
    connect(theme_, &WindowTheme::changed, this, [this](bool dark) {
        form_->setDarkStyle(dark);
        for (TrainingChart* chart : charts_->all())
            chart->setDarkTheme(dark);
    });
    files_ = new ExperimentFiles(form_, explanation_, controller_, this);
    connect(files_, &ExperimentFiles::eventLogged, this, &MainWindow::logEvent);
    connect(files_, &ExperimentFiles::statusShown, statusLabel_, &StatusLine::showNote);
    files_->setRunOpener([this](const QString& path, bool quiet, QString* why) {
        return openRun(path, quiet, why);
    });
}

void MainWindow::prepareCharts(const ExperimentConfig& config) {
    charts_->prepare(config, comparison_->record());
    const QString label = runLabel(config);
    for (TrainingChart* chart : charts_->all())
        chart->setLiveName(label.isEmpty() ? tr("this run") : label);
    runOnCharts_.clear();
    // Many workers read best as a mean and a band, unless the user chose.
    if (chartControls_->suggestBand(config.workers))
        logEvent(tr("%1 workers: the charts show their mean and range (untick Mean and "
                    "band for a line each)")
                     .arg(config.workers));
}

void MainWindow::refreshCharts() {
    charts_->refresh(isVisible());
}

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
    QToolBar* toolbar = buildToolbar();
    buildCentre();
    presentation_ = new PresentationMode(
        {this, dock_, explanation_, mainSplitter_, centreSplitter_, bottomTabs_, grid_}, toolbar);
    // The teaching dialogs and the Timeline grow with the charts. (The verdict banner does
    // not: at 1024x768 a comparison's larger table left the loss chart too
    // short a plot.)
    connect(presentation_, &PresentationMode::toggled, this, [this](bool on) {
        for (QWidget* w : {static_cast<QWidget*>(raceStepper_), static_cast<QWidget*>(counterToy_),
                           static_cast<QWidget*>(bottomTabs_->findChild<TimelinePanel*>())})
            PresentationMode::scaleFont(w, on);
    });
    statusLabel_ = new StatusLine(tr("Ready"));
    statusBar()->addWidget(statusLabel_, 1);
    progress_ = new RunProgress;
    statusBar()->addPermanentWidget(progress_);
    wireProgress();
}

void MainWindow::wireProgress() {
    connect(controller_, &RunController::workersUpdated, this,
            [this](const QList<WorkerRow>& rows) {
                workerModel_->setRows(rows);
                charts_->addWorkerRows(rows, controller_->elapsed());
                double rate = 0;
                for (const auto& r : rows)
                    rate += r.samplesPerSecond;
                if (controller_->busy())
                    statusLabel_->setStatus(
                        tr("%1 — %2 samples/s")
                            .arg(controller_->paused() ? tr("Paused") : tr("Running"))
                            .arg(formatDecimal(rate, 0)));
            });
    connect(controller_, &RunController::started, this, [this] {
        progress_->start(controller_->run()->config().epochs,
                         controller_->run()->info().samplesPerEpoch);
    });
    connect(controller_, &RunController::workersUpdated, this,
            [this](const QList<WorkerRow>& rows) {
                if (controller_->busy())
                    progress_->update(rows, controller_->elapsed(), controller_->paused());
            });
    connect(controller_, &RunController::finished, this, [this](const RunSummary& s) {
        progress_->finish(s.epochsCompleted, s.target.reached && s.state == RunState::Finished);
    });
    connect(controller_, &RunController::failedToStart, progress_, &QWidget::hide);
    connect(controller_, &RunController::stoppedWhileLoading, progress_, &QWidget::hide);
}

void MainWindow::buildDock() {
    // Left: the experiment form.
    form_ = new ExperimentForm;
    auto* scroll = new FittingScrollArea(form_, 360); // every mode's rows in view
    auto* dock = dock_ = new QDockWidget(tr("Experiment"), this);
    dock->setObjectName("ExperimentDock");
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

QToolBar* MainWindow::buildToolbar() {
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
    chartControls_ = new ChartControls(charts_, toolbar);
    connect(chartControls_, &ChartControls::redrawRequested, this, &MainWindow::refreshCharts);
    return toolbar;
}

void MainWindow::buildCentre() {
    // The charts above, workers and events below; explanation on the right.
    workerModel_ = new WorkerTableModel(this);
    auto* workerTable = new QTableView;
    workerModel_->setUpView(workerTable);
    eventLog_ = new QPlainTextEdit;
    eventLog_->setReadOnly(true);
    eventLog_->setMaximumBlockCount(5000);
    auto* bottom = bottomTabs_ = new QTabWidget;
    bottom->addTab(workerTable, tr("Workers"));
    auto* timeline = new TimelinePanel;
    bottom->addTab(timeline, tr("Timeline"));
    connect(controller_, &RunController::started, timeline, [this, timeline] {
        const ExperimentConfig& c = controller_->run()->config();
        QString name = tr("%1, %2 %3")
                           .arg(QString::fromStdString(c.mode))
                           .arg(c.workers)
                           .arg(c.workers == 1 ? tr("worker") : tr("workers"));
        if (comparison_->runIndex() >= 0 && comparison_->current())
            name = QString::fromStdString(comparison_->current()->label) + " · " + name;
        timeline->startRun(name, c.workers, Run::kTraceSliceNs);
    });
    connect(controller_, &RunController::traceArrived, timeline, [timeline](const TraceBatch& b) {
        timeline->view()->add(b.slices, b.spans, b.startNs);
    });
    bottom->addTab(eventLog_, tr("Events"));
    // Lines that came while the tab was hidden: show the newest on opening it.
    connect(bottom, &QTabWidget::currentChanged, this, [this](int) {
        if (eventLog_->isVisible() && eventLog_->textCursor().atEnd())
            eventLog_->verticalScrollBar()->setValue(eventLog_->verticalScrollBar()->maximum());
    });

    explanation_ = new ExplanationPane;

    verdict_ = new VerdictBanner;
    QWidget* charts = grid_ = new ChartGrid(charts_, verdict_);
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
QString MainWindow::statusText() const {
    return statusLabel_->text();
}
QString MainWindow::statusNote() const {
    return statusLabel_->note();
}

bool MainWindow::progressShown() const {
    return !progress_->isHidden();
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
    comparison_->stop();
    startConfig(form_->config());
}

void MainWindow::startConfig(const ExperimentConfig& experiment) {
    ExperimentConfig config = experiment;
    bool replaceOut = false;
    if (!files_->confirmOutFolder(config, &replaceOut))
        return; // cancelled: nothing starts, nothing is replaced
    if (!config.out.empty())
        logEvent(tr("Out: this run writes its files into %1 when it ends (the experiment's out%2)")
                     .arg(QString::fromStdString(config.out),
                          replaceOut ? tr(", replacing the run there") : QString()),
                 false);
    config.tensorboard = tensorBoard_->logdirOf(config); // the run makes its folder there
    if (config.workers > QThread::idealThreadCount())
        logEvent(tr("%1 workers on %2 cores: they will time-share the CPUs, so adding workers "
                    "past the core count will not add throughput")
                     .arg(config.workers)
                     .arg(QThread::idealThreadCount()),
                 true);
    // The window's drawing shares the cores with workers that take them all.
    charts_->setCoresShared(config.workers >= QThread::idealThreadCount());
    if (config.workers == QThread::idealThreadCount())
        logEvent(tr("%1 workers on %1 cores: the charts, redrawn 4 to 10 times a second, take "
                    "some of the workers' time, so a run here makes a few percent fewer "
                    "samples/s than hogwild-lab --headless (measured 4-7% on 2 cores)")
                     .arg(config.workers));
    comparison_->runStarting(); // a run of its own ends the comparison
    chartedModel_ = QString::fromStdString(config.model);
    chartedDataset_ = QString::fromStdString(config.dataset);
    prepareCharts(config);
    verdict_->hide();
    workerModel_->setRows({});
    updateOverlays(); // against this run's model and dataset
    controller_->start(config, replaceOut);
    ExperimentFiles::rememberStarted(experiment); // at once: a crash loses no experiment
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
    if (comparison_->runIndex() >= 0)
        logEvent(tr("The comparison ends with this run"));
    comparison_->stop();
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
    charts_->show(charts_->accuracy(), controller_->run()->info().testRows > 0 ||
                                           charts_->accuracy()->overlayCount() > 0);
    updateActions();
}

void MainWindow::onFinished(const RunSummary& engine) {
    // What the engine says of the run, in the form's words ("lower the
    // learning rate (Learning rate)", not "(--lr)").
    RunSummary s = engine;
    s.failure = form_->inFormWords({}, QString::fromStdString(s.failure)).toStdString();
    s.outcomeReason = form_->inFormWords({}, QString::fromStdString(s.outcomeReason)).toStdString();
    for (std::string& failure : s.workerFailures)
        failure = form_->inFormWords({}, QString::fromStdString(failure)).toStdString();
    refreshCharts();
    keepFinishedRun(s);
    if (const Run* run = controller_->run())
        comparison_->recordRun(s, workersAreProcesses(run->config()),
                               medianDivergence(controller_->metrics()));
    comparison_->runEnded(s);
    QString line = (s.epochsCompleted == 1 ? tr("Run %1 after %2 epoch: %3 samples/s over %4")
                                           : tr("Run %1 after %2 epochs: %3 samples/s over %4"))
                       .arg(QString::fromLatin1(stateName(s.state)), formatCount(s.epochsCompleted),
                            formatDecimal(s.samplesPerSecond, 0), formatDuration(s.trainSeconds));
    if (s.evaluated)
        line += tr(", test accuracy %1%").arg(formatDecimal(100.0 * s.testAccuracy, 2));
    logEvent(line, s.state == RunState::Failed);
    // A comparison's verdict is its table, once its last run ended (while
    // its next run starts: none).
    if (comparison_->runIndex() < 0 && comparison_->record())
        comparison_->end();
    else if (comparison_->runIndex() < 0 && controller_->run())
        verdict_->showVerdict(verdictOf(controller_->run()->config(), s, controller_->pace()));
    if (!s.failure.empty())
        logEvent(tr("Failure: %1").arg(QString::fromStdString(s.failure)), true);
    statusLabel_->setStatus(line);
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
        workerModel_->setRows({});
        chartedModel_ = QString::fromStdString(preset.config.model);
        chartedDataset_ = QString::fromStdString(preset.config.dataset);
        prepareCharts(preset.config);
        updateOverlays();
        refreshCharts();
        logEvent(tr("Preset: %1").arg(presetName));
        statusLabel_->setStatus(tr("Ready: %1").arg(presetName)); // not the last lesson's end
        progress_->hide();
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
    grid_->restoreState(settings.value("window/chartRows").toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    // In presentation, the layout to come back to is the one it replaced.
    settings.setValue("window/state", presentation_->normalWindowState());
    settings.setValue("window/mainSplitter", presentation_->normalMainState());
    settings.setValue("window/chartRows", grid_->saveState());
    comparison_->stop(); // no next run
    controller_->stop(); // the controller's destructor waits for the workers
    event->accept();
}

void MainWindow::setPresentation(bool on, bool remember) {
    presentation_->setOn(on, remember);
}

int MainWindow::comparisonRun() const {
    return comparison_->runIndex();
}

QCheckBox* MainWindow::bandBox() const {
    return chartControls_->band();
}

bool MainWindow::presentation() const {
    return presentation_->isOn();
}

QAction* MainWindow::presentationAction() const {
    return presentation_->action();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // Once per window: a small window squeezes the charts, presentation
    // gives them the room.
    if (!smallHintShown_ && !presentation_->isOn() &&
        (event->size().width() < kSmallWidth || event->size().height() < kSmallHeight)) {
        smallHintShown_ = true;
        // Once the window shows: a message given before would be drawn over
        // the status bar's own text.
        QTimer::singleShot(0, this, [this] {
            statusLabel_->showNote(
                tr("Small window: View > Presentation gives the charts the room (F5)"), 20000);
        });
    }
}

} // namespace hwl::ui
