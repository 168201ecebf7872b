#pragma once
// WorkerTableModel: the worker table (model/view). One row per worker:
// rank, pid or thread id, state (and why it died), steps, samples/s (over the
// last refresh while it trains, its whole-run average once it left: the
// column's and the cell's tooltips say which), last loss, divergence,
// start-up time. Numbers are grouped as everywhere in the window
// (charts/numbers.h); headers are short, their tooltips say the long words,
// so that every column fits beside the form at a 1440 px window
// (setUpView()). GUI thread only.
#include "runs/runcontroller.h"

#include <QAbstractTableModel>

class QTableView;

namespace hwl::ui {

class WorkerTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Rank,
        Id,
        State,
        Steps,
        SamplesPerSecond,
        LastLoss,
        Divergence,
        Communication,
        LostUpdates,
        Startup,
        Count
    };
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    /// Replaces the rows (resets when the worker count changes, else updates in place).
    void setRows(const QList<WorkerRow>& rows);
    const QList<WorkerRow>& rows() const { return rows_; }
    /// The Samples/s column's tooltip: which rate it shows when.
    static QString rateToolTip();
    /// Shows this model in `view` the way the window does: no row numbers,
    /// whole rows selected, every column as wide as its content and State
    /// taking the rest (so that all columns fit without scrolling).
    void setUpView(QTableView* view);

private:
    QVariant toolTip(const WorkerRow& row, int column) const;

    QList<WorkerRow> rows_;
};

} // namespace hwl::ui
