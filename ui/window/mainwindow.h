#pragma once
// MainWindow: configure an experiment, start / pause / stop it, and watch
// every worker's loss and divergence live. Talks to the engine only through
// RunController (the run API and the telemetry segment). GUI thread only.
#include "widgets/chartsample.h"
#include "run/comparison.h"
#include "runs/runcontroller.h"

#include "config/presets.h"

#include <QMainWindow>
#include <QSet>

#include <memory>

class QAction;
class QCheckBox;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QScrollArea;
class QSlider;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolBar;

namespace hwl::ui {

class CounterToyDialog;
class RaceStepperDialog;
class ExperimentForm;
class ExplanationPane;
class RunLibrary;
class RunListPanel;
class RunProgress;
class TrainingChart;
class VerdictBanner;
struct ComparisonRecord;
class WorkerTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // For tests and the screenshot command.
    ExperimentForm* form() const { return form_; }
    TrainingChart* lossChart() const { return lossChart_; }
    TrainingChart* divergenceChart() const { return divergenceChart_; }
    TrainingChart* lostUpdatesChart() const { return lostChart_; }
    /// The learning rate of each worker's steps (runs with a schedule).
    TrainingChart* learningRateChart() const { return lrChart_; }
    TrainingChart* accuracyChart() const { return accuracyChart_; }
    TrainingChart* rateChart() const { return rateChart_; }
    RunLibrary* runLibrary() const { return runs_; }
    RunListPanel* runListPanel() const { return runPanel_; }
    WorkerTableModel* workerModel() const { return workerModel_; }
    RunController* controller() const { return controller_; }
    QAction* startAction() const { return startAction_; }
    QAction* pauseAction() const { return pauseAction_; }
    QAction* stopAction() const { return stopAction_; }
    QAction* stepAction() const { return stepAction_; }
    QAction* sweepAction() const { return sweepAction_; } ///< Run > Sweep…
    /// Run > TensorBoard logs… (checked while runs write event files).
    QAction* tensorBoardAction() const { return tensorBoardAction_; }
    VerdictBanner* verdictBanner() const { return verdict_; }
    QSpinBox* paceBox() const { return pace_; }
    QCheckBox* bandBox() const { return band_; }
    QString eventLogText() const;
    RunProgress* runProgress() const { return progress_; }
    QTabWidget* bottomTabs() const { return bottomTabs_; }
    QAction* presentationAction() const { return presentationAction_; }

    /// Presentation (View menu, F5, --presentation): for a projector. The
    /// form folds into a drawer (the toolbar's Experiment button), the
    /// explanation likewise, the bottom tabs to their tab bar (a click opens
    /// them), and the charts get the room and larger fonts. Leaving restores
    /// the layout as it was; the choice is kept for the next start.
    void setPresentation(bool on, bool remember = true); ///< remember: in QSettings
    bool presentation() const { return presentation_; }
    QString explanationText() const;

    /// Loads an experiment JSON file into the form; false (and a message box
    /// unless `quiet`; the reason in `why` when given) when it cannot be read.
    bool openExperiment(const QString& path, bool quiet = false, QString* why = nullptr);
    bool saveExperiment(const QString& path, bool quiet = false);
    /// Loads the experiment of the last run started from any window (kept in
    /// QSettings at each start, so it survives a crash); false when there is
    /// none or it no longer parses.
    bool openLastStarted(bool quiet = false);
    /// Export actions; false with a message when the file cannot be written.
    bool exportWeights(const QString& path, bool quiet = false); ///< .safetensors or .npz by suffix
    bool exportMetrics(const QString& path, bool quiet = false);
    /// Saves a chart as PNG or SVG (.png when the name has no suffix), laid
    /// out at `size` pixels; false with a message naming the formats when the
    /// suffix is not one it writes.
    bool saveChart(TrainingChart* chart, const QString& path, bool quiet = false,
                   QSize size = QSize(1600, 900));
    /// Adds the run a metrics.csv or a --out folder holds to the run list
    /// (and overlays it); false with the reason (a message box unless quiet).
    bool openRun(const QString& path, bool quiet = false, QString* why = nullptr);
    /// Makes a safetensors file the initial weights of the next run (the
    /// experiment's `init`) once it reads as one; false with the reason (a
    /// message box unless quiet), also while a run goes.
    bool openWeights(const QString& path, bool quiet = false, QString* why = nullptr);
    /// Makes the next run continue the run whose --out folder is `dir`
    /// (the experiment's `resume`): its experiment fills the form, with
    /// twice its epochs (Epochs counts from that run's start). False with
    /// the reason (a message box unless quiet) when `dir` holds no
    /// experiment.json or optimizer.safetensors, or while a run goes.
    bool continueRun(const QString& dir, bool quiet = false, QString* why = nullptr);
    /// Opens any file the window takes, by what it is: an experiment (.json)
    /// fills the form, a run (metrics.csv, any .csv, or a --out folder) goes
    /// into the run list, weights (.safetensors) become the initial weights.
    /// The command line, a drop on the window and Open Recent all come here.
    /// false with the reason (naming the file) in the event log, the status
    /// bar and `why`, and a message box unless quiet.
    bool openFile(const QString& path, bool quiet = false, QString* why = nullptr);
    /// openFile() for each in turn (experiments first, which set every
    /// field), quietly; the reasons of those that failed.
    QStringList openFiles(const QStringList& paths);
    /// File > Open recent: the last kRecentFiles files opened or saved, the
    /// newest first (absolute paths, kept in QSettings).
    QStringList recentFiles() const;
    QMenu* recentMenu() const { return recentMenu_; }
    static constexpr int kRecentFiles = 10;
    /// Light or dark charts and, when `forced`, a dark or light Fusion palette
    /// for the whole window; themeFollowsSystem() picks from the system's.
    void setDarkTheme(bool dark, bool forced);
    bool darkTheme() const { return dark_; }
    /// The Help menu's texts (HTML): "modes" (the modes and pitfalls),
    /// "shortcuts", anything else: About.
    QString helpText(const QString& topic) const;
    /// The shared-counter toy's window (Presets menu), made on first use.
    CounterToyDialog* counterToy();
    /// The race stepper's window (Presets menu; the lost-updates preset links it).
    RaceStepperDialog* raceStepper();
    /// Makes `runs` one after another (what Start does for a comparison
    /// preset applied as it is); false while a run goes.
    bool startComparison(const std::vector<hwl::PresetRun>& runs);
    /// Run > Sweep…: a SweepDialog on the form's experiment, its runs then
    /// made as a comparison. Refused (in the event log) while the form is
    /// invalid; false when cancelled or refused.
    bool openSweep();
    /// Where the next runs write their TensorBoard event files: each one
    /// into a folder of its own under `dir`, named by its start and its
    /// comparison label (tensorBoardRunFolder()); empty: none. A window
    /// setting (kept between sessions), whatever preset or file is opened;
    /// an experiment whose own "tensorboard" field is set uses that instead.
    void setTensorBoardFolder(const QString& dir);
    QString tensorBoardFolder() const { return tensorBoardDir_; }
    /// The folder a run started now writes into: `base`/<yyyyMMdd-HHmmss>,
    /// plus "-<label>" in a comparison or sweep.
    static QString tensorBoardRunFolder(const QString& base, const QString& label);
    /// The comparison run going (0-based), -1 when Start is not making one.
    int comparisonRun() const { return comparison_ ? int(comparison_->index()) : -1; }
    /// Applies a preset by id or name (see presets()): its experiment, its
    /// pace and its explanation; false if unknown or while a run goes.
    bool applyPreset(const QString& name);

public slots:
    void startRun();
    void togglePause();
    void stopRun();

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;       ///< follows the system's light / dark
    void resizeEvent(QResizeEvent* event) override; ///< the small-window hint
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    static constexpr double kChartCpuBudget = 0.10; ///< share of one core the charts aim at
    /// 25 Hz at most; 10 Hz at least, whatever a redraw costs, so that the
    /// curves move smoothly under any load.
    static constexpr int kMinRedrawMs = 40, kMaxRedrawMs = 100;
    static constexpr int kBandWorkers = 8; ///< from this many workers: mean + band
    /// QSettings key of the last started experiment (its JSON).
    static inline const QString kLastStartedKey = QStringLiteral("lastStartedExperiment");
    /// QSettings key: whether the window opens in presentation.
    static inline const QString kPresentationKey = QStringLiteral("view/presentation");
    /// QSettings key: the folder of Run > TensorBoard logs… (empty: off).
    static inline const QString kTensorBoardKey = QStringLiteral("run/tensorboard");
    /// Below this size (and not in presentation) the status bar suggests it.
    static constexpr int kSmallWidth = 1400, kSmallHeight = 850;

    // mainwindowmenus.cpp: the menu bar; mainwindowfiles.cpp: files saved
    // and exported; mainwindowopen.cpp: files opened (by kind, dropped,
    // recent).
    void buildMenus();
    void acceptFileDrops(); ///< drops of files anywhere on the window open them
    /// File > Open initial weights, and Forget initial weights (enabled
    /// while the experiment has them).
    void addInitialWeightsActions(QMenu* file);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void buildHelpMenu();
    /// mainwindowsweep.cpp: Run > Sweep… (sweepAction_) and Run >
    /// TensorBoard logs… (tensorBoardAction_).
    void addSweepAction(QMenu* run);
    void addTensorBoardAction(QMenu* run);

    void buildActions();
    void buildLayout();
    void buildDock();
    void buildToolbar();
    void buildCentre();
    void buildCharts(); ///< mainwindowcharts.cpp: the charts, before buildCentre lays them out
    QWidget* buildChartsArea(); ///< the verdict banner over the chart grid
    void updateActions();
    void logEvent(const QString& text, bool warning = false);
    void restoreSettings();
    void onSamples(const QList<hwl::Sample>& samples);
    void onStarted(int workers, const QStringList& notes);
    void onFinished(const hwl::RunSummary& summary);
    void refreshCharts();
    QList<TrainingChart*> charts() const;
    /// Empties the charts for a run of `config`: its series, which divergence
    /// it shows (hidden with one worker), the lost-update chart when counted.
    void prepareCharts(const ExperimentConfig& config);
    void chartLostUpdates(const QList<WorkerRow>& rows);
    void chartRates(const QList<WorkerRow>& rows);

    // mainwindowruns.cpp: the run list and its overlays; mainwindowview.cpp:
    // the View menu, which charts show, the theme.
    void buildRunList();
    /// Keeps the run that just ended in the run list (ticked when it is a
    /// comparison's run, else unticked).
    void keepFinishedRun(const hwl::RunSummary& summary);
    /// A comparison's run ended: its row of the final table.
    void recordComparedRun(const hwl::RunSummary& summary);
    /// The comparison is over (made, stopped, or a run could not start): its
    /// table in the verdict banner when a run of it ended, no "Run 1 of 2".
    void endComparison();
    /// The user ticked a run: says so when it trained another workload.
    void onRunTicked(int index);
    void updateOverlays();
    void chooseRunToOpen(bool folder);
    void buildViewMenu();
    /// Starts `config` (the form's, or a comparison's next run).
    void startConfig(const ExperimentConfig& config);
    /// After a comparison's run: starts the next one, or ends the comparison.
    void continueComparison(const hwl::RunSummary& summary);
    /// Shows `chart` when it has something to show for this run (`relevant`)
    /// and the View menu has it ticked.
    void showChart(TrainingChart* chart, bool relevant);
    void applyTheme(bool dark); // the charts' and the form's colours

    // presentation.cpp: the projector layout, and the chart grid fitted to
    // the room it has.
    void buildPresentationActions(QToolBar* toolbar);
    /// Arranges the small charts in two rows, one row, or none, whichever
    /// leaves every shown chart kMinChartHeight (the banner bounded to what
    /// is left), so that no plot is squeezed below a readable height.
    void fitChartRows();
    /// The charts' fonts and line widths: larger in presentation.
    void applyChartPresentation();
    void setBottomTabsCollapsed(bool collapsed);
    /// The height `chart` needs for a readable plot with its texts as laid out.
    int chartHeightFor(const TrainingChart* chart) const;
    void wireProgress();

    RunController* controller_ = nullptr;
    ExperimentForm* form_ = nullptr;
    TrainingChart* lossChart_ = nullptr;
    TrainingChart* divergenceChart_ = nullptr;
    TrainingChart* lrChart_ = nullptr;       ///< learning rate, with a schedule
    TrainingChart* lostChart_ = nullptr;     ///< lost updates, % of block writes
    TrainingChart* accuracyChart_ = nullptr; ///< test accuracy, %
    TrainingChart* rateChart_ = nullptr;     ///< samples/s per worker
    RunLibrary* runs_ = nullptr;
    RunListPanel* runPanel_ = nullptr;
    QTabWidget* bottomTabs_ = nullptr;
    QString runName_;        ///< what the run being made is called in the run list
    QSet<int> deathsMarked_; ///< ranks whose death the loss chart marks
    /// The teaching presets, made once: whether Fashion-MNIST is installed
    /// is checked on disk when the window opens, not at every use.
    const std::vector<hwl::Preset> presets_ = hwl::presets();
    /// The comparison Start is making (the engine's sequence); empty: none.
    std::optional<hwl::Comparison> comparison_;
    /// Its rows so far, for the table at its end (null: no comparison).
    std::unique_ptr<ComparisonRecord> compared_;
    QLabel* comparisonStatus_ = nullptr; ///< "Run 1 of 2: locked" while a comparison goes
    /// What the charts show (the run on them, or the preset just chosen):
    /// a ticked run of another model or dataset is drawn on the loss and
    /// accuracy charts only when the user ticked it.
    QString chartedModel_, chartedDataset_;
    /// The kept run the charts show live (until the next run or preset):
    /// not drawn again as an overlay of itself.
    QString runOnCharts_;
    bool dark_ = false;
    bool themeForced_ = false;
    WorkerTableModel* workerModel_ = nullptr;
    QTableView* workerTable_ = nullptr;
    QPlainTextEdit* eventLog_ = nullptr;
    ExplanationPane* explanation_ = nullptr;
    VerdictBanner* verdict_ = nullptr; ///< what the last run found, over the charts
    QSplitter* chartSplitter_ = nullptr;
    QSplitter* chartRows_[2] = {nullptr, nullptr}; ///< the small charts' rows
    QSplitter* mainSplitter_ = nullptr;
    QSplitter* centreSplitter_ = nullptr;  ///< charts over the bottom tabs
    QWidget* chartsArea_ = nullptr;        ///< the banner and the charts
    QScrollArea* verdictScroll_ = nullptr; ///< bounds the banner's height
    QDockWidget* dock_ = nullptr;          ///< the experiment form
    RunProgress* progress_ = nullptr;
    bool presentation_ = false;
    bool smallHintShown_ = false;
    /// The layout presentation replaced, put back on leaving it.
    QByteArray normalState_, normalMain_, normalCentre_;
    QAction* presentationAction_ = nullptr;
    QAction* drawerAction_ = nullptr;      ///< presentation: shows the form
    QAction* explanationAction_ = nullptr; ///< presentation: shows the explanation
    QSlider* smoothing_ = nullptr;
    QLabel* smoothingValue_ = nullptr;
    QComboBox* xAxis_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QCheckBox* band_ = nullptr; ///< mean and min-max band instead of a line per worker
    bool bandTouched_ = false;  ///< the user chose: no more automatic switching
    QLabel* statusLabel_ = nullptr;
    QAction* startAction_ = nullptr;
    QAction* pauseAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* stepAction_ = nullptr;
    QAction* sweepAction_ = nullptr; ///< disabled while a run goes
    QAction* tensorBoardAction_ = nullptr;
    QString tensorBoardDir_;   ///< Run > TensorBoard logs…; empty: off
    QSpinBox* pace_ = nullptr; ///< steps per second per worker, 0: full speed
    QMenu* recentMenu_ = nullptr;
    QMenu* presetsMenu_ = nullptr;
    CounterToyDialog* counterToy_ = nullptr;
    RaceStepperDialog* raceStepper_ = nullptr;
    QAction* lastStartedAction_ = nullptr;
    QTimer* redrawTimer_ = nullptr;
    bool chartsDirty_ = false;
};

} // namespace hwl::ui
