#include "train/workerloop.h"

#include "train/keepgoing.h"
#include "util/dropoutdraws.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

namespace hwl {

namespace {
constexpr double kSampleEverySeconds = 0.002; // at most 500 step samples/s per worker

/// One worker's progress and its telemetry.
class WorkerRun {
public:
    explicit WorkerRun(WorkerSetup& setup)
        : s_(setup), t_(*setup.telemetry), status_(t_.worker(setup.rank)),
          keepGoing_(t_, setup.rank, setup.watchPeers) {
        if (const WorkerResume* r = setup.resume) {
            epochsDone_ = r->epochsDone;
            skipSteps_ = stepsInEpoch_ = r->stepsInEpoch;
            steps_ = r->steps;
            const std::span<float> state = setup.kernel->optimizerState();
            if (!r->state.empty() && r->state.size() == state.size())
                std::copy(r->state.begin(), r->state.end(), state.begin());
        }
    }

    /// All epochs; false when the worker stopped or failed on the way.
    bool train() {
        storeState(status_.state, WorkerState::Running);
        if (const std::int64_t slice = t_.header().traceSliceNs; slice > 0)
            tracer_.emplace(status_.trace, t_.header().startNs, slice);
        if (!s_.rule->start(s_.params, keepGoing_))
            return false;
        for (int epoch = int(epochsDone_) + 1; epoch <= s_.epochs; ++epoch)
            if (!trainEpoch(epoch) || !endEpoch(epoch))
                return false;
        return true;
    }
    /// The trace's last slice: up to the moment the worker leaves its loop.
    void endTrace() {
        if (!tracer_)
            return;
        if (markNs_ > 0)
            traceUntil(Telemetry::nowNs());
        tracer_->flush();
    }
    /// Where the worker stands and its optimizer's state, into its setup's resume point.
    void save() const {
        WorkerResume* r = s_.resume;
        if (!r)
            return;
        r->epochsDone = epochsDone_;
        r->stepsInEpoch = stepsInEpoch_;
        r->steps = steps_;
        const std::span<const float> state = s_.kernel->optimizerState();
        r->state.assign(state.begin(), state.end());
    }
    void fail(const std::string& why) { keepGoing_.fail(why); }
    bool failed() const { return keepGoing_.reason() == KeepGoing::Reason::Failed; }

private:
    bool trainEpoch(int epoch) {
        s_.plan->rows(epoch, s_.rank, order_);
        epoch_ = epoch;
        lossSum_ = 0;
        batches_ = 0;
        const bool agreed = s_.rule->agreesCommands();
        // One step (one update) takes `accumulate` batches.
        const std::size_t stride = std::size_t(s_.batch) * std::size_t(s_.accumulate);
        // A resumed epoch goes on after the updates its worker made before.
        const std::size_t first = std::size_t(std::exchange(skipSteps_, 0)) * stride;
        for (std::size_t start = first; start < order_.size(); start += stride) {
            // Timed for the trace only when it may be held: paced, or paused.
            const bool timed = tracing() && (t_.pace() != 0 || t_.command() != RunCommand::Run);
            const std::int64_t heldFrom = timed ? Telemetry::nowNs() : 0;
            keepGoing_.pace(); // first: a pause that comes meanwhile holds this step
            if (!agreed && !keepGoing_.beforeStep())
                return false;
            if (timed)
                traceHeld(TraceKind::Paced, heldFrom, Telemetry::nowNs());
            const auto n = std::int64_t(std::min(order_.size() - start, stride));
            if (!step(epoch, order_.data() + start, n))
                return false;
            if (agreed && !actOnAgreedCommand())
                return false;
            if (evalEvery_ > 0 && stepsInEpoch_ % evalEvery_ == 0 &&
                start + stride < order_.size() && !gateInside(epoch))
                return false;
        }
        return true;
    }

    /// The gate after every evalEvery_ steps inside an epoch (--eval-every):
    /// waits while the test set is evaluated; false when the worker must stop.
    bool gateInside(int epoch) {
        const std::uint64_t k = stepsInEpoch_ / evalEvery_;
        if (k > gates::kMaxInside) // refused before the run (Run's checkEvalEvery)
            return true;
        return waitAtGate(gates::at(std::uint32_t(epoch), std::uint32_t(k))) &&
               t_.command() != RunCommand::Stop;
    }

    /// After a step whose collective carried the ranks' commands: all stop,
    /// or all pause (and each waits for the resume), at this same step.
    bool actOnAgreedCommand() {
        switch (s_.rule->agreedCommand()) {
        case RunCommand::Stop:
            return false;
        case RunCommand::Pause: {
            const std::int64_t heldFrom = tracing() ? Telemetry::nowNs() : 0;
            const bool go = keepGoing_.beforeStep();
            if (heldFrom)
                traceHeld(TraceKind::Paced, heldFrom, Telemetry::nowNs());
            return go;
        }
        case RunCommand::Run:
            break;
        }
        return true;
    }

    bool step(int epoch, const std::int64_t* rows, std::int64_t n) {
        // Start-up ends where the first step begins: its computation and its
        // collective belong to the training window (run/summary.cpp), which
        // starts at the first worker's first step.
        if (samples_ == 0 && status_.startupNs.load(std::memory_order_relaxed) < 0)
            status_.startupNs.store(Telemetry::nowNs() -
                                    status_.launchNs.load(std::memory_order_relaxed));
        if (tracer_ && markNs_ == 0)
            startTrace();
        if (!s_.schedule.constant()) {
            const float lr = float(s_.schedule.rate(epoch, steps_));
            if (lr != lr_)
                s_.kernel->setLearningRate(lr);
            lr_ = lr;
        }
        s_.rule->beforeStep(s_.params, steps_);
        const float loss = lossAndGradient(rows, n);
        if (!std::isfinite(loss)) {
            fail("training diverged: the loss became " + std::to_string(loss) + " at step " +
                 std::to_string(steps_ + 1) + " of worker " + std::to_string(s_.rank) +
                 "; lower the learning rate (--lr)");
            return false;
        }
        s_.kernel->setStepCount(steps_);
        if (!s_.rule->apply(*s_.kernel, s_.params, keepGoing_))
            return false;
        ++steps_;
        ++stepsInEpoch_;
        samples_ += std::uint64_t(n);
        lossSum_ += loss;
        ++batches_;
        status_.steps.store(steps_, std::memory_order_relaxed);
        status_.samples.store(samples_, std::memory_order_relaxed);
        status_.lastLoss.store(loss, std::memory_order_relaxed);
        const std::int64_t ended = Telemetry::nowNs(); // one clock read for both
        if (tracer_) {
            traceUntil(ended);
            tracer_->countStep(ended);
        }
        const double now = double(ended - t_.header().startNs) * 1e-9; // t_.elapsed()
        if (now - lastSampleTime_ >= kSampleEverySeconds) {
            Sample s = sample(Sample::Step, epoch, now, loss);
            const std::int64_t comm = status_.commNs.load(std::memory_order_relaxed);
            if (lastSampleTime_ >= 0)
                s.commShare = float(double(comm - lastCommNs_) * 1e-9 / (now - lastSampleTime_));
            lastCommNs_ = comm;
            lastSampleTime_ = now;
            status_.lastDivergence.store(s_.rule->divergence(), std::memory_order_relaxed);
            status_.ring.push(s);
        }
        return true;
    }

    /// The step's loss and gradient: of its one batch, or (--accumulate) the
    /// mean over its batches of `batch` rows, the last one shorter at an
    /// epoch's end (the kernel's gradient their mean, StepKernel).
    float lossAndGradient(const std::int64_t* rows, std::int64_t n) {
        const auto batch = std::int64_t(s_.batch);
        if (n <= batch)
            return batchLoss(rows, n);
        double lossSum = 0;
        int batches = 0;
        for (std::int64_t at = 0; at < n; at += batch) {
            if (batches > 0)
                s_.kernel->accumulateGradient();
            const float loss = batchLoss(rows + at, std::min(batch, n - at));
            if (!std::isfinite(loss))
                return loss;
            lossSum += loss;
            ++batches;
        }
        s_.kernel->finishAccumulation(batches);
        return float(lossSum / batches);
    }

    /// One batch's loss and gradient, its random choices named by the epoch
    /// and its place in the epoch's order (StepKernel::setNoiseKey).
    float batchLoss(const std::int64_t* rows, std::int64_t n) {
        s_.kernel->setNoiseKey(
            dropout::batchKey(std::uint64_t(epoch_), std::uint64_t(rows - order_.data())));
        return s_.kernel->lossAndGradient(s_.params, rows, n);
    }

    /// Publishes the epoch and waits at the epoch gate (while the test set is
    /// evaluated); false when the worker must stop.
    bool endEpoch(int epoch) {
        if (!s_.rule->endEpoch(s_.params, keepGoing_))
            return false;
        status_.lastDivergence.store(s_.rule->divergence(), std::memory_order_relaxed);
        const float epochLoss = batches_ ? float(lossSum_ / double(batches_)) : 0.0f;
        status_.ring.push(sample(Sample::EpochEnd, epoch, t_.elapsed(), epochLoss));
        status_.lastEpochLoss.store(epochLoss, std::memory_order_relaxed);
        status_.epoch.store(std::uint32_t(epoch), std::memory_order_release);
        if (!waitAtGate(gates::endOf(std::uint32_t(epoch))))
            return false;
        epochsDone_ = std::uint32_t(epoch);
        stepsInEpoch_ = 0;
        return t_.command() != RunCommand::Stop;
    }

    /// Arrives at `gate` and waits there until the coordinator releases it
    /// (when the run has a test set); false when the worker must stop.
    bool waitAtGate(std::uint32_t gate) {
        auto& header = t_.header();
        status_.gate.store(gate, std::memory_order_release);
        header.arrivals.fetch_add(1, std::memory_order_acq_rel);
        futexWakeAll(header.arrivals);
        if (tracing())
            traceUntil(Telemetry::nowNs());
        // Ranks that agree on commands pause only after an agreed step.
        if (header.epochGate && !keepGoing_.waitUntil(
                                    header.released, [gate](std::uint32_t r) { return r >= gate; },
                                    /*pauseHere=*/!s_.rule->agreesCommands()))
            return false;
        if (tracing()) // the gate: for the others, and while the coordinator evaluates
            traceHeld(TraceKind::Gate, markNs_, Telemetry::nowNs());
        return true;
    }

    /// The trace starts where the first step does (start-up before it is
    /// the launch's, drawn from the status block).
    void startTrace() {
        markNs_ = Telemetry::nowNs();
        markComm_ = status_.commNs.load(std::memory_order_relaxed);
        markCommWait_ = status_.commWaitNs.load(std::memory_order_relaxed);
        markWait_ = status_.waitNs.load(std::memory_order_relaxed);
    }
    /// Traced, from the first step on.
    bool tracing() const { return tracer_ && markNs_ > 0; }
    /// [from, to) held the worker (`kind`: Gate or Paced); what came before
    /// since the last mark is the step's.
    void traceHeld(TraceKind kind, std::int64_t from, std::int64_t to) {
        traceUntil(from);
        tracer_->add(kind, from, to);
        markNs_ = to;
    }
    /// Adds the time since the last mark to the trace: what the wait and
    /// communication counters grew by, the rest computing.
    void traceUntil(std::int64_t now) {
        const std::int64_t comm = status_.commNs.load(std::memory_order_relaxed);
        const std::int64_t commWait = status_.commWaitNs.load(std::memory_order_relaxed);
        const std::int64_t wait = status_.waitNs.load(std::memory_order_relaxed);
        const std::int64_t total = std::max<std::int64_t>(0, now - markNs_);
        const std::int64_t waited =
            std::clamp<std::int64_t>(wait - markWait_ + commWait - markCommWait_, 0, total);
        const std::int64_t communicated = std::clamp<std::int64_t>(
            comm - markComm_ - (commWait - markCommWait_), 0, total - waited);
        const std::int64_t computed = total - waited - communicated;
        tracer_->add(TraceKind::Compute, markNs_, markNs_ + computed);
        tracer_->add(TraceKind::Wait, markNs_ + computed, markNs_ + computed + waited);
        tracer_->add(TraceKind::Communicate, markNs_ + computed + waited, now);
        markNs_ = now;
        markComm_ = comm;
        markCommWait_ = commWait;
        markWait_ = wait;
    }

    Sample sample(Sample::Kind kind, int epoch, double time, float loss) const {
        Sample s;
        s.kind = kind;
        s.worker = std::int32_t(s_.rank);
        s.epoch = std::uint32_t(epoch);
        s.step = steps_;
        s.samples = samples_;
        s.time = time;
        s.loss = loss;
        s.divergence = s_.rule->divergence();
        s.lr = lr_;
        return s;
    }

    WorkerSetup& s_;
    Telemetry& t_;
    WorkerStatus& status_;
    KeepGoing keepGoing_;
    std::vector<std::int64_t> order_;
    std::uint64_t steps_ = 0, samples_ = 0, batches_ = 0;
    std::uint32_t epochsDone_ = 0;   ///< epochs finished, gate included
    std::uint64_t stepsInEpoch_ = 0; ///< updates made in epoch epochsDone_ + 1
    int epoch_ = 0;                  ///< the epoch trainEpoch() is in
    std::uint64_t skipSteps_ = 0;    ///< a resumed epoch's updates made before
    /// Steps between the gates inside an epoch (--eval-every; 0: none, and
    /// none without the gate: a run with no test set, an MPI peer rank).
    const std::uint64_t evalEvery_ =
        t_.header().epochGate ? std::uint64_t(t_.header().evalEvery) : 0;
    double lossSum_ = 0;
    float lr_ = float(s_.schedule.base); ///< the rate the kernel updates at
    double lastSampleTime_ = -1;
    std::int64_t lastCommNs_ = 0;
    std::optional<SliceTracer> tracer_; ///< --trace: where this worker's time goes
    std::int64_t markNs_ = 0, markComm_ = 0, markCommWait_ = 0, markWait_ = 0;
};
} // namespace

void runWorker(WorkerSetup& setup) {
    Telemetry& t = *setup.telemetry;
    WorkerStatus& status = t.worker(setup.rank);
    status.pid.store(getpid(), std::memory_order_relaxed);
    status.threadId.store(std::uint64_t(syscall(SYS_gettid)), std::memory_order_relaxed);
    WorkerRun run(setup);
    bool finished = false;
    try {
        finished = run.train();
    } catch (const std::exception& e) {
        run.fail("worker " + std::to_string(setup.rank) + " failed: " + e.what());
    }
    run.endTrace();
    run.save();
    if (finished)
        storeState(status.state, WorkerState::Finished);
    else if (!run.failed())
        storeState(status.state, WorkerState::Stopped);
    // However the loop was left: the end of this worker's training window;
    // then the rule's goodbye (which may wait a little for peers, and is
    // not training).
    status.finishNs.store(Telemetry::nowNs(), std::memory_order_release);
    setup.rule->finish();
}

int workerExitCode(const Telemetry& telemetry, std::uint32_t rank) {
    return loadState(telemetry.worker(rank).state) == WorkerState::Failed ? 1 : 0;
}

} // namespace hwl
