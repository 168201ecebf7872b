#include "runs/measuredruns.h"

#include <algorithm>

namespace hwl::ui {

void MeasuredRuns::runStarted(const std::string& label, bool fresh, bool sharedState, bool quoted) {
    if (!quoted) {
        going_ = false; // its figures are no quote of the text's
        return;
    }
    if (fresh)
        runs_.clear();
    MeasuredRun r;
    r.label = label;
    r.sharedState = sharedState;
    runs_.push_back(std::move(r));
    going_ = true;
    lastSaid_.invalidate();
    Q_EMIT changed(runs_);
}

void MeasuredRuns::runGoing(const QList<WorkerRow>& rows, const RunSummary& sofar, double elapsed) {
    if (!going_ || runs_.empty())
        return;
    const int evaluatedBefore = runs_.back().summary.epochsCompleted;
    runs_.back().summary = summarySoFar(rows, sofar, elapsed);
    // About once a second: the explanation is re-laid out on each change;
    // at once after an evaluation, so that a quoted accuracy is the one the
    // chart has just drawn.
    const bool evaluated = runs_.back().summary.epochsCompleted != evaluatedBefore;
    if (!evaluated && lastSaid_.isValid() && lastSaid_.elapsed() < 1000)
        return;
    lastSaid_.start();
    Q_EMIT changed(runs_);
}

void MeasuredRuns::runEnded(const RunSummary& summary, double divergence) {
    if (!going_ || runs_.empty())
        return;
    runs_.back().summary = summary;
    runs_.back().divergence = divergence;
    going_ = false;
    Q_EMIT changed(runs_);
}

void MeasuredRuns::clear() {
    runs_.clear();
    going_ = false;
    Q_EMIT changed(runs_);
}

RunSummary MeasuredRuns::summarySoFar(const QList<WorkerRow>& rows, const RunSummary& sofar,
                                      double elapsed) {
    RunSummary s = sofar; // its evaluations
    s.samples = 0;
    s.startupSeconds.clear();
    s.workerSteps.clear();
    s.commSeconds.clear();
    s.bytesReduced.clear();
    s.updateWrites.clear();
    s.lostUpdates.clear();
    double firstStep = -1;
    bool comm = false, writes = false;
    for (const WorkerRow& row : rows) {
        const WorkerSnapshot& w = row.worker;
        s.samples += w.samples;
        s.startupSeconds.push_back(w.startupSeconds);
        s.workerSteps.push_back(w.steps);
        if (w.startupSeconds >= 0 && w.launchSeconds >= 0) {
            const double at = w.launchSeconds + w.startupSeconds;
            firstStep = firstStep < 0 ? at : std::min(firstStep, at);
        }
        comm = comm || w.bytesReduced > 0;
        writes = writes || w.updateWrites > 0;
    }
    for (const WorkerRow& row : rows) {
        if (comm) {
            s.commSeconds.push_back(row.worker.commSeconds);
            s.bytesReduced.push_back(row.worker.bytesReduced);
        }
        if (writes) {
            s.updateWrites.push_back(row.worker.updateWrites);
            s.lostUpdates.push_back(row.worker.lostUpdates);
        }
    }
    s.wallSeconds = elapsed;
    s.trainSeconds = firstStep >= 0 ? std::max(0.0, elapsed - firstStep - s.evalSeconds) : 0.0;
    s.samplesPerSecond = s.trainSeconds > 0 ? double(s.samples) / s.trainSeconds : 0.0;
    return s;
}

} // namespace hwl::ui
