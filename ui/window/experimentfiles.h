#pragma once
// The window's files: experiments opened and saved (and the last one
// started), initial weights and a run to continue, weights, metrics and
// charts exported, and any file opened by what it is (from the command line,
// a drop on the window, Open recent). One place decides what a file is, so
// that every way in opens it alike and refuses it with the same message.
// Runs (metrics.csv, a --out folder) go to the run list through the opener
// the window gives (setRunOpener()). GUI thread only.
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>

class QMenu;
class QWidget;

namespace hwl {
struct ExperimentConfig;
}

namespace hwl::ui {

class ExperimentForm;
class ExplanationPane;
class RunController;
class TrainingChart;

class ExperimentFiles : public QObject {
    Q_OBJECT

public:
    /// QSettings key of the last started experiment (its JSON).
    static inline const QString kLastStartedKey = QStringLiteral("lastStartedExperiment");
    /// Opens a run file into the run list: false with the reason in `why`.
    using RunOpener = std::function<bool(const QString& path, bool quiet, QString* why)>;

    /// Fills `form` and `explanation`; refuses what would change the
    /// experiment while `controller` runs. Message boxes over `window`.
    ExperimentFiles(ExperimentForm* form, ExplanationPane* explanation, RunController* controller,
                    QWidget* window);
    void setRunOpener(RunOpener opener) { openRun_ = std::move(opener); }

    /// Loads an experiment JSON file into the form; false (and a message box
    /// unless `quiet`; the reason in `why` when given) when it cannot be read.
    bool openExperiment(const QString& path, bool quiet = false, QString* why = nullptr);
    bool saveExperiment(const QString& path, bool quiet = false);
    /// Keeps `experiment` (synced at once, so that a crash loses none) as
    /// the last started one.
    static void rememberStarted(const hwl::ExperimentConfig& experiment);
    /// Loads the experiment of the last run started from any window;
    /// false when there is none or it no longer parses.
    bool openLastStarted(bool quiet = false);
    /// Before a run of `config` starts: when its `out` folder (from an
    /// experiment file) already holds a run, asks whether to replace it,
    /// write into another folder (chosen in a dialog; `config.out` becomes
    /// it) or not write files at all (`config.out` cleared). False when the
    /// user cancels; `*replace` says whether the run may replace the
    /// folder's run. A run that continues that folder (`resume`) asks
    /// nothing.
    bool confirmOutFolder(hwl::ExperimentConfig& config, bool* replace);
    /// Export actions; false with a message when the file cannot be written.
    bool exportWeights(const QString& path,
                       bool quiet = false); ///< .safetensors, .npz or .onnx by suffix
    bool exportMetrics(const QString& path, bool quiet = false);
    /// Saves a chart as PNG or SVG (.png when the name has no suffix), laid
    /// out at `size` pixels; false with a message naming the formats when the
    /// suffix is not one it writes.
    bool saveChart(TrainingChart* chart, const QString& path, bool quiet = false,
                   QSize size = QSize(1600, 900));
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
    /// false with the reason (naming the file) in the event log, the status
    /// bar and `why`, and a message box unless quiet.
    bool openFile(const QString& path, bool quiet = false, QString* why = nullptr);
    /// openFile() for each in turn (experiments first, which set every
    /// field), quietly; the reasons of those that failed.
    QStringList openFiles(const QStringList& paths);

    /// File > Open initial weights, Forget initial weights (enabled while
    /// the experiment has them), Continue a run, Forget the run to continue.
    void addInitialWeightsActions(QMenu* file);
    /// Drops of files anywhere on the window open them (openFiles()).
    void acceptFileDrops();

Q_SIGNALS:
    void eventLogged(const QString& text, bool warning);
    /// A file was opened or saved: one for Open recent.
    void fileUsed(const QString& path);
    /// A refusal for the status bar, for `ms` milliseconds.
    void statusShown(const QString& text, int ms);

private:
    void log(const QString& text, bool warning = false) { Q_EMIT eventLogged(text, warning); }

    ExperimentForm* form_;
    ExplanationPane* explanation_;
    RunController* controller_;
    QWidget* window_;
    RunOpener openRun_;
};

} // namespace hwl::ui
