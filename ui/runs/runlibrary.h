#pragma once
// RunLibrary: the finished runs the window keeps for comparison, and the file
// they persist in (runs.json), so that the list survives a restart.
//
// A run is kept as three small curves, whatever its length: the training loss
// (the mean over workers, in at most kCurvePoints step bins), the test loss and
// the test accuracy (one point per evaluation, at most kCurvePoints). Both a
// live run (its MetricsLog) and a metrics.csv written by --out or Export
// metrics go through one CurveBuilder, so an opened file and a run of this
// session draw alike.
//
// Threading: GUI thread (it is plain data, no widgets).
#include "charts/chartsample.h"

#include <QColor>
#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

#include <cstdint>
#include <vector>

namespace hwl {
struct ExperimentConfig;
struct Sample;
class MetricsLog;
} // namespace hwl

namespace hwl::ui {

/// One finished run, as the run list shows and overlays it.
struct SavedRun {
    QString name;
    QColor color;
    bool visible = true;
    QString description; ///< what ran: model, dataset, mode, workers
    QDateTime finished;
    int workers = 0;
    double samplesPerSecond = 0;  ///< 0: not known
    double testAccuracy = -1;     ///< last evaluation, in [0, 1]; -1: none
    QList<ChartSample> trainLoss; ///< mean over workers; x per worker
    QList<ChartSample> testLoss;
    QList<ChartSample> accuracy; ///< value in percent
};

/// Folds samples, in any order of workers, into a SavedRun's curves with
/// bounded memory: step samples go into bins of `width` steps, and when there
/// would be more than 2 * kCurvePoints bins, pairs merge and the width
/// doubles. Each bin is the mean of its samples (step, samples, time, loss).
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
        void merge(const Bin& o);
    };
    void halveBins();
    std::vector<Bin> bins_;
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
    /// Runs kept; the oldest goes when one more is added.
    static constexpr int kMaxRuns = 40;
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
    QString remove(int index);
    QString rename(int index, const QString& name);
    QString setVisible(int index, bool visible);
    QString clear();

    /// A run from a live run's log.
    static SavedRun fromLog(const MetricsLog& log);
    /// A run from a metrics.csv, or from a --out folder holding one (its
    /// experiment.json, when there, names it). On failure: an empty name and
    /// the reason in `error`, naming the file, the line and what to do.
    static SavedRun fromPath(const QString& path, QString* error);

    /// One line on what ran: model, dataset, mode, workers, lr, batch.
    static QString describe(const ExperimentConfig& config);
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
