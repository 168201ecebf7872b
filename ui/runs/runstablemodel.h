#pragma once
// RunsTableModel: the Runs tab's table (model/view) of the runs RunLibrary
// keeps. One row per run: first the run (its tick, which overlays it on the
// charts, its colour and its name, double-click to rename; on hover what ran
// and what it reached), then one column per experiment field whose value
// differs between the runs that know theirs (the fields that vary, in the
// field table's order), then the final figures. An unknown cell is empty.
// SortRole gives numbers as numbers; RunsSortProxy sorts by it (unknown
// cells last) and filters on any cell's text.
//
// Folded (setFoldRepeats), runs whose fields are equal but for their seed
// (repeats: a sweep's --repeat, a preset run again) are one row: the seed
// column goes, a "repeats" column counts them, and each figure is their
// mean ± sample standard deviation (io/runscompare.h's spreadOf; SortRole
// the mean). Ticking such a row ticks all its runs. Without repeats, or
// unfolded, each run is a row of its own.
//
// The model holds a copy of the library's runs, reread when the library
// changes (queued: a change made from the view's own edit must not reset
// the model under it). GUI thread only.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QStringList>

#include "io/runscompare.h"

namespace hwl::ui {

class RunLibrary;
struct SavedRun;

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Figure {
        SamplesPerSecond,
        TestAccuracy,
        BestAccuracy,
        TestLoss,
        TrainSeconds,
        StartupMs,
        CommShare,
        LostUpdates,
        TargetSeconds, ///< training seconds to the run's target
        TargetSamples, ///< samples to it
        FigureCount
    };
    /// A number as a double (a field's value when it is one), else the text;
    /// invalid when unknown.
    static constexpr int SortRole = Qt::UserRole;

    explicit RunsTableModel(RunLibrary* library, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

    /// The fields that vary, in the field table's order (folded: but the seed).
    const QStringList& fieldKeys() const { return fieldKeys_; }
    int fieldColumn(int field) const { return 1 + field; }
    /// The "repeats" column while folded, else -1.
    int repeatsColumn() const { return folded_ ? 1 + int(fieldKeys_.size()) : -1; }
    /// "result": how the run ended (finished, stopped, failed) or what it
    /// learned where that is worth a word (diverged, at chance).
    int resultColumn() const { return 1 + int(fieldKeys_.size()) + (folded_ ? 1 : 0); }
    int figureColumn(Figure f) const { return resultColumn() + 1 + int(f); }
    /// The figure's header ("samples/s") and what it is, for its tooltip.
    static QString figureName(Figure f);
    static QString figureHelp(Figure f);
    /// A run's figure in the unit its column shows (percent, ms); NaN when
    /// not known.
    static double figureOf(const SavedRun& run, Figure f);
    /// The runs as rows when folded: repeats (io/runfolders.h's rule, as
    /// --compare folds them) share one, in the order of their first run.
    static QList<QList<int>> repeatRows(const QList<SavedRun>& runs);

    /// Folds repeats into one row each (when some runs are repeats).
    void setFoldRepeats(bool fold);
    bool foldRepeats() const { return foldAsked_; }
    /// Whether some kept runs are repeats: folding would join them.
    bool hasRepeats() const { return hasRepeats_; }
    /// Whether rows are folded now: asked for, and some runs are repeats.
    bool folded() const { return folded_; }

    /// The runs row `row` shows (indices into runs()): one, or a folded row's repeats.
    const QList<int>& runsOf(int row) const { return rows_[row]; }
    /// The library's runs as the model last read them.
    const QList<SavedRun>& runs() const { return runs_; }
    /// Row `row`'s figure over its runs that have it: the mean, the sample
    /// standard deviation (NaN for fewer than two) and how many.
    Spread spread(int row, Figure f) const;
    /// Row `row`'s figure (a folded row's mean); NaN when not known.
    double figure(int row, Figure f) const { return spread(row, f).mean; }
    /// Row `row`'s value of `key` (a folded row's first run's); empty when not known.
    QString fieldValue(int row, const QString& key) const;
    /// Rereads the library's runs (and which fields vary).
    void refresh();

Q_SIGNALS:
    /// The user ticked run `index` (RunLibrary::runs()) to overlay it.
    void runTicked(int index);
    /// A library change could not be saved: the reason, for the event log.
    void saveFailed(const QString& why);

private:
    QVariant runData(int row, int role) const;
    QVariant figureData(int row, Figure f, int role) const;
    /// figureData() of TargetSeconds and TargetSamples.
    QVariant targetData(int row, Figure f, int role, const Spread& s) const;
    QVariant resultData(int row, int role) const;
    /// Ticks or unticks every run of the row.
    bool setTicked(const QModelIndex& index, bool visible);
    /// "3 runs that differ only in their seed (seeds 1, 2, 3)".
    QString repeatsText(int row) const;
    /// A run's row: what ran and reached; a folded row: its repeats, what
    /// its figures are, its runs' names.
    QString rowTooltip(int row) const;

    RunLibrary* library_ = nullptr;
    QList<SavedRun> runs_;
    QList<QList<int>> rows_; ///< per row, its runs (indices into runs_)
    QStringList fieldKeys_;
    bool foldAsked_ = false;
    bool hasRepeats_ = false;
    bool folded_ = false;
};

/// Sorts by RunsTableModel::SortRole (numbers numerically, unknown cells
/// last in either order) and keeps the rows one of whose cells holds the
/// filter text (case-insensitive).
class RunsSortProxy : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit RunsSortProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace hwl::ui
