#pragma once
// WorkerTableModel: the worker table (model/view). One row per worker:
// rank, pid or thread id, state (and why it died), steps, samples/s (over the
// last refresh while it trains, its whole-run average once it left: the
// column's and the cell's tooltips say which), last loss, divergence,
// start-up time. GUI thread only.
#include "runs/runcontroller.h"

#include <QAbstractTableModel>

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

private:
    QList<WorkerRow> rows_;
};

} // namespace hwl::ui
