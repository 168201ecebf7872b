#include "runs/workertablemodel.h"

#include "widgets/numbers.h"

#include <QBrush>
#include <QColor>
#include <QHeaderView>
#include <QLocale>
#include <QTableView>

#include <cmath>

namespace hwl::ui {

namespace {

/// A divergence or a loss of any size in a few characters, grouped like
/// every other number of the window: "1,234", "12.35", "0.0123", "1.2e-05".
QString shortReal(double x) {
    const double a = std::fabs(x);
    if (a == 0 || !std::isfinite(x))
        return formatDecimal(x, 0);
    if (a >= 100)
        return formatAnySize(x, 0);
    if (a >= 1)
        return formatDecimal(x, 2);
    if (a >= 1e-3)
        return formatDecimal(x, 4);
    return QLocale().toString(x, 'e', 1);
}

QString percent(double fraction) {
    const double p = 100 * fraction;
    // Decimals by the value as shown: 9.96 is "10 %" beside "15 %", not "10.0 %".
    return formatDecimal(p, p >= 9.95 || p == 0 ? 0 : (p >= 0.995 ? 1 : 2)) + QStringLiteral(" %");
}

} // namespace

int WorkerTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int WorkerTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : Count;
}

QString WorkerTableModel::rateToolTip() {
    return tr("Samples per second: over the last refresh (about 0.2 s) while a worker trains; "
              "once it finished, stopped or failed, its average over its whole training (its "
              "samples over the time from its first step to leaving its loop, pauses and "
              "epoch-end waits included)");
}

void WorkerTableModel::setUpView(QTableView* view) {
    view->setModel(this);
    view->verticalHeader()->hide();
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setWordWrap(false);
    // Every column as wide as its widest cell, the State column takes what
    // is left (a failure's long reason is elided there; its tooltip has it
    // whole): at a 1440 px window no column hides behind a scroll bar.
    QHeaderView* header = view->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(State, QHeaderView::Stretch);
    header->setMinimumSectionSize(24);
    view->setTextElideMode(Qt::ElideRight);
}

QVariant WorkerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Id:
            return tr("The worker's process id (pid) or, for a thread of this process, its "
                      "Linux thread id (tid)");
        case SamplesPerSecond:
            return rateToolTip();
        case LastLoss:
            return tr("The last step's batch loss");
        case Divergence:
            return tr("Divergence, as the mode defines it: staleness, or the distance from the "
                      "replicas' mean");
        case Communication:
            return tr("Communication: the share of the last refresh spent in collectives "
                      "(data-parallel)");
        case LostUpdates:
            return tr("Lost updates: of the worker's writes, those another worker's write "
                      "replaced unseen (Count lost updates, GPU Hogwild); the cell's tooltip "
                      "and the Lost updates chart give the share");
        case Startup:
            return tr("Start-up: from the worker's launch to its first step");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Id:
        return tr("PID/TID");
    case State:
        return tr("State");
    case Steps:
        return tr("Steps");
    case SamplesPerSecond:
        return tr("Samples/s");
    case LastLoss:
        return tr("Loss");
    case Divergence:
        return tr("Diverg.");
    case Communication:
        return tr("Comm");
    case LostUpdates:
        return tr("Lost updates");
    case Startup:
        return tr("Start-up");
    default:
        return {};
    }
}

QVariant WorkerTableModel::toolTip(const WorkerRow& r, int column) const {
    const WorkerSnapshot& w = r.worker;
    switch (column) {
    case State:
        return w.failure.empty() ? QVariant() : QString::fromStdString(w.failure);
    case SamplesPerSecond:
        return r.averageRate ? tr("Average over this worker's whole training (%1 samples)")
                                   .arg(formatCount(w.samples))
                             : tr("Over the last refresh interval (about 0.2 s)");
    case LostUpdates:
        if (w.updateWrites == 0)
            return {};
        return tr("%1 of %2 block writes lost (%3)")
            .arg(formatCount(w.lostUpdates), formatCount(w.updateWrites),
                 percent(double(w.lostUpdates) / double(w.updateWrites)));
    default:
        return {};
    }
}

QVariant WorkerTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    const WorkerRow& r = rows_[index.row()];
    const WorkerSnapshot& w = r.worker;
    if (role == Qt::ToolTipRole)
        return toolTip(r, index.column());
    if (role == Qt::ForegroundRole && index.column() == State && w.state == WorkerState::Failed)
        return QBrush(QColor(0xc0, 0x20, 0x20));
    if (role == Qt::TextAlignmentRole && index.column() != State)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const QString none = QStringLiteral("–");
    switch (index.column()) {
    case Rank:
        return formatCount(std::int64_t(w.rank));
    case Id: // identifiers, written as ps and top write them (no grouping)
        if (!r.process)
            return QStringLiteral("tid %1").arg(qulonglong(w.threadId));
        return w.host.empty() ? QStringLiteral("pid %1").arg(qint64(w.pid))
                              : QStringLiteral("pid %1 on %2")
                                    .arg(qint64(w.pid))
                                    .arg(QString::fromStdString(w.host));
    case State: {
        const QString state = QString::fromLatin1(stateName(w.state));
        return w.failure.empty() ? state : state + ": " + QString::fromStdString(w.failure);
    }
    case Steps:
        return formatCount(w.steps);
    case SamplesPerSecond:
        return r.samplesPerSecond < 0 ? none : formatDecimal(r.samplesPerSecond, 0);
    case LastLoss:
        return formatAnySize(double(w.lastLoss), 4); // a diverged one in a few characters
    case Divergence:
        return shortReal(double(w.lastDivergence));
    case Communication:
        return r.commShare < 0 ? none : percent(r.commShare);
    case LostUpdates: // lost of written (gpu-hogwild, or Count lost updates)
        return w.updateWrites == 0
                   ? none
                   : tr("%1 of %2").arg(formatCount(w.lostUpdates), formatCount(w.updateWrites));
    case Startup:
        return w.startupSeconds < 0 ? none : formatDuration(w.startupSeconds);
    default:
        return {};
    }
}

void WorkerTableModel::setRows(const QList<WorkerRow>& rows) {
    if (rows.size() != rows_.size()) {
        beginResetModel();
        rows_ = rows;
        endResetModel();
        return;
    }
    rows_ = rows;
    if (!rows_.isEmpty())
        emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, Count - 1));
}

} // namespace hwl::ui
