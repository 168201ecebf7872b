#pragma once
// RunListPanel: the Runs tab. A table of the finished runs (RunLibrary,
// shown by RunsTableModel): each with its tick to overlay it on the charts
// (a finished run is kept unticked; a comparison ticks its own runs), its
// colour, its name (double-click to rename) and, on hover, what ran and what
// it reached; then the fields that vary between the runs and the final
// figures. A click on a header sorts by it (the sort follows its column when
// the columns change); the filter keeps the rows one of whose cells holds
// its text. "Fold repeats", offered when some runs differ only in their
// seed, shows each such experiment as one row of mean ± sd. Beside the
// table, the scaling chart draws a figure of the runs of the rows shown
// against a field, one line per value of another, with the spread of the
// runs a point averages. Buttons open a metrics.csv or a --out folder into
// the list, and delete runs (a folded row's all).
#include <QWidget>

class QCheckBox;
class QLineEdit;
class QPushButton;
class QTableView;

namespace hwl::ui {

class RunLibrary;
class RunsSortProxy;
class RunsTableModel;
class ScalingChart;

class RunListPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunListPanel(RunLibrary* library, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    RunsTableModel* model() const { return model_; }
    RunsSortProxy* proxy() const { return proxy_; }
    QLineEdit* filter() const { return filter_; }
    QCheckBox* foldRepeats() const { return fold_; }
    ScalingChart* scalingChart() const { return scaling_; }

Q_SIGNALS:
    /// "Open run…" / "Open folder…": the window opens it (and reports errors).
    void openRequested(bool folder);
    /// A library change could not be saved: the reason, for the event log.
    void saveFailed(const QString& why);
    /// The user ticked run `index` (RunLibrary::runs()) to overlay it.
    void runTicked(int index);

private:
    /// The table's view of the proxy: sorting, selection, editing.
    void makeTable();
    void deleteSelected();
    /// Gives the scaling chart the rows the table shows.
    void updateScaling();
    /// Keeps the sort on its column's header across a reset of the columns.
    void rememberSort();
    void restoreSort();
    /// The run's name column: its names whole while they leave the figures
    /// room, else at most two fifths of the table (names cut, whole in
    /// their tooltips), so that the figures are in view (issue 49: a wide
    /// name pushed samples/s past the edge, read "275,80").
    void fitNameColumn();
    bool eventFilter(QObject* watched, QEvent* event) override;

    RunLibrary* library_ = nullptr;
    RunsTableModel* model_ = nullptr;
    RunsSortProxy* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QCheckBox* fold_ = nullptr;
    QString sortedBy_; ///< the sorted column's header across a reset; empty: kept order
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
    ScalingChart* scaling_ = nullptr;
    QPushButton* delete_ = nullptr;
};

} // namespace hwl::ui
