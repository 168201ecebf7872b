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
// The model holds a copy of the library's runs, reread when the library
// changes (queued: a change made from the view's own edit must not reset
// the model under it). GUI thread only.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QStringList>

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

    /// The fields that vary, in the field table's order.
    const QStringList& fieldKeys() const { return fieldKeys_; }
    int fieldColumn(int field) const { return 1 + field; }
    int figureColumn(Figure f) const { return 1 + int(fieldKeys_.size()) + int(f); }
    /// The figure's header ("samples/s") and what it is, for its tooltip.
    static QString figureName(Figure f);
    static QString figureHelp(Figure f);
    /// Run `row`'s figure in the unit its column shows (percent, ms); NaN
    /// when not known.
    double figure(int row, Figure f) const;
    /// Run `row`'s value of `key`; empty when not known.
    QString fieldValue(int row, const QString& key) const;
    /// Rereads the library's runs (and which fields vary).
    void refresh();

Q_SIGNALS:
    /// The user ticked run `index` (RunLibrary::runs()) to overlay it.
    void runTicked(int index);
    /// A library change could not be saved: the reason, for the event log.
    void saveFailed(const QString& why);

private:
    QVariant figureData(int row, Figure f, int role) const;

    RunLibrary* library_ = nullptr;
    QList<SavedRun> runs_;
    QStringList fieldKeys_;
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
