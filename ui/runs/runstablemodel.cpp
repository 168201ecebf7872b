#include "runs/runstablemodel.h"

#include "config/fields.h"
#include "io/runfolders.h"
#include "runs/runlibrary.h"
#include "widgets/numbers.h"

#include <QIcon>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace hwl::ui {

namespace {

/// A run's colour, or a folded row's runs' colours side by side (at most four).
QIcon swatch(const QList<QColor>& colors) {
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    QPainterPath round;
    round.addRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    painter.setClipPath(round);
    const int n = std::min(int(colors.size()), 4);
    for (int i = 0; i < n; ++i)
        painter.fillRect(QRectF(1 + 12.0 * i / n, 1, 12.0 / n, 12), colors[i]);
    return QIcon(pixmap);
}

QString tooltipOf(const SavedRun& r) {
    // The name first, whole: the column may cut it to leave the figures room.
    QString text = QStringLiteral("<b>%1</b><br>%2")
                       .arg(r.name.toHtmlEscaped(), r.description.toHtmlEscaped());
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

/// A folded row's name: its first run's, with the seed written * where the
/// name says "seed=N" (a sweep's --out folder), else with how many more.
QString groupName(const QList<SavedRun>& runs, const QList<int>& group) {
    const SavedRun& first = runs[group.front()];
    if (group.size() == 1)
        return first.name;
    const QString named = QStringLiteral("seed=") + first.fields.value(QStringLiteral("seed"));
    const qsizetype at = first.name.lastIndexOf(named);
    const qsizetype end = at + named.size();
    if (at >= 0 && (end == first.name.size() || !first.name[end].isDigit()))
        return QString(first.name).replace(at, named.size(), QStringLiteral("seed=*"));
    return RunsTableModel::tr("%1 and %n more", "", int(group.size() - 1)).arg(first.name);
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
    const QList<QList<int>> groups = repeatRows(runs_);
    hasRepeats_ = groups.size() < runs_.size();
    folded_ = foldAsked_ && hasRepeats_;
    rows_.clear();
    if (folded_) {
        rows_ = groups;
        fieldKeys_.removeAll(QStringLiteral("seed"));
    } else {
        for (int i = 0; i < runs_.size(); ++i)
            rows_.append(QList<int>{i});
    }
    endResetModel();
}

void RunsTableModel::setFoldRepeats(bool fold) {
    if (fold == foldAsked_)
        return;
    foldAsked_ = fold;
    refresh();
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : figureColumn(FigureCount);
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
    case TargetSeconds:
        return tr("to target s");
    case TargetSamples:
        return tr("samples to target");
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
    case TargetSeconds:
        return tr("Runs with a target (--target-accuracy, --target-loss): training seconds to "
                  "the evaluation that reached it; a folded row gives the median too, and how "
                  "many of its runs reached it");
    case TargetSamples:
        return tr("Runs with a target: the samples all workers trained until it was reached");
    default:
        return {};
    }
}

QList<QList<int>> RunsTableModel::repeatRows(const QList<SavedRun>& runs) {
    std::vector<std::map<std::string, std::string>> fields;
    fields.reserve(std::size_t(runs.size()));
    for (const SavedRun& r : runs) {
        std::map<std::string, std::string>& f = fields.emplace_back();
        for (auto it = r.fields.begin(); it != r.fields.end(); ++it)
            f.emplace(it.key().toStdString(), it.value().toStdString());
    }
    QList<QList<int>> groups;
    for (const std::vector<std::size_t>& group : hwl::repeatGroups(fields)) {
        QList<int>& rows = groups.emplaceBack();
        for (const std::size_t i : group)
            rows.append(int(i));
    }
    return groups;
}

double RunsTableModel::figureOf(const SavedRun& r, Figure f) {
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
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
    case TargetSeconds:
        return known(r.targetSeconds, 1);
    case TargetSamples:
        return known(r.targetSamples, 1);
    default:
        return unknown;
    }
}

Spread RunsTableModel::spread(int row, Figure f) const {
    if (row < 0 || row >= rows_.size())
        return {};
    std::vector<double> xs;
    for (const int run : rows_[row])
        xs.push_back(figureOf(runs_[run], f));
    return spreadOf(xs);
}

QString RunsTableModel::fieldValue(int row, const QString& key) const {
    return row >= 0 && row < rows_.size() ? runs_[rows_[row].front()].fields.value(key) : QString();
}

QString RunsTableModel::repeatsText(int row) const {
    QStringList seeds;
    for (const int run : rows_[row])
        seeds << runs_[run].fields.value(QStringLiteral("seed"));
    return tr("%n runs that differ only in their seed (seeds %1)", "", int(rows_[row].size()))
        .arg(seeds.join(QStringLiteral(", ")));
}

QString RunsTableModel::rowTooltip(int row) const {
    const QList<int>& runs = rows_[row];
    if (runs.size() == 1)
        return tooltipOf(runs_[runs.front()]);
    QString text = tr("%1, folded into one row: each figure is their mean ± sample standard "
                      "deviation (n − 1). Tick to overlay them all.")
                       .arg(repeatsText(row).toHtmlEscaped());
    for (const int run : runs)
        text += QStringLiteral("<br>• ") + runs_[run].name.toHtmlEscaped();
    return text;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    const int row = index.row();
    const int column = index.column();
    if (column == 0)
        return runData(row, role);
    if (column == resultColumn())
        return resultData(row, role);
    if (role == Qt::ToolTipRole && column < figureColumn(Figure(0)))
        return rowTooltip(row);
    const int field = column - 1;
    if (field < fieldKeys_.size()) {
        const QString value = fieldValue(row, fieldKeys_[field]);
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
    if (column == repeatsColumn()) {
        const int n = int(rows_[row].size());
        if (role == Qt::DisplayRole)
            return formatCount(n);
        if (role == SortRole)
            return double(n);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return figureData(row, Figure(column - figureColumn(Figure(0))), role);
}

QVariant RunsTableModel::resultData(int row, int role) const {
    // A folded row's runs' results, each with its count where they differ:
    // "learned", or "2 learned, 1 diverged".
    QMap<QString, int> counts;
    QStringList order, reasons;
    for (const int run : rows_[row]) {
        const QString& result = runs_[run].result;
        if (!counts.contains(result))
            order << result;
        ++counts[result];
        if (!runs_[run].resultReason.isEmpty())
            reasons << runs_[run].resultReason;
    }
    QStringList parts;
    for (const QString& result : order)
        parts << (order.size() == 1 ? result
                                    : QStringLiteral("%1 %2").arg(counts[result]).arg(result));
    const QString text = parts.join(QStringLiteral(", "));
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        return text;
    case Qt::ToolTipRole:
        return reasons.isEmpty() ? QVariant() : QVariant(reasons.join(QStringLiteral("\n")));
    case Qt::ForegroundRole: // what went wrong stands out, in the palette's own red
        return counts.contains(QStringLiteral("diverged")) ||
                       counts.contains(QStringLiteral("failed"))
                   ? QVariant(QColor(200, 40, 40))
                   : QVariant();
    default:
        return {};
    }
}

QVariant RunsTableModel::runData(int row, int role) const {
    const QList<int>& runs = rows_[row];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case SortRole:
        return groupName(runs_, runs);
    case Qt::DecorationRole: {
        QList<QColor> colors;
        for (const int run : runs)
            colors << runs_[run].color;
        return swatch(colors);
    }
    case Qt::CheckStateRole: {
        const auto ticked =
            std::count_if(runs.begin(), runs.end(), [this](int run) { return runs_[run].visible; });
        return ticked == 0             ? Qt::Unchecked
               : ticked == runs.size() ? Qt::Checked
                                       : Qt::PartiallyChecked;
    }
    case Qt::ToolTipRole:
        return rowTooltip(row);
    default:
        return {};
    }
}

QVariant RunsTableModel::figureData(int row, Figure f, int role) const {
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const Spread s = spread(row, f);
    const qsizetype runs = rows_[row].size();
    if (role == Qt::ToolTipRole && runs > 1 && s.n > 0) {
        const QString name = figureName(f), repeats = repeatsText(row);
        if (s.n == 1)
            return tr("%1: the one run that has it of %2").arg(name, repeats);
        if (s.n < std::size_t(runs))
            return tr("%1: mean ± sample standard deviation (n − 1) over the %2 that have it "
                      "of %3")
                .arg(name)
                .arg(s.n)
                .arg(repeats);
        return tr("%1: mean ± sample standard deviation (n − 1) over %2").arg(name, repeats);
    }
    if (role == Qt::ToolTipRole)
        return rowTooltip(row);
    if (f == TargetSeconds || f == TargetSamples)
        return targetData(row, f, role, s);
    if (!std::isfinite(s.mean) || (role != Qt::DisplayRole && role != SortRole))
        return {};
    if (role == SortRole)
        return s.mean;
    QString text = figureText(f, s.mean);
    if (std::isfinite(s.sd))
        text += QStringLiteral(" ± ") + figureText(f, s.sd);
    return text;
}

QVariant RunsTableModel::targetData(int row, Figure f, int role, const Spread& s) const {
    // A run that missed its target says so (never a blank that reads as
    // "no target"); a folded row its median, and k of N reached.
    qsizetype withTarget = 0;
    for (const int run : rows_[row])
        withTarget += !runs_[run].target.isEmpty();
    if (role == SortRole) // the median, as MLPerf ranks; a row that missed it, last
        return std::isfinite(s.median) ? QVariant(s.median) : QVariant();
    if (role != Qt::DisplayRole || withTarget == 0)
        return {};
    if (s.n == 0)
        return rows_[row].size() == 1 ? tr("not reached") : tr("0 of %1 reached").arg(withTarget);
    QString text = figureText(f, s.mean);
    if (std::isfinite(s.sd))
        text = tr("median %1, %2 ± %3").arg(figureText(f, s.median), text, figureText(f, s.sd));
    if (s.n < std::size_t(withTarget) || rows_[row].size() > 1)
        text += tr(" (%1 of %2 reached)").arg(s.n).arg(withTarget);
    return text;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool display = role == Qt::DisplayRole;
    if (section == 0)
        return display ? tr("run")
                       : tr("Tick a run to overlay it on the charts; "
                            "double-click its name to rename it") +
                             (folded_ ? tr(". A folded row's tick overlays all its runs") : "");
    const int field = section - 1;
    if (field < fieldKeys_.size())
        return display ? fieldKeys_[field]
                       : tr("The experiment's %1: a field whose value differs between the runs")
                             .arg(fieldKeys_[field]);
    if (section == repeatsColumn())
        return display ? tr("repeats")
                       : tr("How many runs the row folds: runs whose experiments differ only "
                            "in their seed");
    if (section == resultColumn())
        return display ? tr("result")
                       : tr("How the run ended: finished, stopped or failed, or, where its "
                            "figures say so, diverged (its loss ended well above where it "
                            "started) or at chance (its test accuracy is what always answering "
                            "the most common class scores)");
    const auto f = Figure(section - figureColumn(Figure(0)));
    if (display)
        return figureName(f);
    return folded_ ? tr("%1; on a folded row, the mean ± sample standard deviation (n − 1) "
                        "over its runs")
                         .arg(figureHelp(f))
                   : figureHelp(f);
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == 0 && index.row() < rows_.size()) {
        flags |= Qt::ItemIsUserCheckable;
        if (rows_[index.row()].size() == 1) // a folded row has no one name to edit
            flags |= Qt::ItemIsEditable;
    }
    return flags;
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != 0 || index.row() >= rows_.size())
        return false;
    const QList<int>& runs = rows_[index.row()];
    if (std::any_of(runs.begin(), runs.end(), [this](int run) { return run >= library_->size(); }))
        return false;
    if (role == Qt::CheckStateRole)
        return setTicked(index, value.value<Qt::CheckState>() == Qt::Checked);
    if (role != Qt::EditRole || runs.size() != 1 || value.toString().trimmed().isEmpty())
        return false; // not a name (or a folded row's): the old one stays
    const int run = runs.front();
    const QString why = library_->rename(run, value.toString());
    runs_[run].name = library_->runs()[run].name;
    emit dataChanged(index, index);
    if (!why.isEmpty())
        emit saveFailed(why);
    return true;
}

bool RunsTableModel::setTicked(const QModelIndex& index, bool visible) {
    QList<int> ticked;
    QString why;
    for (const int run : rows_[index.row()]) {
        if (visible && !library_->runs()[run].visible)
            ticked.append(run);
        runs_[run].visible = visible; // shown at once; the library's change rereads all
        if (const QString failed = library_->setVisible(run, visible, /*byUser=*/true);
            !failed.isEmpty())
            why = failed;
    }
    emit dataChanged(index, index);
    if (!why.isEmpty())
        emit saveFailed(why);
    for (const int run : ticked)
        emit runTicked(run);
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
