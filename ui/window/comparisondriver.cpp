#include "window/comparisondriver.h"

#include "teaching/explanationpane.h"
#include "widgets/numbers.h"

#include <algorithm>

#include <QLabel>
#include <QTimer>

namespace hwl::ui {

ComparisonDriver::ComparisonDriver(QObject* parent) : QObject(parent), status_(new QLabel) {
    status_->setObjectName("comparisonStatus");
    status_->hide();
}

ComparisonDriver::~ComparisonDriver() {
    if (!status_->parent()) // never laid out: ours to delete
        delete status_;
}

void ComparisonDriver::begin(std::vector<PresetRun> runs, const QString& title,
                             ComparedFigure figure) {
    const int planned = int(runs.size());
    sequence_.emplace(std::move(runs));
    record_ = std::make_unique<ComparisonRecord>();
    record_->title = title;
    record_->figure = figure;
    record_->planned = planned;
    // A sweep over seeds alone: what its runs differ by is the spread.
    const auto& all = sequence_->runs();
    record_->seedOnly =
        all.size() > 1 && std::all_of(all.begin() + 1, all.end(), [&](const PresetRun& r) {
            const QStringList fields = differingFields(all.front().config, r.config);
            return fields.isEmpty() || fields == QStringList{QStringLiteral("seed")};
        });
}

const PresetRun* ComparisonDriver::current() const {
    return sequence_ ? sequence_->current() : nullptr;
}

void ComparisonDriver::setTitle(const QString& title) {
    if (record_)
        record_->title = title;
}

bool ComparisonDriver::runStarting() {
    if (!current() || !record_) {
        end(); // a run of its own: no comparison table at its end
        return false;
    }
    record_->current = QString::fromStdString(current()->label);
    const QString run = formatCount(std::uint64_t(sequence_->index() + 1));
    const QString of = formatCount(std::uint64_t(sequence_->size()));
    Q_EMIT eventLogged(tr("Comparison run %1 of %2: %3").arg(run, of, record_->current), false);
    status_->setText(tr("Run %1 of %2: %3").arg(run, of, record_->current));
    status_->show();
    return true;
}

void ComparisonDriver::recordRun(const RunSummary& summary, bool processes, double divergence) {
    if (record_)
        record_->rows.append({record_->current, summary, processes, divergence});
}

void ComparisonDriver::runEnded(const RunSummary& summary) {
    if (!sequence_)
        return;
    const std::size_t run = sequence_->index() + 1;
    if (summary.state == RunState::Failed)
        Q_EMIT eventLogged(tr("Comparison run %1 failed; the next one starts").arg(run), true);
    if (!sequence_->ended(/*stopped=*/summary.state == RunState::Stopped)) {
        if (sequence_->stoppedEarly())
            Q_EMIT eventLogged(tr("The comparison stops: run %1 was stopped").arg(run), true);
        else
            Q_EMIT eventLogged(tr("Comparison done: its %1 runs are overlaid, side by side in "
                                  "the table over the charts (and under Runs)")
                                   .arg(formatCount(std::uint64_t(sequence_->size()))),
                               false);
        sequence_.reset();
        return;
    }
    QTimer::singleShot(kPauseMs, this, [this] {
        if (current())
            Q_EMIT nextRunDue();
    });
}

void ComparisonDriver::stop() {
    sequence_.reset();
}

void ComparisonDriver::end() {
    if (record_ && !record_->rows.isEmpty())
        Q_EMIT verdictReady(comparisonVerdict(*record_));
    record_.reset();
    status_->clear();
    status_->hide();
}

} // namespace hwl::ui
