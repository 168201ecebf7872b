#pragma once
// What the headless monitor prints: the progress bar (stderr, on a terminal),
// the per-epoch lines and the summary (stdout).
#include "config/presetrun.h"
#include "io/runstable.h"
#include "run/run.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// 959k, 1.44M: a rate for people.
std::string humanRate(double perSecond);
/// Redraws the one-line progress bar on stderr.
void progressBar(const TelemetryReader& telemetry, std::uint64_t expectedSamples);
void clearProgress();
/// What the epoch lines say, from the command line and the run.
struct LineStyle {
    bool quiet = false;       ///< only the test lines
    bool haveTestSet = false; ///< test lines at all
    bool scheduled = false;   ///< a worker's line names its rate
    bool evalInside = false;  ///< --eval-every: a test line names its samples
};
/// An epoch line (worker or test) with its newline, or empty where the style
/// hides it.
std::string sampleLine(const Sample& s, const LineStyle& style);
/// The run's header lines (experiment, warnings, data, model).
void printPrepared(const Run& run);
/// Per worker: time in collectives, its share of the training loop, bytes reduced.
std::string communicationText(const RunSummary& s);
/// The lost updates in all, then per worker (`noun`: "worker", "block
/// group"): "30 of 18000 (0.1667%); worker 0: 12 of 9000, worker 1: ...".
std::string lostUpdatesText(const RunSummary& s, const std::string& noun);

/// The shared-counter toy (--counter-toy): runs it and returns its report,
/// one line per way of adding. Throws InputError for sizes it cannot run.
std::string counterToyText(int workers, std::int64_t increments);
/// The summary lines, worker failures and pitfall explanations.
void printSummary(const Run& run, const RunSummary& s);

/// One run of a comparison preset, as it ended.
struct ComparedRun {
    std::string label;
    ExperimentConfig config;
    RunSummary summary;
    int exitCode = 0; ///< what the run alone would have exited with
};
/// The comparison's table: per run its label, how it ended, samples/s,
/// final test accuracy, training seconds, and (when any run has process
/// workers) each worker's start-up ms; `planned` runs were to be made.
std::string comparisonText(const std::string& presetId, const std::vector<ComparedRun>& runs,
                           std::size_t planned);
/// A sweep's table: per run the value of each swept field (`keys`), how it
/// ended, samples/s, final test accuracy and loss, training seconds; the
/// same figures as sweep.csv (io/runstable.h). `planned` runs were to be made.
std::string sweepText(const std::vector<std::string>& keys, const std::vector<TableRun>& runs,
                      std::size_t planned);
/// When the sweep varies the seed (--repeat N, --sweep seed=...) and some
/// runs differ only in it: the table of each experiment's repeats, each
/// figure's mean ± standard deviation (io/runscompare.h); else empty.
std::string repeatsText(const std::vector<PresetRun>& planned, const std::vector<TableRun>& rows);
/// A comparison with a target, each of its runs repeated (PresetRun::group):
/// the race (io/targetrace.h), a line per place with the median training
/// seconds to the target, their range, how many of the repeats reached it,
/// and the median samples it took and samples/s; empty without a target.
std::string raceText(const std::vector<ComparedRun>& runs, const std::vector<PresetRun>& planned);

} // namespace hwl
