#include "runs/runstablemodel.h"

#include "config/fields.h"
#include "runs/runlibrary.h"
#include "widgets/numbers.h"

#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace hwl::ui {

namespace {

QIcon swatch(const QColor& color) {
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    return QIcon(pixmap);
}

QString tooltipOf(const SavedRun& r) {
    QString text = r.description.toHtmlEscaped();
    if (r.finished.isValid())
        text += QStringLiteral("<br>finished %1").arg(r.finished.toString("yyyy-MM-dd HH:mm"));
    if (r.testAccuracy >= 0)
        text += QStringLiteral("<br>test accuracy %1%").arg(formatDecimal(100 * r.testAccuracy, 2));
    if (r.samplesPerSecond > 0)
        text += QStringLiteral("<br>%1 samples/s").arg(formatDecimal(r.samplesPerSecond, 0));
    double first = -1, last = -1; // the workers' start-up, when known
    for (const double s : r.startupSeconds)
        if (s >= 0) {
            first = first < 0 ? s : std::min(first, s);
            last = std::max(last, s);
        }
    if (last >= 0)
        text += QStringLiteral("<br>workers started %1–%2 ms after launch")
                    .arg(formatDecimal(first * 1e3, 1), formatDecimal(last * 1e3, 1));
    return text;
}

/// The keys in the field table's order, then any other (a later version's) by name.
int fieldRank(const QString& key) {
    const auto& fields = experimentFields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (key == QLatin1String(fields[i].key))
            return int(i);
    return int(fields.size());
}

/// A figure's text as its column shows it.
QString figureText(RunsTableModel::Figure f, double x) {
    switch (f) {
    case RunsTableModel::SamplesPerSecond:
    case RunsTableModel::LostUpdates:
        return formatDecimal(x, 0);
    case RunsTableModel::TestAccuracy:
    case RunsTableModel::BestAccuracy:
    case RunsTableModel::CommShare:
        return formatDecimal(x, 2) + QLatin1Char('%');
    case RunsTableModel::StartupMs:
        return formatDecimal(x, 1);
    default:
        return formatSignificant(x, 4);
    }
}

} // namespace

RunsTableModel::RunsTableModel(RunLibrary* library, QObject* parent)
    : QAbstractTableModel(parent), library_(library) {
    connect(library_, &RunLibrary::changed, this, &RunsTableModel::refresh, Qt::QueuedConnection);
    refresh();
}

void RunsTableModel::refresh() {
    beginResetModel();
    runs_ = library_->runs();
    // A field varies when the runs that know their fields hold two values of it.
    std::map<QString, std::set<QString>> values;
    for (const SavedRun& r : runs_)
        for (auto it = r.fields.begin(); it != r.fields.end(); ++it)
            values[it.key()].insert(it.value());
    fieldKeys_.clear();
    for (const auto& [key, seen] : values)
        if (seen.size() > 1)
            fieldKeys_.append(key);
    std::stable_sort(fieldKeys_.begin(), fieldKeys_.end(), [](const QString& a, const QString& b) {
        return fieldRank(a) < fieldRank(b);
    });
    endResetModel();
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(runs_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 1 + int(fieldKeys_.size()) + FigureCount;
}

QString RunsTableModel::figureName(Figure f) {
    switch (f) {
    case SamplesPerSecond:
        return tr("samples/s");
    case TestAccuracy:
        return tr("test acc");
    case BestAccuracy:
        return tr("best acc");
    case TestLoss:
        return tr("test loss");
    case TrainSeconds:
        return tr("train s");
    case StartupMs:
        return tr("start-up ms");
    case CommShare:
        return tr("comm share");
    case LostUpdates:
        return tr("lost updates");
    default:
        return {};
    }
}

QString RunsTableModel::figureHelp(Figure f) {
    switch (f) {
    case SamplesPerSecond:
        return tr("Training samples per second, all workers together");
    case TestAccuracy:
        return tr("Test accuracy at the last evaluation");
    case BestAccuracy:
        return tr("The best test accuracy of any evaluation");
    case TestLoss:
        return tr("Test loss at the last evaluation");
    case TrainSeconds:
        return tr("Seconds from the first step to the end of the training loop");
    case StartupMs:
        return tr("The slowest worker's start-up: milliseconds from launch to its first step");
    case CommShare:
        return tr("Data-parallel modes: the share of the workers' loop spent in collectives");
    case LostUpdates:
        return tr("gpu-hogwild: parameter writes another block overwrote");
    default:
        return {};
    }
}

double RunsTableModel::figure(int row, Figure f) const {
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    if (row < 0 || row >= runs_.size())
        return unknown;
    const SavedRun& r = runs_[row];
    const auto known = [](double x, double scale) { return x >= 0 ? x * scale : unknown; };
    switch (f) {
    case SamplesPerSecond:
        return r.samplesPerSecond > 0 ? r.samplesPerSecond : unknown;
    case TestAccuracy:
        return known(r.testAccuracy, 100);
    case BestAccuracy:
        return known(r.bestTestAccuracy(), 100);
    case TestLoss:
        return known(r.finalTestLoss, 1);
    case TrainSeconds:
        return known(r.trainSeconds, 1);
    case StartupMs:
        return known(r.startup(), 1e3);
    case CommShare:
        return known(r.commShare, 100);
    case LostUpdates:
        return known(double(r.lostUpdates), 1);
    default:
        return unknown;
    }
}

QString RunsTableModel::fieldValue(int row, const QString& key) const {
    return row >= 0 && row < runs_.size() ? runs_[row].fields.value(key) : QString();
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= runs_.size())
        return {};
    const SavedRun& r = runs_[index.row()];
    const int column = index.column();
    if (role == Qt::ToolTipRole)
        return tooltipOf(r);
    if (column == 0) {
        switch (role) {
        case Qt::DisplayRole:
        case Qt::EditRole:
        case SortRole:
            return r.name;
        case Qt::DecorationRole:
            return swatch(r.color);
        case Qt::CheckStateRole:
            return r.visible ? Qt::Checked : Qt::Unchecked;
        default:
            return {};
        }
    }
    const int field = column - 1;
    if (field < fieldKeys_.size()) {
        const QString value = r.fields.value(fieldKeys_[field]);
        bool number = false;
        const double x = value.toDouble(&number);
        if (role == Qt::DisplayRole)
            return value;
        if (role == SortRole)
            return value.isEmpty() ? QVariant() : number ? QVariant(x) : QVariant(value);
        if (role == Qt::TextAlignmentRole && number)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return figureData(index.row(), Figure(field - int(fieldKeys_.size())), role);
}

QVariant RunsTableModel::figureData(int row, Figure f, int role) const {
    const double x = figure(row, f);
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (!std::isfinite(x) || (role != Qt::DisplayRole && role != SortRole))
        return {};
    return role == SortRole ? QVariant(x) : QVariant(figureText(f, x));
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == 0)
        return role == Qt::DisplayRole ? tr("run")
                                       : tr("Tick a run to overlay it on the charts; "
                                            "double-click its name to rename it");
    const int field = section - 1;
    if (field < fieldKeys_.size())
        return role == Qt::DisplayRole
                   ? fieldKeys_[field]
                   : tr("The experiment's %1: a field whose value differs between the runs")
                         .arg(fieldKeys_[field]);
    const auto f = Figure(field - int(fieldKeys_.size()));
    return role == Qt::DisplayRole ? figureName(f) : figureHelp(f);
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == 0)
        flags |= Qt::ItemIsUserCheckable | Qt::ItemIsEditable;
    return flags;
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != 0 || index.row() >= runs_.size() ||
        index.row() >= library_->size())
        return false;
    const int row = index.row();
    QString why;
    bool ticked = false;
    if (role == Qt::CheckStateRole) {
        const bool visible = value.value<Qt::CheckState>() == Qt::Checked;
        ticked = visible && !library_->runs()[row].visible;
        runs_[row].visible = visible; // shown at once; the library's change rereads all
        why = library_->setVisible(row, visible, /*byUser=*/true);
    } else if (role == Qt::EditRole) {
        if (value.toString().trimmed().isEmpty()) // not a name: the old one stays
            return false;
        why = library_->rename(row, value.toString());
        runs_[row].name = library_->runs()[row].name;
    } else {
        return false;
    }
    emit dataChanged(index, index);
    if (!why.isEmpty())
        emit saveFailed(why);
    if (ticked)
        emit runTicked(row);
    return true;
}

// ---- RunsSortProxy ------------------------------------------------------------

RunsSortProxy::RunsSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunsTableModel::SortRole);
    setFilterKeyColumn(-1); // any cell
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

bool RunsSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (!a.isValid() || !b.isValid()) // unknown last, whichever the order
        return a.isValid() != b.isValid() && (sortOrder() == Qt::AscendingOrder) == a.isValid();
    const bool numbers = a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double;
    if (numbers)
        return a.toDouble() < b.toDouble();
    if (a.typeId() != b.typeId()) // numbers before words
        return a.typeId() == QMetaType::Double;
    return a.toString().localeAwareCompare(b.toString()) < 0;
}

} // namespace hwl::ui
