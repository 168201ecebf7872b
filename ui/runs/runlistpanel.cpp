#include "runs/runlistpanel.h"

#include "runs/runlibrary.h"
#include "runs/runstablemodel.h"
#include "runs/scalingchart.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace hwl::ui {

RunListPanel::RunListPanel(RunLibrary* library, QWidget* parent)
    : QWidget(parent), library_(library) {
    model_ = new RunsTableModel(library_, this);
    proxy_ = new RunsSortProxy(this);
    proxy_->setSourceModel(model_);
    makeTable();
    filter_ = new QLineEdit;
    filter_->setObjectName("runFilter");
    filter_->setPlaceholderText(tr("Filter: rows with a cell holding this text"));
    filter_->setClearButtonEnabled(true);
    fold_ = new QCheckBox(tr("Fold repeats"));
    fold_->setObjectName("foldRepeats");
    fold_->setToolTip(tr("Show the runs that differ only in their seed (repeats) as one row "
                         "per experiment: how many, and each figure as their mean ± sample "
                         "standard deviation (n − 1). Ticking a folded row overlays all its "
                         "runs. Offered when some kept runs are repeats"));
    scaling_ = new ScalingChart;

    auto* open = new QPushButton(tr("Open run…"));
    open->setToolTip(tr("Add a metrics.csv (written by --out or Export metrics) to the list"));
    auto* openFolder = new QPushButton(tr("Open folder…"));
    openFolder->setToolTip(tr("Add the run a --out folder holds (its metrics.csv, named by "
                              "its experiment.json, its figures from its summary.json), or "
                              "every run below a folder of runs (a sweep's --out, a "
                              "comparison's), unticked, as --compare finds them"));
    delete_ = new QPushButton(tr("Delete"));
    delete_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(openFolder);
    buttons->addStretch(1);
    buttons->addWidget(delete_);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* above = new QHBoxLayout;
    above->addWidget(filter_, 1);
    above->addWidget(fold_);
    leftLayout->addLayout(above);
    leftLayout->addWidget(table_, 1);
    leftLayout->addLayout(buttons);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(scaling_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split, 1);

    connect(open, &QPushButton::clicked, this, [this] { emit openRequested(false); });
    connect(openFolder, &QPushButton::clicked, this, [this] { emit openRequested(true); });
    connect(delete_, &QPushButton::clicked, this, &RunListPanel::deleteSelected);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { delete_->setEnabled(table_->selectionModel()->hasSelection()); });
    connect(model_, &RunsTableModel::saveFailed, this, &RunListPanel::saveFailed);
    connect(model_, &RunsTableModel::runTicked, this, &RunListPanel::runTicked);
    connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, &RunListPanel::rememberSort);
    connect(model_, &QAbstractItemModel::modelReset, this, &RunListPanel::restoreSort);
    connect(model_, &QAbstractItemModel::modelReset, table_, &QTableView::scrollToBottom);
    connect(fold_, &QCheckBox::toggled, model_, &RunsTableModel::setFoldRepeats);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    // The chart draws the rows the table shows: again when they change.
    connect(proxy_, &QAbstractItemModel::modelReset, this, &RunListPanel::updateScaling);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &RunListPanel::updateScaling);
    connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunListPanel::updateScaling);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &RunListPanel::updateScaling);
    auto* del = new QAction(this);
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(del, &QAction::triggered, this, &RunListPanel::deleteSelected);
    table_->addAction(del);
    restoreSort();
    updateScaling();
}

void RunListPanel::makeTable() {
    table_ = new QTableView;
    table_->setObjectName("runTable");
    table_->setModel(proxy_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    table_->verticalHeader()->hide();
    table_->setTextElideMode(Qt::ElideRight);
    table_->viewport()->installEventFilter(this);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // kept order
    table_->setSortingEnabled(true);
    table_->setToolTip(tr("Finished runs, kept unticked. Tick one to overlay its curves on the "
                          "charts (loss, test loss, accuracy, throughput, divergence); a "
                          "comparison ticks its own runs. A run of another model or dataset "
                          "is drawn on the loss and accuracy charts only when you tick it. "
                          "Click a header to sort; double-click a name to rename; Delete "
                          "removes the selected runs. The list is kept across restarts"));
}

void RunListPanel::rememberSort() {
    const int column = table_->horizontalHeader()->sortIndicatorSection();
    sortOrder_ = table_->horizontalHeader()->sortIndicatorOrder();
    sortedBy_ = column >= 0 && column < model_->columnCount()
                    ? model_->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString()
                    : QString();
}

void RunListPanel::fitNameColumn() {
    QHeaderView* header = table_->horizontalHeader();
    if (header->count() == 0)
        return;
    header->setSectionResizeMode(0, QHeaderView::Interactive);
    table_->resizeColumnToContents(0);
    const int most = std::max(160, table_->viewport()->width() * 2 / 5);
    if (header->sectionSize(0) > most)
        header->resizeSection(0, most);
}

bool RunListPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == table_->viewport() && event->type() == QEvent::Resize)
        fitNameColumn();
    return QWidget::eventFilter(watched, event);
}

void RunListPanel::restoreSort() {
    fitNameColumn();
    fold_->setEnabled(model_->hasRepeats());
    if (sortedBy_.isEmpty())
        return;
    int column = -1;
    for (int c = 0; c < model_->columnCount() && column < 0; ++c)
        if (model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == sortedBy_)
            column = c;
    if (column >= 0) {
        table_->sortByColumn(column, sortOrder_);
    } else { // its column is gone: the kept order
        table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        proxy_->sort(-1);
    }
}

void RunListPanel::updateScaling() {
    QStringList figures;
    for (int f = 0; f < RunsTableModel::FigureCount; ++f)
        figures << RunsTableModel::figureName(RunsTableModel::Figure(f));
    QList<ScalingChart::Row> rows; // each run of the rows shown: a folded row's all
    for (int i = 0; i < proxy_->rowCount(); ++i)
        for (const int run : model_->runsOf(proxy_->mapToSource(proxy_->index(i, 0)).row())) {
            const SavedRun& saved = model_->runs()[run];
            ScalingChart::Row r;
            r.result = saved.result;
            for (const QString& key : model_->fieldKeys())
                r.fields.insert(key, saved.fields.value(key));
            for (int f = 0; f < RunsTableModel::FigureCount; ++f)
                r.figures << RunsTableModel::figureOf(saved, RunsTableModel::Figure(f));
            rows << r;
        }
    scaling_->setData(figures, model_->fieldKeys(), rows);
}

void RunListPanel::deleteSelected() {
    QList<int> runs; // a folded row's all
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
        runs.append(model_->runsOf(proxy_->mapToSource(index).row()));
    std::sort(runs.begin(), runs.end(), std::greater<>());
    for (const int run : runs)
        if (const QString why = library_->remove(run); !why.isEmpty())
            emit saveFailed(why);
}

} // namespace hwl::ui
