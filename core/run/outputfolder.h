#pragma once
// The --out folder of a run (headless, or the window's), written as a unit.
// Claimed before anything is loaded (its lock: a second run into it is
// refused at once). The run's files are written into a staging folder inside
// it (.hwl-staging-<pid>), synced, described by manifest.json last, and
// committed by one rename to .hwl-commit; they are then moved into place,
// the manifest last. A crash before the commit leaves the old run whole (and
// a staging folder the next claim removes); a crash after it leaves the new
// run whole in .hwl-commit, which the next claim moves into place.
#include "io/runmanifest.h"
#include "telemetry/runsummary.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// The files a run writes into its --out folder, in the order it writes
/// them (the weights, optimizer.safetensors where the mode keeps a state,
/// metrics.csv, experiment.json, summary.json, manifest.json): kRunFiles.
std::vector<std::string> outputFileNames();

/// What summary.json in `dir` says; nullopt with the reason in `why` (when
/// given) when there is none or it cannot be read.
std::optional<RunSummary> summaryIn(const std::string& dir, std::string* why = nullptr);

class Run;
class MetricsLog;
struct RunRecord;

/// What write() did: the files written, and for each one that could not be,
/// "weights.npz: <reason>" (then nothing was committed: the folder keeps
/// what it held).
struct OutputReport {
    std::vector<std::string> written;
    std::vector<std::string> failed;
    /// Files this run does not have, with why: "model.onnx (...)".
    std::vector<std::string> leftOut;
    /// Files of the run this one replaced that it did not write again.
    std::vector<std::string> removed;
    bool committed = false;
};

/// Holds the folder for this run while it lives.
class OutputFolder {
public:
    /// Claims `dir`: creates it if needed, takes its lock (InputError when
    /// another run holds it), completes or removes what an interrupted run
    /// left (cleanup() says what), and checks that no folder or device sits
    /// where an output file goes. InputError naming the problem otherwise.
    explicit OutputFolder(const std::string& dir);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    /// What the claim did about an interrupted run; empty when nothing.
    const std::string& cleanup() const { return cleanup_; }

    /// Reads the metrics.csv of the run `config` resumes (config.resume),
    /// which metrics.csv will continue: called when the run has loaded that
    /// run's weights, so that both come from the same run. Nothing without
    /// --resume.
    void keepEarlierMetrics(const ExperimentConfig& config);

    /// What a prepared run's outputs take, from its real sizes: the weights
    /// as safetensors, npz and ONNX, the optimizer's state, the metrics and
    /// the JSON files (the old run stays until the new one is committed).
    static std::uint64_t bytesNeededFor(const Run& run);
    /// InputError when less than `bytes` is free in the folder.
    void checkSpace(std::uint64_t bytes) const;

    /// Writes the weights (safetensors, npz, model.onnx where the parameters
    /// fit ONNX's 2 GiB, the optimizer's state where the mode keeps one:
    /// unless `withWeights` is false), metrics.csv, experiment.json and
    /// summary.json (`record`) into the staging folder, then manifest.json,
    /// and commits them. A file that fails commits nothing: the folder keeps
    /// the run it held (or stays empty).
    OutputReport write(const Run& run, const MetricsLog& log, bool withWeights,
                       const RunRecord& record);

    /// write() after a run that ended as `s` (started at `started`):
    /// everything after a good or stopped run, no weights after a failed one
    /// (a diverged run's are NaN; the metrics say what happened). Returns
    /// the line that says what was written ("wrote DIR/{...}; ..."); the
    /// files that could not be written, with why, go to `failed`.
    /// `tensorboardRun`: the run's TensorBoard folder's name, for summary.json.
    std::string writeRun(Run& run, const MetricsLog& log, const RunSummary& s,
                         std::chrono::system_clock::time_point started,
                         std::vector<std::string>& failed, const std::string& tensorboardRun = {});

private:
    void makeFolder();
    void removeMade();

    std::string dir_;
    std::string cleanup_;
    std::string top_;                     ///< the highest folder the claim made (dir_ or a parent)
    std::unique_ptr<MetricsLog> earlier_; ///< the resumed run's metrics (keepEarlierMetrics)
    std::string earlierProblem_;          ///< why they could not be read
    bool created_ = false;                ///< the claim made the folder
    bool committed_ = false;              ///< a run was committed into it
    int lock_ = -1;
};

/// Claims `dir` for a moment (a sweep deciding which runs to keep): completes
/// or removes what an interrupted run left; returns what it did (empty when
/// nothing). InputError when another run is writing into it.
std::string settleRunFolder(const std::string& dir);

} // namespace hwl
