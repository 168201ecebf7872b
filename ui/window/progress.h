#pragma once
// How far the run has come, in the status bar: "epoch 3 of 20", a bar, and
// "about 2 min left" estimated from the time so far and the share done. The
// share is the training samples seen of those the run will see (epochs x
// samples per epoch), so the bar moves within an epoch too.
#include "runs/runcontroller.h"

#include <QWidget>

class QLabel;
class QProgressBar;

namespace hwl::ui {

/// The time left in plain words, from `elapsed` seconds for the share `done`
/// (0..1) of the work: "about 2 min left", "about 40 s left", "a few seconds
/// left"; "estimating the time left" while too little is done to say.
QString timeLeftText(double elapsed, double done);

class RunProgress : public QWidget {
    Q_OBJECT
public:
    explicit RunProgress(QWidget* parent = nullptr);
    /// A run of `epochs` epochs of `samplesPerEpoch` samples (all workers) started.
    void start(std::uint32_t epochs, std::uint64_t samplesPerEpoch);
    /// The workers' latest state, `elapsed` seconds into the run.
    void update(const QList<WorkerRow>& rows, double elapsed, bool paused);
    /// The run ended after `epochsCompleted` epochs: the bar and the count say
    /// so, the time left goes.
    /// `reachedTarget`: it stopped at its target, before its last epoch: the
    /// bar is full and says so.
    void finish(std::uint32_t epochsCompleted, bool reachedTarget = false);

    QString text() const; ///< the label's text, for tests
    QProgressBar* bar() const { return bar_; }

private:
    void showEpochs(std::uint32_t done, const QString& tail);

    QLabel* label_ = nullptr;
    QProgressBar* bar_ = nullptr;
    std::uint32_t epochs_ = 0;
    std::uint64_t samplesPerEpoch_ = 0;
};

} // namespace hwl::ui
