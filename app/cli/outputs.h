#pragma once
// The --out folder of a headless run: checked (and locked) before training,
// so a long run never ends in a write that could not happen, and written
// file by file after it, so one failure costs only that file.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

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
};

/// The files a run writes into its --out folder, in the order it writes
/// them (the weights, optimizer.safetensors where the mode keeps a state,
/// metrics.csv, experiment.json, summary.json).
std::vector<std::string> outputFileNames();

/// Holds the folder for this run while it lives (an exclusive lock on the
/// folder: a second run into it is refused, not mixed in).
class OutputFolder {
public:
    /// Creates `dir` if needed and checks, before anything is trained, that
    /// the run can write its outputs there: a writable folder, no folder or
    /// device where an output file goes, about `bytesNeeded` free, no other
    /// run writing into it. Removes temporaries that a dead writer left.
    /// InputError naming the problem otherwise.
    OutputFolder(const std::string& dir, std::uint64_t bytesNeeded);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    /// Writes the weights (safetensors first, then npz, then the network as
    /// model.onnx where the parameters fit ONNX's 2 GiB, and the optimizer's
    /// state where the mode keeps one: unless `withWeights` is false),
    /// experiment.json, metrics.csv and summary.json (`record`), each through
    /// a temporary file and a rename; a file that fails is reported, the
    /// others still written.
    OutputReport write(const Run& run, const MetricsLog& log, bool withWeights,
                       const RunRecord& record) const;

private:
    std::string dir_;
    int lock_ = -1;
};

} // namespace hwl
