#include "window/progress.h"

#include "widgets/numbers.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {
constexpr int kBarSteps = 1000; ///< the bar's resolution: a tenth of a percent
}

QString timeLeftText(double elapsed, double done) {
    // Under 1% or 2 s in, the rate is mostly start-up: no estimate yet.
    if (!(done > 0.01) || !(elapsed >= 2.0) || !std::isfinite(elapsed))
        return RunProgress::tr("estimating the time left");
    if (done >= 1.0)
        return {};
    const double left = elapsed * (1.0 - done) / done;
    if (left < 10)
        return RunProgress::tr("a few seconds left");
    if (left < 60) // to 5 s: an estimate, not a countdown
        return RunProgress::tr("about %1 s left").arg(formatCount(int(std::lround(left / 5) * 5)));
    if (left < 3600)
        return RunProgress::tr("about %1 min left").arg(formatCount(int(std::lround(left / 60))));
    const int minutes = int(std::lround(left / 60));
    if (minutes % 60 == 0)
        return RunProgress::tr("about %1 h left").arg(formatCount(minutes / 60));
    return RunProgress::tr("about %1 h %2 min left")
        .arg(formatCount(minutes / 60))
        .arg(formatCount(minutes % 60));
}

RunProgress::RunProgress(QWidget* parent) : QWidget(parent) {
    setObjectName("runProgress");
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    label_ = new QLabel;
    label_->setObjectName("runProgressText");
    bar_ = new QProgressBar;
    bar_->setObjectName("runProgressBar");
    bar_->setRange(0, kBarSteps);
    bar_->setTextVisible(false);
    bar_->setFixedWidth(160);
    bar_->setMaximumHeight(16);
    row->addWidget(label_);
    row->addWidget(bar_);
    setToolTip(tr("Epochs done of the experiment's epochs; the time left is estimated from "
                  "the time so far and the samples trained so far"));
    hide(); // until a run starts
}

void RunProgress::start(std::uint32_t epochs, std::uint64_t samplesPerEpoch) {
    epochs_ = epochs;
    samplesPerEpoch_ = samplesPerEpoch;
    bar_->setValue(0);
    showEpochs(0, timeLeftText(0, 0));
    show();
}

void RunProgress::update(const QList<WorkerRow>& rows, double elapsed, bool paused) {
    if (epochs_ == 0 || rows.isEmpty())
        return;
    std::uint64_t samples = 0;
    std::uint32_t done = epochs_; // the slowest worker still training says the epoch
    bool any = false;
    for (const WorkerRow& r : rows) {
        samples += r.worker.samples;
        if (r.worker.state != WorkerState::Failed) {
            done = std::min(done, r.worker.epochs);
            any = true;
        }
    }
    if (!any)
        done = 0;
    const double total = double(samplesPerEpoch_) * epochs_;
    // Without a sample count per epoch the epochs alone give the share.
    const double share =
        std::clamp(total > 0 ? double(samples) / total : double(done) / epochs_, 0.0, 1.0);
    bar_->setValue(int(std::lround(share * kBarSteps)));
    showEpochs(done, paused ? tr("paused") : timeLeftText(elapsed, share));
}

void RunProgress::finish(std::uint32_t epochsCompleted, bool reachedTarget) {
    if (epochs_ == 0)
        return;
    const std::uint32_t done = std::min(epochsCompleted, epochs_);
    const bool early = reachedTarget && done < epochs_;
    bar_->setValue(early ? kBarSteps : int(std::lround(double(done) / epochs_ * kBarSteps)));
    showEpochs(done, early ? tr("target reached") : QString());
}

void RunProgress::showEpochs(std::uint32_t done, const QString& tail) {
    // Epochs done, not "epoch N": the run is inside epoch N + 1, and with
    // --eval-every its evaluations there are already on the charts.
    QString text = tr("%1 of %2 epochs done")
                       .arg(formatCount(std::uint64_t(done)), formatCount(std::uint64_t(epochs_)));
    if (!tail.isEmpty())
        text += QStringLiteral(" · ") + tail;
    label_->setText(text);
}

QString RunProgress::text() const {
    return label_->text();
}

} // namespace hwl::ui
