// Evaluation at each epoch's end, the run's summary, and exporting weights.
#include "io/onnxexport.h"
#include "io/optimizerstate.h"
#include "io/tensorfile.h"
#include "io/weightsio.h"
#include "launch/devices.h"
#include "run/runimpl.h"
#include "strategy/registry.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

namespace hwl {

void Run::Impl::evaluate(std::uint32_t gate) {
    const auto start = Telemetry::nowNs();
    const std::uint32_t epoch = gates::epochOf(gate);
    const bool epochEnd = gates::isEnd(gate);
    const DatasetView test = data.test.view();
    Sample s;
    s.kind = Sample::Eval;
    s.worker = -1;
    s.epoch = epoch;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        // An MPI rank elsewhere relays its counts late; the collective holds
        // it after the very step rank 0 waits after (every rank takes as
        // many steps of as many rows), so its counts are rank 0's.
        const WorkerStatus& w = telemetry.worker(launcher->countsLag(r) ? 0 : r);
        s.step += w.steps.load();
        s.samples += w.samples.load();
        // Measured just now, with every worker parked at the gate: the same
        // figure whatever the machine's speed.
        if (strategy->traits().divergence == DivergenceKind::ReplicaDistance)
            s.divergence = std::max(s.divergence, strategy->finalDivergence(telemetry, r));
    }
    const double trainedSeconds = trainedSecondsAt(start); // before this evaluation
    if (test.rows > 0) {
        double deviceSeconds = 0; // inside the workers' training window: not training
        // The GPU modes evaluate on the device at epoch ends (they take no --eval-every).
        const std::optional<EvalResult> onDevice =
            epochEnd ? strategy->evaluation(epoch, deviceSeconds) : std::nullopt;
        evalSeconds += deviceSeconds;
        const EvalResult total =
            onDevice ? *onDevice : backend->evaluate(*model, strategy->hostParameters(), test);
        s.loss = float(total.meanLoss());
        s.accuracy = float(total.accuracy());
        std::lock_guard lock(summaryMutex);
        summary.evaluated = true;
        summary.testLoss = total.meanLoss();
        summary.testAccuracy = total.accuracy();
        noteTarget(summary.target, s, total, trainedSeconds,
                   double(start - telemetry.header().startNs) * 1e-9, epochEnd);
    }
    s.time = telemetry.elapsed();
    telemetry.header().evalRing.push(s);
    const std::int64_t end = Telemetry::nowNs();
    if (telemetry.header().traceSliceNs > 0)
        telemetry.header().spans.push({TraceSpan::Evaluate, epoch, start, end});
    evalSeconds += double(end - start) * 1e-9;
    std::lock_guard lock(summaryMutex);
    if (epochEnd)
        summary.epochsCompleted = int(epoch);
}

void Run::Impl::noteTarget(TargetResult& target, const Sample& eval, const EvalResult& figures,
                           double trainedSeconds, double wallSeconds, bool atEpochEnd) {
    if (!target.set())
        return;
    const double accuracy = figures.accuracy(), loss = figures.meanLoss();
    if (!(target.bestAccuracy >= accuracy))
        target.bestAccuracy = accuracy;
    if (!(target.bestLoss <= loss))
        target.bestLoss = loss;
    if (target.reached || !target.metBy(accuracy, loss))
        return;
    target.reached = true;
    target.trainSeconds = trainedSeconds;
    target.wallSeconds = wallSeconds;
    target.samples = eval.samples;
    target.steps = eval.step;
    target.epochs = int(eval.epoch);
    target.duringEpoch = !atEpochEnd;
}

bool Run::Impl::stopsAtTarget() const {
    std::lock_guard lock(summaryMutex);
    return summary.target.reached && !config.trainPastTarget;
}

void Run::Impl::checkTarget(const float* params) {
    TargetResult& target = summary.target;
    target.accuracy = config.targetAccuracy;
    target.loss = config.targetLoss;
    if (!target.set())
        return;
    const char* flag = config.targetAccuracy > 0 ? "target-accuracy" : "target-loss";
    const DatasetView test = data.test.view();
    if (test.rows == 0)
        throw InputError(std::string(flag) +
                         ": the target is measured on the test set, and this run has none" +
                         (config.testFraction > 0 ? "" : " (--test-fraction 0)") +
                         ": set --test-fraction above 0 (e.g. 0.1), or train without a target");
    // On the whole test set, as every evaluation: met already, there is
    // nothing to train to (a resumed run past its target, a low target).
    const EvalResult now = backend->evaluate(*model, params, test);
    if (target.metBy(now.accuracy(), now.meanLoss())) {
        char figures[96];
        std::snprintf(figures, sizeof figures, "test accuracy %.2f%%, test loss %.4g",
                      100.0 * now.accuracy(), now.meanLoss());
        throw InputError(std::string(flag) + ": the " +
                         (config.resume.empty()
                              ? config.init.empty() ? "initial weights" : "weights of --init"
                              : "weights of the resumed run") +
                         " already reach " + target.describe() + " (" + figures +
                         "): there is nothing to train to; set a harder target");
    }
}

void Run::Impl::checkEvalEvery() const {
    if (config.evalEvery <= 0)
        return;
    if (data.test.rows == 0)
        throw InputError(std::string("eval-every: there is no test set to evaluate") +
                         (config.testFraction > 0 ? "" : " (--test-fraction 0)") +
                         ": set --test-fraction above 0 (e.g. 0.1), or leave --eval-every at 0");
    // A worker's steps in one epoch, at most: its slice (or every row), in
    // steps of batch x accumulate rows.
    const std::uint64_t perWorker = (strategy->epochPlan(data.train.rows)->samplesPerEpoch() +
                                     std::uint64_t(config.workers) - 1) /
                                    std::uint64_t(config.workers);
    const std::uint64_t stride = std::uint64_t(config.batch) * std::uint64_t(config.accumulate);
    const std::uint64_t steps = (perWorker + stride - 1) / stride;
    const std::uint64_t inside = steps > 0 ? (steps - 1) / std::uint64_t(config.evalEvery) : 0;
    if (inside > gates::kMaxInside)
        throw InputError("eval-every: " + std::to_string(config.evalEvery) + " steps make " +
                         std::to_string(inside) + " evaluations in each epoch of " +
                         std::to_string(steps) + " steps, more than the " +
                         std::to_string(gates::kMaxInside) + " a run can hold; set --eval-every " +
                         std::to_string((steps - 1) / gates::kMaxInside + 1) + " or more");
}

void Run::Impl::measureStart(const float* params) {
    // Where the loss starts: on the first rows of the test set (else of the
    // training set), enough to tell a loss that ended far above it, few
    // enough to cost next to nothing before training.
    constexpr std::int64_t kRows = 2048;
    DatasetView v = data.test.rows > 0 ? data.test.view() : data.train.view();
    v.rows = std::min(v.rows, kRows);
    std::lock_guard lock(summaryMutex);
    if (v.rows > 0)
        summary.startLoss = backend->evaluate(*model, params, v).meanLoss();
    const DatasetView test = data.test.view();
    summary.testRows = test.rows;
    if (test.rows > 0 && test.numClasses > 0) {
        std::vector<std::int64_t> counts(std::size_t(test.numClasses), 0);
        for (std::int64_t i = 0; i < test.rows; ++i)
            if (test.labels[i] >= 0 && test.labels[i] < test.numClasses)
                ++counts[std::size_t(test.labels[i])];
        summary.chanceAccuracy =
            double(*std::max_element(counts.begin(), counts.end())) / double(test.rows);
    }
}

double Run::Impl::trainedSecondsAt(std::int64_t ns) const {
    std::int64_t firstStepNs = -1;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        const auto& w = telemetry.worker(r);
        if (w.startupNs.load() >= 0) {
            const auto at = w.launchNs.load() + w.startupNs.load();
            firstStepNs = firstStepNs < 0 ? at : std::min(firstStepNs, at);
        }
    }
    if (firstStepNs < 0)
        firstStepNs = telemetry.header().startNs;
    return double(ns - firstStepNs) * 1e-9 - evalSeconds;
}

void Run::Impl::trainingWindow(RunSummary& s) const {
    // Training time runs from the first step any worker took (start-up is
    // reported on its own) to the moment the last worker left its training
    // loop (tearing processes down is not training), less the test
    // evaluations. A worker killed mid-run never leaves its loop: when no
    // worker did, the window runs to now.
    const std::int64_t nowNs = Telemetry::nowNs();
    s.wallSeconds = double(nowNs - telemetry.header().startNs) * 1e-9;
    std::int64_t lastFinishNs = -1;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r)
        lastFinishNs =
            std::max(lastFinishNs, telemetry.worker(r).finishNs.load(std::memory_order_acquire));
    if (lastFinishNs < 0)
        lastFinishNs = nowNs;
    s.trainSeconds = std::max(1e-9, trainedSecondsAt(lastFinishNs));
    s.evalSeconds = evalSeconds;
}

void Run::Impl::summarise() {
    const auto workers = telemetry.workerCount();
    RunSummary s;
    {
        std::lock_guard lock(summaryMutex);
        s = summary;
    }
    trainingWindow(s);
    strategy->measureDivergence(telemetry);
    double lastLossSum = 0;
    for (std::uint32_t r = 0; r < workers; ++r) {
        const auto& w = telemetry.worker(r);
        s.steps += w.steps.load();
        s.workerSteps.push_back(w.steps.load());
        s.samples += w.samples.load();
        s.droppedSamples += w.ring.dropped.load();
        const auto startup = w.startupNs.load();
        s.startupSeconds.push_back(startup >= 0 ? double(startup) * 1e-9 : -1.0);
        lastLossSum += w.lastEpochLoss.load();
        s.divergence.push_back(strategy->finalDivergence(telemetry, r));
        if (const auto bytes = w.bytesReduced.load(); bytes > 0) {
            s.commSeconds.resize(workers, 0.0);
            s.bytesReduced.resize(workers, 0);
            s.commSeconds[r] = double(w.commNs.load()) * 1e-9;
            s.bytesReduced[r] = bytes;
        }
        if (const auto writes = w.updateWrites.load(); writes > 0) {
            s.updateWrites.resize(workers, 0);
            s.lostUpdates.resize(workers, 0);
            s.updateWrites[r] = writes;
            s.lostUpdates[r] = w.lostUpdates.load();
        }
    }
    s.workerFailures = workerFailures;
    if (!workerFailures.empty())
        s.failure = workerFailures.front();
    s.trainLoss = lastLossSum / double(workers);
    // Stopped at its target, every worker parked at that gate: the run's
    // counts are the target's. Taken here, once MPI ranks elsewhere have
    // said their last (at the gate their counters are still on the way).
    if (s.target.reached && stopsAtTarget() && s.target.epochs == s.epochsCompleted) {
        s.target.samples = s.samples;
        s.target.steps = s.steps;
    }
    s.samplesPerSecond = double(s.samples) / s.trainSeconds;
    const bool failedOut = !workerFailures.empty() &&
                           (config.onWorkerFailure == FailurePolicy::Stop || allWorkersDown());
    if (failedOut)
        s.state = RunState::Failed;
    else if (s.epochsCompleted < config.epochs && !stopsAtTarget())
        s.state = RunState::Stopped;
    else
        s.state = RunState::Finished;
    judgeLearning(s);
    strategy->explain(s);
    if (config.cudaBeforeFork && config.forceUnsafeFork && usesStartMethod(config) &&
        config.startMethod == StartMethod::Fork)
        s.explanations.push_back(
            std::string(cudaBuilt() ? ""
                                    : "(This build has no CUDA backend: its workers had no "
                                      "CUDA to touch, and trained. With CUDA:) ") +
            "CUDA before fork: this run's process initialised CUDA and then forked its workers "
            "(--force-unsafe-fork). A forked child inherits the parent's memory but not a "
            "usable CUDA context, and CUDA cannot be initialised again in it: each worker's "
            "first CUDA call failed (its error is above; on a machine with a GPU it is 3, "
            "initialization error, which PyTorch reports as \"Cannot re-initialize CUDA in "
            "forked subprocess\"). Fix: --start-method spawn or forkserver, whose workers "
            "start clean.");
    s.remarks.insert(s.remarks.end(), stuckWorkers.begin(), stuckWorkers.end());
    {
        std::lock_guard lock(summaryMutex);
        summary = s;
    }
    telemetry.setRunState(s.state);
    done.store(true, std::memory_order_release);
}

bool Run::savesOptimizerState() const {
    return impl_->prepared && !impl_->resume.empty();
}

void Run::writeOptimizerState(const std::filesystem::path& file) const {
    if (!savesOptimizerState())
        throw InputError("mode " + impl_->config.mode + " keeps no optimizer state to save");
    if (!finished())
        throw InputError("the optimizer's state is saved once the run has ended");
    const SharedStateResume shared = impl_->strategy->sharedOptimizerState();
    hwl::writeOptimizerState(file, impl_->model->layout(), impl_->config, impl_->resume,
                             shared.state.empty() ? nullptr : &shared);
}

void Run::writeWeights(const std::filesystem::path& file) const {
    if (!impl_->prepared)
        throw InputError("there are no weights yet: the run was never prepared");
    const float* params = impl_->strategy->hostParameters();
    std::string suffix = file.extension().string();
    for (auto& c : suffix)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (suffix == ".npz") {
        writeNpz(file, tensorRefs(impl_->model->layout(), params));
        return;
    }
    std::map<std::string, std::string> metadata{
        {"producer", std::string("hogwild-lab ") + HWL_VERSION},
        {"model", impl_->config.model},
        {"dataset", impl_->config.dataset},
        {"epochs_completed", std::to_string(summary().epochsCompleted)}};
    // What the inputs must go through first, for whoever loads the weights.
    const Normalization& n = impl_->info.normalization;
    if (n.applies()) {
        metadata["normalize"] = n.setting;
        metadata["normalize_mean"] = nlohmann::json(n.mean).dump();
        metadata["normalize_std"] = nlohmann::json(n.stddev).dump();
    }
    if (suffix == ".onnx") {
        // The graph normalises the raw features itself unless told not to.
        const bool inGraph = n.applies() && !impl_->config.onnxNormalizedInputs;
        if (n.applies())
            metadata["normalize_in_graph"] = inGraph ? "true" : "false";
        writeOnnx(file, *impl_->model, params, metadata, inGraph ? n : Normalization{});
        return;
    }
    auto withFormat = metadata;
    withFormat.emplace("format", "pt");
    writeSafetensors(file, tensorRefs(impl_->model->layout(), params), withFormat);
}

} // namespace hwl
