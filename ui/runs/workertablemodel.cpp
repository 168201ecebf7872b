#include "runs/workertablemodel.h"

#include <QBrush>
#include <QColor>

namespace hwl::ui {

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

QVariant WorkerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == SamplesPerSecond)
        return rateToolTip();
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Id:
        return tr("PID / TID");
    case State:
        return tr("State");
    case Steps:
        return tr("Steps");
    case SamplesPerSecond:
        return tr("Samples/s");
    case LastLoss:
        return tr("Last loss");
    case Divergence:
        return tr("Divergence");
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

QVariant WorkerTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    const WorkerRow& r = rows_[index.row()];
    const WorkerSnapshot& w = r.worker;
    const QString failure = QString::fromStdString(w.failure);
    if (role == Qt::ToolTipRole && index.column() == State && !failure.isEmpty())
        return failure;
    if (role == Qt::ToolTipRole && index.column() == SamplesPerSecond)
        return r.averageRate
                   ? tr("Average over this worker's whole training (%1 samples)").arg(w.samples)
                   : tr("Over the last refresh interval (about 0.2 s)");
    if (role == Qt::ForegroundRole && index.column() == State && w.state == WorkerState::Failed)
        return QBrush(QColor(0xc0, 0x20, 0x20));
    if (role == Qt::TextAlignmentRole && index.column() != State)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Rank:
        return int(w.rank);
    case Id:
        if (!r.process)
            return QStringLiteral("tid %1").arg(qint64(w.threadId));
        return w.host.empty() ? QStringLiteral("pid %1").arg(qint64(w.pid))
                              : QStringLiteral("pid %1 on %2")
                                    .arg(qint64(w.pid))
                                    .arg(QString::fromStdString(w.host));
    case State: {
        const QString state = QString::fromLatin1(toString(w.state));
        return failure.isEmpty() ? state : state + ": " + failure;
    }
    case Steps:
        return QString::number(w.steps);
    case SamplesPerSecond:
        return r.samplesPerSecond < 0 ? QStringLiteral("–")
                                      : QString::number(r.samplesPerSecond, 'f', 0);
    case LastLoss:
        return QString::number(double(w.lastLoss), 'f', 4);
    case Divergence:
        return QString::number(double(w.lastDivergence), 'g', 4);
    case Communication:
        return r.commShare < 0 ? QStringLiteral("–")
                               : QString::number(100 * r.commShare, 'f', 0) + " %";
    case LostUpdates: // lost of written (gpu-hogwild, or --lost-updates)
        return w.updateWrites == 0
                   ? QStringLiteral("–")
                   : QStringLiteral("%1 of %2 (%3 %)")
                         .arg(w.lostUpdates)
                         .arg(w.updateWrites)
                         .arg(100.0 * double(w.lostUpdates) / double(w.updateWrites), 0, 'g', 3);
    case Startup:
        return w.startupSeconds < 0 ? QStringLiteral("–")
                                    : QString::number(w.startupSeconds * 1e3, 'f', 2) + " ms";
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
