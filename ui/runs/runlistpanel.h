#pragma once
// RunListPanel: the window's list of finished runs (RunLibrary), each with
// its colour, a tick to overlay it on the charts (a finished run is kept
// unticked; a comparison ticks its own runs), its name (double-click to
// rename) and, on hover, what ran and what it reached. Buttons open a
// metrics.csv or a --out folder into the list, and delete runs.
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace hwl::ui {

class RunLibrary;

class RunListPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunListPanel(RunLibrary* library, QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }

Q_SIGNALS:
    /// "Open run…" / "Open folder…": the window opens it (and reports errors).
    void openRequested(bool folder);
    /// A library change could not be saved: the reason, for the event log.
    void saveFailed(const QString& why);
    /// The user ticked run `index` (RunLibrary::runs()) to overlay it.
    void runTicked(int index);

private:
    void rebuild();
    void onItemChanged(QListWidgetItem* item);
    void deleteSelected();

    RunLibrary* library_ = nullptr;
    QListWidget* list_ = nullptr;
    QPushButton* delete_ = nullptr;
    bool rebuilding_ = false;
};

} // namespace hwl::ui
