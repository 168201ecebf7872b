#pragma once
// The --out folder of a run (headless, or the window's): checked (and locked) before training,
// so a long run never ends in a write that could not happen, and written
// file by file after it, so one failure costs only that file.
#include "telemetry/runsummary.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// The files --out writes, in the order a run writes them.
inline constexpr const char* kRunFiles[] = {
    "weights.safetensors", "weights.npz",     "model.onnx",  "optimizer.safetensors",
    "metrics.csv",         "experiment.json", "summary.json"};

/// The files a run writes into its --out folder, in the order it writes
/// them (the weights, optimizer.safetensors where the mode keeps a state,
/// metrics.csv, experiment.json, summary.json): kRunFiles as a list.
std::vector<std::string> outputFileNames();

/// The names of the files --out writes that `dir` holds, in the order a run
/// writes them; empty when it holds none (or does not exist).
std::vector<std::string> runFilesIn(const std::string& dir);

/// What summary.json in `dir` says; nullopt with the reason in `why` (when
/// given) when there is none or it cannot be read.
std::optional<RunSummary> summaryIn(const std::string& dir, std::string* why = nullptr);

class Run;
class MetricsLog;
struct RunRecord;

/// What writeOutputs() did: the files written, and for each one that could
/// not be, "weights.npz: <reason>".
struct OutputReport {
    std::vector<std::string> written;
    std::vector<std::string> failed;
    /// Files this run does not have, with why: "model.onnx (...)".
    std::vector<std::string> leftOut;
    /// Files of the run this one replaced (--overwrite) that it did not
    /// write again, removed so that no file of the two runs stays mixed
    /// with the other's (the weights after a failed run).
    std::vector<std::string> removed;
};

/// Holds the folder for this run while it lives (an exclusive lock on the
/// folder: a second run into it is refused, not mixed in).
class OutputFolder {
public:
    /// Creates `dir` if needed and checks, before anything is trained, that
    /// the run can write its outputs there: a writable folder, no folder or
    /// device where an output file goes, about `bytesNeeded` free, no other
    /// run writing into it. Removes temporaries that a dead writer left.
    /// InputError naming the problem otherwise.
    /// `replacing`: the folder holds another run that this one replaces
    /// (checkOutIsFree() said so).
    OutputFolder(const std::string& dir, std::uint64_t bytesNeeded, bool replacing = false);
    /// What a prepared run's outputs take, about: the weights three times
    /// (safetensors, npz, ONNX) and 4 MiB for the rest.
    static std::uint64_t bytesNeededFor(const Run& run);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    /// Writes the weights (safetensors first, then npz, then the network as
    /// model.onnx where the parameters fit ONNX's 2 GiB, and the optimizer's
    /// state where the mode keeps one: unless `withWeights` is false),
    /// experiment.json, metrics.csv and summary.json (`record`), each through
    /// a temporary file and a rename; a file that fails is reported (the
    /// earlier file of that name stays whole), the others still written.
    /// When replacing, the replaced run's files not written again are
    /// removed (a file that failed keeps the earlier one).
    OutputReport write(const Run& run, const MetricsLog& log, bool withWeights,
                       const RunRecord& record) const;

    /// write() after a run that ended as `s` (started at `started`):
    /// everything after a good or stopped run, no weights after a failed one
    /// (a diverged run's are NaN; the metrics say what happened). Returns
    /// the line that says what was written ("wrote DIR/{...}; ..."); the
    /// files that could not be written, with why, go to `failed`.
    std::string writeRun(Run& run, const MetricsLog& log, const RunSummary& s,
                         std::chrono::system_clock::time_point started,
                         std::vector<std::string>& failed) const;

private:
    std::string dir_;
    bool replacing_ = false;
    int lock_ = -1;
};

} // namespace hwl
