#pragma once
// CounterToyDialog: the shared-counter toy (toy/countertoy.h) in the window.
// N workers each add 1 to one shared float M times, plainly, atomically and
// under a lock; the table shows what each way ends at, the increments lost
// and the time. The toy runs on a thread of its own, so the window stays
// responsive; results come back on the GUI thread.
#include "toy/countertoy.h"

#include <QDialog>

#include <thread>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace hwl::ui {

class CounterToyDialog : public QDialog {
    Q_OBJECT
public:
    explicit CounterToyDialog(QWidget* parent = nullptr);
    ~CounterToyDialog() override; ///< waits for a toy still running

    /// Starts the toy with the spin boxes' sizes (ignored while one runs).
    void run();
    bool running() const { return worker_.joinable() && !done_; }
    QTableWidget* table() const { return table_; }
    QSpinBox* workersBox() const { return workers_; }
    QSpinBox* incrementsBox() const { return increments_; }

signals:
    /// The table holds a new run's results (or the summary an error).
    void finished();

private:
    void showResults(const std::vector<CounterToyResult>& results, const QString& error);

    QSpinBox* workers_ = nullptr;
    QSpinBox* increments_ = nullptr;
    QPushButton* start_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* table_ = nullptr;
    std::thread worker_;
    bool done_ = true;
};

} // namespace hwl::ui
