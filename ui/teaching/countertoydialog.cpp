#include "teaching/countertoydialog.h"

#include "widgets/numbers.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace hwl::ui {

CounterToyDialog::CounterToyDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("The shared-counter toy"));
    setObjectName("counterToy");
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("N workers each add 1 to <b>one</b> shared number M times, three ways: "
           "<b>plain</b> (load, add 1, store: what a Hogwild update does to a parameter), "
           "<b>atomic</b> (one indivisible add) and <b>locked</b> (the plain add under a "
           "mutex). When two workers load the same value, both store value + 1 and one "
           "increment is lost."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    workers_ = new QSpinBox;
    workers_->setObjectName("toyWorkers");
    workers_->setRange(1, 256);
    workers_->setValue(2);
    increments_ = new QSpinBox;
    increments_->setObjectName("toyIncrements");
    increments_->setRange(1, int(kCounterToyMaxTotal));
    increments_->setGroupSeparatorShown(true);
    increments_->setValue(int(counterToyDefaultIncrements(2)));
    increments_->setToolTip(tr("workers x increments must stay within 2^24 = 16,777,216, the "
                               "last whole number a float counts exactly"));
    form->addRow(tr("Workers"), workers_);
    form->addRow(tr("Increments each"), increments_);
    layout->addLayout(form);
    start_ = new QPushButton(tr("&Run the toy"));
    start_->setDefault(true);
    layout->addWidget(start_);
    summary_ = new QLabel;
    summary_->setObjectName("toySummary");
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    table_ = new QTableWidget(0, 5);
    table_->setHorizontalHeaderLabels(
        {tr("Way"), tr("Ends at"), tr("Lost"), tr("Time"), tr("Each increment is")});
    table_->verticalHeader()->hide();
    // The figures as wide as they are; "Each increment is" takes the rest
    // and wraps: no scrollbar, no "... under a mutex" cut off, in
    // presentation's larger type too (issue 49).
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(4, QHeaderView::Stretch);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setWordWrap(true);
    table_->setTextElideMode(Qt::ElideNone);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(table_);
    connect(start_, &QPushButton::clicked, this, &CounterToyDialog::run);
    connect(workers_, &QSpinBox::valueChanged, this,
            [this](int w) { increments_->setValue(int(counterToyDefaultIncrements(w))); });
    resize(640, 360);
}

CounterToyDialog::~CounterToyDialog() {
    if (worker_.joinable())
        worker_.join(); // at most about a second
}

void CounterToyDialog::run() {
    if (running())
        return;
    if (worker_.joinable())
        worker_.join();
    const int workers = workers_->value();
    const std::int64_t increments = increments_->value();
    if (const std::string why = counterToyProblem(workers, increments); !why.empty()) {
        showResults({}, QString::fromStdString(why));
        return;
    }
    done_ = false;
    start_->setEnabled(false);
    summary_->setText(tr("Running…"));
    QPointer<CounterToyDialog> self(this);
    worker_ = std::thread([self, workers, increments] {
        std::vector<CounterToyResult> results;
        QString error;
        try {
            results = runCounterToy(workers, increments);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, results, error] {
                if (self)
                    self->showResults(results, error);
            },
            Qt::QueuedConnection);
    });
}

void CounterToyDialog::showResults(const std::vector<CounterToyResult>& results,
                                   const QString& error) {
    done_ = true;
    start_->setEnabled(true);
    table_->setRowCount(0);
    if (!error.isEmpty()) {
        summary_->setText(error);
        emit finished();
        return;
    }
    summary_->setText(tr("%1 workers x %2 increments: the counter should end at %3.")
                          .arg(workers_->value())
                          .arg(formatCount(increments_->value()))
                          .arg(formatCount(std::uint64_t(results.front().expected))));
    for (const CounterToyResult& r : results) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        const QStringList cells{QString::fromStdString(r.way), formatDecimal(double(r.final), 0),
                                tr("%1 (%2%)")
                                    .arg(formatCount(std::uint64_t(r.lost)))
                                    .arg(100.0 * double(r.lost) / double(r.expected), 0, 'f', 1),
                                tr("%1 ms").arg(r.seconds * 1e3, 0, 'f', 2),
                                QString::fromStdString(r.how)};
        for (int c = 0; c < cells.size(); ++c)
            table_->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    emit finished();
}

} // namespace hwl::ui
