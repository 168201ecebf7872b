#pragma once
// RunSummary: what a finished run (or one so far) amounts to, as plain
// values: the Run fills it from the telemetry, the strategy adds what its
// mode found (Strategy::explain). Below both run/ and strategy/ so that a
// strategy can write it without knowing the Run. Part of the engine's public
// API (run/run.h hands it out).
#include "telemetry/sample.h"

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace hwl {

/// What a run's figures say it learned, judged when it ends (judgeLearning).
enum class LearningOutcome : std::uint32_t {
    NotJudged, ///< no epoch completed, or the run failed (its failure says why)
    Learned,   ///< its loss fell, and its accuracy (if any) is above chance
    AtChance,  ///< its test accuracy is what always answering the most common class scores
    Diverged   ///< its loss ended well above where it started (a step too large)
};
/// "not judged", "learned", "at chance", "diverged".
const char* outcomeName(LearningOutcome o);

/// A run's target (--target-accuracy, --target-loss) and where it was met:
/// at the first evaluation whose figures reach either.
struct TargetResult {
    double accuracy = 0; ///< the target test accuracy in percent; 0: none
    double loss = 0;     ///< the target test loss; 0: none
    bool reached = false;
    /// At the evaluation that reached it: training seconds (evaluations
    /// excluded, as RunSummary::trainSeconds), seconds since the launch,
    /// and the samples, steps and epochs of every worker until then.
    double trainSeconds = 0, wallSeconds = 0;
    std::uint64_t samples = 0, steps = 0;
    int epochs = 0;
    /// Reached at an evaluation inside epoch `epochs` (--eval-every), not at its end.
    bool duringEpoch = false;
    /// The best test accuracy (in [0, 1]) and loss any evaluation measured; NaN: none.
    double bestAccuracy = std::numeric_limits<double>::quiet_NaN();
    double bestLoss = std::numeric_limits<double>::quiet_NaN();

    bool set() const { return accuracy > 0 || loss > 0; }
    /// "reached", "not reached", or empty without a target: the one word
    /// of sweep.csv, --compare and the Runs table.
    const char* state() const { return !set() ? "" : reached ? "reached" : "not reached"; }
    /// Whether figures of one evaluation (accuracy in [0, 1]) reach it.
    bool metBy(double testAccuracy, double testLoss) const;
    /// The target in words: "test accuracy 90%", "test loss 0.3", or both joined by "or".
    std::string describe() const;
    /// Where the run stands against it, in a line: "test accuracy 90%
    /// reached at epoch 3, after 1.23 s of training (2.01 s wall): 120000
    /// samples (3750 steps) at 97561 samples/s" (the time is the samples
    /// over the rate), or "... not reached in 5 epochs; best: test accuracy
    /// 87.31%, test loss 0.3512".
    std::string outcomeText(int epochsCompleted) const;
};

struct RunSummary {
    RunState state = RunState::Starting;
    int epochsCompleted = 0;
    std::uint64_t steps = 0;
    std::uint64_t samples = 0; ///< training samples processed by all workers
    double wallSeconds = 0;    ///< launch of the first worker to the end
    /// First worker's first step to the last worker leaving its loop, minus evaluation.
    double trainSeconds = 0;
    double evalSeconds = 0;                 ///< the test evaluations (the workers wait meanwhile)
    double samplesPerSecond = 0;            ///< samples / trainSeconds
    bool evaluated = false;                 ///< false when the test set is empty
    double testLoss = 0, testAccuracy = 0;  ///< after the last completed epoch
    double trainLoss = 0;                   ///< mean of the workers' last epoch losses
    std::vector<double> startupSeconds;     ///< per worker, launch to first step
    std::vector<std::uint64_t> workerSteps; ///< per worker, its updates (a resumed run's included)
    std::uint64_t droppedSamples = 0;       ///< telemetry samples lost to full rings
    std::string failure;                    ///< why the run failed, for the user
    /// Every worker that died, e.g. "worker 2 (pid 4711) killed by SIGKILL after 1234 steps".
    std::vector<std::string> workerFailures;
    /// Per worker, the last divergence, as the mode defines it (RunInfo::divergence).
    std::vector<double> divergence;
    /// The loss the model started from, before its first step: on (at most
    /// 2048 rows of) the test set, else of the training set. NaN: not known.
    double startLoss = std::numeric_limits<double>::quiet_NaN();
    /// What always answering the test set's most common class scores, in
    /// [0, 1]; NaN without a test set.
    double chanceAccuracy = std::numeric_limits<double>::quiet_NaN();
    std::int64_t testRows = 0; ///< the test set's rows (for the chance band)
    TargetResult target;       ///< set() when the run had a target
    LearningOutcome outcome = LearningOutcome::NotJudged;
    std::string outcomeReason; ///< the figures behind Diverged or AtChance, in words
    /// Pitfalls the run detected, explained in plain words.
    std::vector<std::string> explanations;
    /// Other findings of the mode, e.g. "the 2 replicas ended bit-identical".
    std::vector<std::string> remarks;
    /// Data-parallel modes, per worker: seconds spent in collectives and the
    /// bytes it sent into reductions (empty otherwise).
    std::vector<double> commSeconds;
    std::vector<std::uint64_t> bytesReduced;
    /// gpu-hogwild, per worker (group of blocks): parameter writes, and how
    /// many another block overwrote (lost); empty in other modes.
    std::vector<std::uint64_t> updateWrites, lostUpdates;
    /// The sums of updateWrites and lostUpdates over the workers.
    std::uint64_t totalUpdateWrites() const {
        return std::accumulate(updateWrites.begin(), updateWrites.end(), std::uint64_t(0));
    }
    std::uint64_t totalLostUpdates() const {
        return std::accumulate(lostUpdates.begin(), lostUpdates.end(), std::uint64_t(0));
    }
    /// Worker r's share of the training loop spent in collectives, in [0, 1]:
    /// its commSeconds over the training window with the evaluations (ranks
    /// that wait for rank 0's evaluation wait in a collective); -1 when not
    /// known. The one rule of the CLI, the runs table and sweep.csv.
    double commShare(std::size_t r) const {
        const double loop = trainSeconds + evalSeconds;
        return r < commSeconds.size() && loop > 0 ? commSeconds[r] / loop : -1;
    }
    /// The mean of the workers' shares; -1 when not known.
    double commShare() const {
        const double loop = trainSeconds + evalSeconds;
        if (commSeconds.empty() || !(loop > 0))
            return -1;
        return std::accumulate(commSeconds.begin(), commSeconds.end(), 0.0) /
               (loop * double(commSeconds.size()));
    }
};

/// Sets outcome and outcomeReason from the figures of a run that ended
/// (Finished or Stopped, at least one epoch; else NotJudged). The rule:
///   Diverged: the final loss (the test loss, else the training loss) is
///     not finite, or above 1.25 times startLoss (and 0.05 above it);
///   AtChance: else, the test accuracy is within the chance band: at most
///     chanceAccuracy plus three standard errors of a test set of that size
///     (and one point), what a model that learned nothing scores;
///   Learned: else.
void judgeLearning(RunSummary& s);

/// A run's result in a word, as tables show it: "diverged" or "at chance"
/// where its figures say so, else its state ("finished", "stopped",
/// "failed"). The one rule of sweep.csv, --compare and the Runs table.
const char* resultName(const RunSummary& s);

} // namespace hwl
