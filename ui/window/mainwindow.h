#pragma once
// MainWindow: configure an experiment, start / pause / stop it, and watch
// every worker's loss and divergence live. Talks to the engine only through
// RunController (the run API and the telemetry segment). GUI thread only.
#include "runs/runcontroller.h"
#include "window/runcharts.h"

#include "preset/presets.h"

#include <QMainWindow>

class QAction;
class QCheckBox;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QToolBar;

namespace hwl::ui {

class ChartControls;
class ChartGrid;
class ComparisonDriver;
class CounterToyDialog;
class PresentationMode;
class RaceStepperDialog;
class RecentFiles;
class ExperimentFiles;
class ExperimentForm;
class ExplanationPane;
class MeasuredRuns;
class RunLibrary;
class RunListPanel;
class RunProgress;
struct SavedRun;
class StatusLine;
class TensorBoardLogs;
class TrainingChart;
class VerdictBanner;
class WindowTheme;
class WorkerTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // For tests and the screenshot command.
    ExperimentForm* form() const { return form_; }
    RunCharts* runCharts() const { return charts_; }
    TrainingChart* lossChart() const { return charts_->loss(); }
    TrainingChart* divergenceChart() const { return charts_->divergence(); }
    TrainingChart* lostUpdatesChart() const { return charts_->lostUpdates(); }
    TrainingChart* learningRateChart() const { return charts_->learningRate(); }
    TrainingChart* accuracyChart() const { return charts_->accuracy(); }
    TrainingChart* rateChart() const { return charts_->rate(); }
    RunLibrary* runLibrary() const { return runs_; }
    RunListPanel* runListPanel() const { return runPanel_; }
    WorkerTableModel* workerModel() const { return workerModel_; }
    RunController* controller() const { return controller_; }
    QAction* startAction() const { return startAction_; }
    QAction* pauseAction() const { return pauseAction_; }
    QAction* stopAction() const { return stopAction_; }
    QAction* stepAction() const { return stepAction_; }
    QAction* sweepAction() const { return sweepAction_; } ///< Run > Sweep…
    VerdictBanner* verdictBanner() const { return verdict_; }
    /// Whether a run that cannot start also opens a message box (besides the
    /// banner and the event log); off for --screenshot, which no one
    /// dismisses.
    void setInteractive(bool on) { interactive_ = on; }
    QSpinBox* paceBox() const { return pace_; }
    QCheckBox* bandBox() const;
    QString eventLogText() const;
    RunProgress* runProgress() const { return progress_; }
    QTabWidget* bottomTabs() const { return bottomTabs_; }
    QAction* presentationAction() const;
    ChartGrid* chartGrid() const { return grid_; }

    /// Presentation, for a projector (PresentationMode).
    void setPresentation(bool on, bool remember = true); ///< remember: in QSettings
    bool presentation() const;
    /// Shows the tab under the charts named `name` (its title, any case:
    /// "timeline"), opened in presentation; false when none is so named.
    bool openTab(const QString& name);
    QString explanationText() const;

    /// Experiments, weights, metrics and charts opened and saved, and any
    /// file opened by what it is (the command line, drops, Open recent).
    ExperimentFiles* files() const { return files_; }
    /// The status bar's text (left: the state, or a note up for a while in
    /// its place), the note alone, and whether its progress shows.
    QString statusText() const;
    QString statusNote() const;
    bool progressShown() const;
    /// Adds the run a metrics.csv or a --out folder holds to the run list
    /// (and overlays it), or every run below a folder of runs (a sweep's,
    /// unticked; openRunFolders()); false with the reason (a message box
    /// unless quiet).
    bool openRun(const QString& path, bool quiet = false, QString* why = nullptr);
    RecentFiles* recent() const { return recent_; } ///< File > Open recent
    WindowTheme* theme() const { return theme_; }
    /// The Presets menu's counter toy and race stepper, made on first use.
    CounterToyDialog* counterToy();
    RaceStepperDialog* raceStepper();
    /// Makes `runs` one after another (what Start does for a comparison
    /// preset applied as it is); false while a run goes.
    bool startComparison(const std::vector<hwl::PresetRun>& runs);
    /// Run > Sweep…: a SweepDialog's runs made as a comparison; false when
    /// cancelled, or refused (in the event log) while the form is invalid.
    bool openSweep();
    /// Run > TensorBoard logs… (an experiment's own "tensorboard" wins).
    TensorBoardLogs* tensorBoard() const { return tensorBoard_; }
    int comparisonRun() const; ///< the comparison's run going (0-based), -1: none
    /// Applies a preset by id or name (see presets()): its experiment, its
    /// pace and its explanation; false if unknown or while a run goes.
    bool applyPreset(const QString& name);

public slots:
    void startRun();
    void togglePause();
    void stopRun();

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override; ///< the small-window hint

private:
    /// Every run below `dir` (a sweep's folder, a comparison's, any tree as
    /// --compare walks it) into the run list, unticked, with progress; the
    /// table folds repeats when there are any.
    bool openRunFolders(const QString& dir, bool quiet, QString* why);
    /// Says why nothing was opened: the event log, `why`, a box unless quiet.
    void refuseOpen(const QString& error, bool quiet, QString* why);
    /// Below this size (and not in presentation) the status bar suggests it.
    static constexpr int kSmallWidth = 1400, kSmallHeight = 850;

    // mainwindowmenus.cpp: the menu bar (the files' work is ExperimentFiles's).
    void buildMenus();
    void addSweepAction(QMenu* run); ///< mainwindowsweep.cpp, with TensorBoard logs…
    void addTensorBoardAction(QMenu* run);

    void buildActions();
    void buildLayout();
    void buildParts(); ///< the theme and the files, once the form is there
    void buildDock();
    QToolBar* buildToolbar();
    void buildCentre();
    void updateActions();
    void logEvent(const QString& text, bool warning = false);
    void restoreSettings();
    void onStarted(int workers, const QStringList& notes);
    void onFinished(const hwl::RunSummary& summary);
    void refreshCharts();
    /// RunCharts::prepare(), and the mean and band for many workers.
    void prepareCharts(const ExperimentConfig& config);

    // mainwindowruns.cpp: the run list and its overlays; mainwindowview.cpp:
    // the View menu, which charts show, the theme.
    void buildRunList();
    /// The explanation's figures of this run ({{lost *}}): the runs so far.
    void wireMeasuredRuns();
    /// Keeps the run that ended in the run list (ticked in a comparison).
    void keepFinishedRun(const hwl::RunSummary& summary);
    /// What sets a run of `config` apart, the head of its name in the run
    /// list and the legends: a comparison's or sweep's label ("locked",
    /// "lr=0.1 workers=2"), the change a preset's text invited, else its
    /// mode and workers ("threads ×2"); empty for a preset as loaded.
    QString runLabel(const ExperimentConfig& config) const;
    /// The fields `config` changed from the active preset, with their
    /// values ("lr=0.1, dataset=teacher:4000x20:4"; past three, "2 more").
    QString changesOf(const ExperimentConfig& config) const;
    /// What sets each of `shown` apart from the others and the live run, for
    /// a legend short of room ("lr=0.1"; else the head of its name).
    QStringList namesApart(const QList<const SavedRun*>& shown) const;
    /// The user ticked a run: says so when it trained another workload.
    void onRunTicked(int index);
    void updateOverlays();
    void chooseRunToOpen(bool folder);
    void buildViewMenu();
    /// Starts `config` (the form's, or a comparison's next run).
    void startConfig(const ExperimentConfig& config);
    /// The live run into the worker table, the status line and the progress.
    void wireProgress();

    RunController* controller_ = nullptr;
    ExperimentForm* form_ = nullptr;
    RunCharts* charts_ = nullptr;
    bool interactive_ = true;
    ComparisonDriver* comparison_ = nullptr; ///< the comparison Start makes, if any
    MeasuredRuns* measured_ = nullptr;       ///< the runs the explanation quotes
    TensorBoardLogs* tensorBoard_ = nullptr;
    RecentFiles* recent_ = nullptr;
    ExperimentFiles* files_ = nullptr;
    RunLibrary* runs_ = nullptr;
    RunListPanel* runPanel_ = nullptr;
    QTabWidget* bottomTabs_ = nullptr;
    QString runName_; ///< what the run being made is called in the run list
    /// The teaching presets, built-in and the user's, read once when the
    /// window opens; the user's files left out, each with why (event log).
    std::vector<hwl::PresetProblem> presetProblems_;
    const std::vector<hwl::Preset> presets_ = hwl::presets(&presetProblems_);
    /// What the charts show (the run on them, or the preset chosen): another
    /// workload's runs are overlaid only when the user ticked them.
    QString chartedModel_, chartedDataset_;
    QString runOnCharts_; ///< the kept run the charts show live: no overlay of itself
    WindowTheme* theme_ = nullptr;
    WorkerTableModel* workerModel_ = nullptr;
    QPlainTextEdit* eventLog_ = nullptr;
    ExplanationPane* explanation_ = nullptr;
    VerdictBanner* verdict_ = nullptr; ///< what the last run found, over the charts
    QSplitter* mainSplitter_ = nullptr;
    QSplitter* centreSplitter_ = nullptr; ///< charts over the bottom tabs
    ChartGrid* grid_ = nullptr;           ///< the banner and the charts
    QDockWidget* dock_ = nullptr;         ///< the experiment form
    RunProgress* progress_ = nullptr;
    PresentationMode* presentation_ = nullptr;
    bool smallHintShown_ = false;
    ChartControls* chartControls_ = nullptr;
    StatusLine* statusLabel_ = nullptr;
    QAction* startAction_ = nullptr;
    QAction* pauseAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* stepAction_ = nullptr;
    QAction* sweepAction_ = nullptr;           ///< disabled while a run goes
    QSpinBox* pace_ = nullptr;                 ///< steps per second per worker, 0: full speed
    QList<QPair<QString, QString>> sweepRows_; ///< the Sweep dialog's rows, for its next opening
    QMenu* presetsMenu_ = nullptr;
    CounterToyDialog* counterToy_ = nullptr;
    RaceStepperDialog* raceStepper_ = nullptr;
    QAction* lastStartedAction_ = nullptr;
};

} // namespace hwl::ui
