#include "teaching/racestepper.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace hwl::ui {

namespace {
QString name(int worker) {
    return worker == 0 ? QStringLiteral("A") : QStringLiteral("B");
}
QString number(double v) {
    return QString::number(v, 'f', 1);
}
int switches(const QVector<RaceModel::Op>& order) {
    int n = 0;
    for (int i = 1; i < order.size(); ++i)
        n += order[i].worker != order[i - 1].worker;
    return n;
}
} // namespace

QVector<QVector<RaceModel::Op>> RaceModel::interleavings() {
    QVector<QVector<Op>> all;
    for (int mask = 0; mask < 64; ++mask) { // bit i set: op i is A's
        if (__builtin_popcount(unsigned(mask)) != 3)
            continue;
        QVector<Op> order;
        int next[2] = {0, 0};
        for (int i = 0; i < 6; ++i) {
            const int w = (mask >> i) & 1 ? 0 : 1;
            order.push_back({w, next[w]++});
        }
        all.push_back(order);
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return switches(a) < switches(b); });
    return all;
}

QString RaceModel::describe(const QVector<Op>& order) {
    static const char* const verbs[] = {"reads", "computes", "writes"};
    QStringList parts;
    for (const Op& op : order)
        parts << name(op.worker) + ' ' + QString::fromLatin1(verbs[op.phase]);
    return parts.join(QStringLiteral(", "));
}

RaceModel::RaceModel(QVector<Op> order) : order_(std::move(order)) {}

void RaceModel::reset() {
    *this = RaceModel(order_);
}

QString RaceModel::step() {
    if (finished())
        return {};
    const Op op = order_[done_];
    const int w = op.worker, other = 1 - op.worker;
    QString what;
    switch (op.phase) {
    case 0:
        local_[w] = p_;
        readAt_[w] = done_;
        what = QObject::tr("%1 reads the parameter: %2").arg(name(w), number(p_));
        break;
    case 1:
        what = QObject::tr("%1 computes %2 %3 %4 = %5")
                   .arg(name(w), number(local_[w]), kUpdate[w] < 0 ? "-" : "+",
                        number(std::abs(kUpdate[w])), number(local_[w] + kUpdate[w]));
        local_[w] += kUpdate[w];
        break;
    default:
        p_ = local_[w];
        wroteAt_[w] = done_;
        what = QObject::tr("%1 writes %2").arg(name(w), number(p_));
        // The other's write came after this worker read: this write, made
        // from the older value, replaces it unseen.
        if (wroteAt_[other] > readAt_[w]) {
            lost_ = other;
            what += QObject::tr(" over %1's write: %1's update is lost").arg(name(other));
        }
        break;
    }
    ++done_;
    return what;
}

QString RaceModel::verdict() const {
    if (!finished())
        return {};
    if (lost_ < 0)
        return QObject::tr("Ended at %1, as expected (%2 %3 %4): one worker read after the other "
                           "wrote, so both updates count.")
            .arg(number(p_), number(kStart), number(kUpdate[0]), number(kUpdate[1]));
    return QObject::tr("Ended at %1 instead of %2: %3 read the parameter before %4 wrote it, "
                       "then wrote its own result over %4's, so %4's update (%5) is lost. "
                       "This is a lost update; under a lock the read and the write of one "
                       "worker cannot be split.")
        .arg(number(p_), number(expected()), name(1 - lost_), name(lost_), number(kUpdate[lost_]));
}

RaceStepperDialog::RaceStepperDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Race stepper: two workers, one parameter"));
    setObjectName("raceStepper");
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Workers A and B each update one shared parameter (it starts at %1): read it, compute "
           "their step (A: %2, B: %3), write the result. Choose an order, or a random one, and "
           "step through it.")
            .arg(number(RaceModel::kStart), number(RaceModel::kUpdate[0]),
                 number(RaceModel::kUpdate[1])));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* row = new QHBoxLayout;
    order_ = new QComboBox;
    order_->setObjectName("raceOrder");
    for (const auto& order : RaceModel::interleavings())
        order_->addItem(RaceModel::describe(order));
    row->addWidget(order_, 1);
    auto* random = new QPushButton(tr("&Random"));
    step_ = new QPushButton(tr("&Step"));
    step_->setDefault(true);
    auto* reset = new QPushButton(tr("Re&set"));
    for (QPushButton* b : {random, step_, reset})
        row->addWidget(b);
    layout->addLayout(row);
    timeline_ = new QTableWidget(2, 6);
    timeline_->setVerticalHeaderLabels({tr("A"), tr("B")});
    timeline_->setHorizontalHeaderLabels({"1", "2", "3", "4", "5", "6"});
    timeline_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    timeline_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(timeline_);
    status_ = new QLabel;
    status_->setObjectName("raceStatus");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    connect(order_, &QComboBox::currentIndexChanged, this, &RaceStepperDialog::choose);
    connect(step_, &QPushButton::clicked, this, &RaceStepperDialog::stepOnce);
    connect(reset, &QPushButton::clicked, this, [this] { choose(order_->currentIndex()); });
    connect(random, &QPushButton::clicked, this, [this] {
        order_->setCurrentIndex(int(QRandomGenerator::global()->bounded(order_->count())));
        choose(order_->currentIndex());
    });
    resize(760, 320);
    choose(0);
}

void RaceStepperDialog::choose(int index) {
    const auto all = RaceModel::interleavings();
    model_ = RaceModel(all.value(index, all.front()));
    if (order_->currentIndex() != index) { // chosen by a caller: the box says so too
        const QSignalBlocker quiet(order_);
        order_->setCurrentIndex(index);
    }
    redraw(tr("Press Step."));
}

void RaceStepperDialog::stepOnce() {
    const int at = model_.done();
    const QString what = model_.step();
    if (what.isEmpty())
        return;
    const RaceModel::Op op = model_.order()[at];
    auto* cell = new QTableWidgetItem(what.section(' ', 1)); // without the worker's name
    cell->setToolTip(what);
    timeline_->setItem(op.worker, at, cell);
    timeline_->resizeRowsToContents(); // the longer cells wrap instead of being cut
    redraw(what);
}

void RaceStepperDialog::redraw(const QString& lastAction) {
    if (model_.done() == 0)
        timeline_->clearContents();
    step_->setEnabled(!model_.finished());
    QString text = tr("<b>%1</b><br>The parameter: %2. A holds %3, B holds %4.")
                       .arg(lastAction.toHtmlEscaped(), number(model_.parameter()),
                            number(model_.local(0)), number(model_.local(1)));
    if (model_.finished())
        text += QStringLiteral("<br>") + model_.verdict().toHtmlEscaped();
    status_->setText(text);
}

QString RaceStepperDialog::statusText() const {
    return status_->text();
}

} // namespace hwl::ui
