#pragma once
// RunLibrary: the finished runs the window keeps for comparison, and the file
// they persist in (runs.json), so that the list survives a restart.
//
// A run is kept as five small curves, whatever its length: the training loss,
// the throughput and the divergence (each the mean over workers, in at most
// kCurvePoints step bins), the test loss and the test accuracy (one point per
// evaluation, at most kCurvePoints). Both a live run (its MetricsLog) and a
// metrics.csv written by --out or Export metrics go through one CurveBuilder,
// so an opened file and a run of this session draw alike.
//
// A kept run is not overlaid until it is ticked: by the user in the list, or
// by a comparison for its own runs. What it trained (model, dataset) is kept
// so that the window draws a run of another workload on the loss and
// accuracy charts only when the user ticked it.
//
// Threading: GUI thread (it is plain data, no widgets).
#include "widgets/chartsample.h"

#include <QColor>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

namespace hwl {
struct ExperimentConfig;
struct RunSummary;
struct Sample;
class MetricsLog;
} // namespace hwl
class QFile;

namespace hwl::ui {

/// One finished run, as the run list shows and overlays it.
struct SavedRun {
    QString name;
    QColor color;
    bool visible = false;    ///< ticked: overlaid on the charts
    bool userTicked = false; ///< ticked by the user in the list (not by a comparison)
    QString description;     ///< what ran: model, dataset, mode, workers
    QString model, dataset;  ///< what it trained (the experiment's texts); empty: not known
    QDateTime finished;
    int workers = 0;
    double samplesPerSecond = 0;  ///< all workers together; 0: not known
    double testAccuracy = -1;     ///< last evaluation, in [0, 1]; -1: none
    QList<ChartSample> trainLoss; ///< mean over workers; x per worker
    QList<ChartSample> testLoss;
    QList<ChartSample> accuracy; ///< value in percent
    /// Samples per second of one worker, the mean over workers (as the live
    /// throughput chart draws one line per worker): each step sample's
    /// samples and time since the worker's previous one, summed per bin.
    QList<ChartSample> throughput;
    QList<ChartSample> divergence; ///< the step samples' divergence, mean over workers
    /// Per worker, seconds from launch to its first step (< 0: it took
    /// none); empty when not known (a metrics.csv without its summary.json).
    QList<double> startupSeconds;
    /// The experiment's fields (key -> value as its flag takes it: "4",
    /// "0.01", "threads"), all but `out`; empty when not known (a run kept
    /// before the table, a metrics.csv without experiment.json).
    QMap<QString, QString> fields;
    double finalTestLoss = -1; ///< last evaluation; -1: none
    double trainSeconds = -1;  ///< first step to the end of the loop; -1: not known
    double commShare = -1;     ///< data-parallel: share of the loop in collectives; -1: none
    qint64 lostUpdates = -1;   ///< gpu-hogwild, all workers; -1: none
    /// With a target: "reached" or "not reached" (TargetResult::state());
    /// the training seconds and samples to it, -1 when not reached.
    QString target;
    double targetSeconds = -1, targetSamples = -1;
    /// How it ended ("finished", "stopped", "failed") or, judged from its
    /// figures (judgeLearning), "diverged" or "at chance"; empty: not known.
    QString result;
    QString resultReason; ///< the figures behind "diverged" or "at chance"

    /// The best evaluation's accuracy in [0, 1] (over the kept curve); -1: none.
    double bestTestAccuracy() const;
    /// The slowest worker's start-up in seconds; -1: not known.
    double startup() const;

    /// Whether it is known to have trained `model` on `dataset`.
    bool trained(const QString& model, const QString& dataset) const {
        return !this->model.isEmpty() && this->model == model && this->dataset == dataset;
    }
};

/// Folds samples, in any order of workers, into a SavedRun's curves with
/// bounded memory: step samples go into bins of `width` steps, and when there
/// would be more than 2 * kCurvePoints bins, pairs merge and the width
/// doubles. Each bin is the mean of its samples (step, samples, time, loss,
/// divergence); its throughput is the samples its step samples added since
/// each worker's previous one over the seconds that took.
class CurveBuilder {
public:
    void add(const Sample& s);
    /// Fills `run`'s curves, workers and accuracy (eval x per worker, as the
    /// live chart shows them).
    void finish(SavedRun& run) const;
    std::uint64_t stepSamples() const { return stepSamples_; }

private:
    struct Bin {
        double n = 0, step = 0, samples = 0, time = 0, loss = 0;
        double divergence = 0, divergenceN = 0;    ///< over the samples with a finite one
        double addedSamples = 0, addedSeconds = 0; ///< since each worker's previous sample
        void merge(const Bin& o);
    };
    /// A worker's last step sample: where its next one's throughput starts.
    struct Last {
        double samples = -1, time = 0; ///< samples < 0: none yet
    };
    void halveBins();
    std::vector<Bin> bins_;
    std::vector<Last> last_; ///< per worker
    std::uint64_t width_ = 1;
    std::uint64_t stepSamples_ = 0;
    int maxWorker_ = -1;
    QList<hwl::Sample> evals_;
};

class RunLibrary : public QObject {
    Q_OBJECT

public:
    /// Points a kept curve holds at most.
    static constexpr int kCurvePoints = 400;
    /// At most about this many throughput points (each a window's rate).
    static constexpr int kThroughputPoints = 50;
    /// Runs kept (as many as a sweep makes); the oldest goes when one more
    /// is added.
    static constexpr int kMaxRuns = 1000;
    /// Largest metrics.csv opened (a run of 10^7 steps is about 700 MB).
    static constexpr qint64 kMaxCsvBytes = qint64(4) << 30;

    /// Keeps its list in `file` (runs.json); load() reads it.
    explicit RunLibrary(QString file, QObject* parent = nullptr);

    /// Reads the file. A missing file is an empty list; a damaged one is set
    /// aside as runs.json.bad and the reason returned (the list starts empty).
    QString load();
    const QString& file() const { return file_; }

    const QList<SavedRun>& runs() const { return runs_; }
    int size() const { return int(runs_.size()); }

    /// Adds a run and saves. Its colour is one the other runs do not use.
    /// Returns the saved error ("" when saved).
    QString add(SavedRun run);
    /// Adds runs (a folder of runs) and saves once.
    QString addAll(QList<SavedRun> runs);
    QString remove(int index);
    QString rename(int index, const QString& name);
    /// Ticks or unticks a run; `byUser`: the user ticked it in the list (a
    /// run of another workload is then drawn on every chart).
    QString setVisible(int index, bool visible, bool byUser = false);
    /// Unticks every run (a comparison starts), saving once; with
    /// `keepUserTicked`, only the runs a comparison ticked (a window opens:
    /// it overlays no run the user did not ask for).
    QString untickAll(bool keepUserTicked = false);
    QString clear();

    /// A run from a live run's log.
    static SavedRun fromLog(const MetricsLog& log);
    /// A run from a metrics.csv, or from a --out folder holding one (its
    /// experiment.json, when there, says what ran: description, model,
    /// dataset and fields; its summary.json the final figures). On failure: an empty name and
    /// the reason in `error`, naming the file, the line and what to do.
    static SavedRun fromPath(const QString& path, QString* error);
    /// Says how far reading a folder of runs is (`done` of `total`); false
    /// stops it.
    using Progress = std::function<bool(int done, int total)>;
    /// The runs at or below `dir`, found as --compare finds them
    /// (io/runfolders.h: a sweep's folder, a comparison's, any tree) and
    /// each read as fromPath() reads a run's folder, in path order. A run
    /// that cannot be read is left out, and why added to `leftOut`. Empty
    /// with the reason in `error` when `dir` holds no run, more than
    /// kMaxRuns, or `progress` stopped it.
    static QList<SavedRun> fromRunFolders(const QString& dir, QString* error, QStringList* leftOut,
                                          const Progress& progress = {});
    /// A baseline from a CSV made elsewhere, `file` open past its first
    /// line `header` (fromPath() hands it what is not a metrics.csv):
    /// TensorBoard's scalar export ("Wall time,Step,Value", the chart named
    /// by the file name: loss, test_loss, accuracy, ...) or a script's CSV
    /// (a step column, optional samples and time, and curves named loss,
    /// train_loss, test_loss, val_loss, accuracy, test_accuracy, ...). The
    /// model and dataset are not known, so it is drawn once ticked.
    static SavedRun fromBaselineCsv(QFile& file, const QByteArray& header, QString* error);

    /// One line on what ran: model, dataset, mode, workers, lr, batch.
    static QString describe(const ExperimentConfig& config);
    /// The experiment's fields as SavedRun::fields holds them.
    static QMap<QString, QString> fieldsOf(const ExperimentConfig& config);
    /// Sets `run`'s final figures from what the run reached (summary.json
    /// says the same): samples/s, test accuracy and loss, train seconds,
    /// start-up, comm share and lost updates.
    static void applySummary(SavedRun& run, const RunSummary& summary);
    /// The run palette: dark, distinct, and none of the worker colours.
    static QColor runColor(int index);

Q_SIGNALS:
    void changed();

private:
    QString save() const;
    QColor freeColor() const;

    QString file_;
    QList<SavedRun> runs_;
};

} // namespace hwl::ui
