#pragma once
// summary.json: what a run was and what it reached, in one file a script,
// the run list or a runs table can read without parsing the command line's
// output (docs/file-formats.md, "summary.json"). Written into every --out
// folder after the run, beside experiment.json and metrics.csv.
#include "config/experimentconfig.h"
#include "data/normalize.h"
#include "telemetry/runsummary.h"
#include "telemetry/telemetryreader.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// Everything summary.json says, gathered by the caller when the run ended.
struct RunRecord {
    ExperimentConfig config;
    std::string mode; ///< describeMode(): "processes (fork)"
    std::int64_t parameters = 0;
    RunSummary summary;
    std::vector<WorkerSnapshot> workers; ///< the telemetry's last word on each
    std::chrono::system_clock::time_point started, ended;
    Normalization normalization; ///< what --normalize applied (none: no "normalization")
    std::string tensorboardRun;  ///< its TensorBoard run folder (none: no "tensorboard_run")
};

/// The summary.json text of `record` (UTF-8, 2-space indent, ends in a
/// newline). Figures that are not numbers (a diverged loss) are null.
std::string runSummaryJson(const RunRecord& record);

/// What a summary.json says of the run's end, as the RunSummary it was
/// written from: its state and failure, the final figures, and per worker
/// its start-up, seconds in collectives and lost updates (the figures of a
/// sweep's table, io/runstable.h). Throws InputError naming `origin` when
/// the text is not a summary.json.
RunSummary runSummaryFromJson(const std::string& text, const std::string& origin);

/// The TensorBoard run folder summary.json's text names ("tensorboard_run"):
/// where a run resumed from it goes on logging. Empty when none.
std::string tensorBoardRunOf(const std::string& summaryText);

/// "2026-12-04T15:20:01Z": a time in UTC as ISO 8601 says, to the second.
std::string isoTimeUtc(std::chrono::system_clock::time_point t);

} // namespace hwl
