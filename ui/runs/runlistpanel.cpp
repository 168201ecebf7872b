#include "runs/runlistpanel.h"

#include "charts/numbers.h"
#include "runs/runlibrary.h"

#include <QAction>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

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

} // namespace

RunListPanel::RunListPanel(RunLibrary* library, QWidget* parent)
    : QWidget(parent), library_(library) {
    list_ = new QListWidget;
    list_->setObjectName("runList");
    list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    list_->setToolTip(tr("Finished runs, kept unticked. Tick one to overlay its curves on the "
                         "charts (loss, test loss, accuracy, throughput, divergence); a "
                         "comparison ticks its own runs. A run of another model or dataset "
                         "is drawn on the loss and accuracy charts only when you tick it. "
                         "Double-click to rename; Delete removes it. The list is kept across "
                         "restarts"));
    auto* open = new QPushButton(tr("Open run…"));
    open->setToolTip(tr("Add a metrics.csv (written by --out or Export metrics) to the list"));
    auto* openFolder = new QPushButton(tr("Open --out folder…"));
    openFolder->setToolTip(tr("Add the run a --out folder holds (its metrics.csv, named by "
                              "its experiment.json)"));
    delete_ = new QPushButton(tr("Delete"));
    delete_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(openFolder);
    buttons->addStretch(1);
    buttons->addWidget(delete_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);

    connect(open, &QPushButton::clicked, this, [this] { emit openRequested(false); });
    connect(openFolder, &QPushButton::clicked, this, [this] { emit openRequested(true); });
    connect(delete_, &QPushButton::clicked, this, &RunListPanel::deleteSelected);
    connect(list_, &QListWidget::itemSelectionChanged, this,
            [this] { delete_->setEnabled(!list_->selectedItems().isEmpty()); });
    connect(list_, &QListWidget::itemChanged, this, &RunListPanel::onItemChanged);
    // Queued: a change made from an item's own signal must not delete it there.
    connect(library_, &RunLibrary::changed, this, &RunListPanel::rebuild, Qt::QueuedConnection);
    auto* del = new QAction(this);
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(del, &QAction::triggered, this, &RunListPanel::deleteSelected);
    list_->addAction(del);
    rebuild();
}

void RunListPanel::rebuild() {
    rebuilding_ = true;
    list_->clear();
    for (const SavedRun& r : library_->runs()) {
        auto* item = new QListWidgetItem(swatch(r.color), r.name);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
        item->setCheckState(r.visible ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(tooltipOf(r));
        list_->addItem(item);
    }
    list_->scrollToBottom();
    rebuilding_ = false;
}

void RunListPanel::onItemChanged(QListWidgetItem* item) {
    if (rebuilding_)
        return;
    // Read the item first: a library change rebuilds the list (queued).
    const int row = list_->row(item);
    if (row < 0 || row >= library_->size())
        return;
    const bool visible = item->checkState() == Qt::Checked;
    const bool ticked = visible && !library_->runs()[row].visible;
    const QString name = item->text();
    if (name.trimmed().isEmpty()) // not a name: show the old one again
        QMetaObject::invokeMethod(this, &RunListPanel::rebuild, Qt::QueuedConnection);
    QString why = library_->setVisible(row, visible, /*byUser=*/true);
    if (why.isEmpty())
        why = library_->rename(row, name);
    if (!why.isEmpty())
        emit saveFailed(why);
    if (ticked)
        emit runTicked(row);
}

void RunListPanel::deleteSelected() {
    QList<int> rows;
    for (QListWidgetItem* item : list_->selectedItems())
        rows.append(list_->row(item));
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (const int row : rows)
        if (const QString why = library_->remove(row); !why.isEmpty())
            emit saveFailed(why);
}

} // namespace hwl::ui
