#pragma once
// The headless command line: `hogwild-lab --headless [options]`.
#include "config/experimentconfig.h"

#include <string>
#include <vector>

namespace hwl {

struct CommandLine {
    ExperimentConfig config;
    bool help = false;
    bool version = false;
    bool quiet = false;             ///< no progress bar, no per-worker lines
    std::vector<std::string> notes; ///< said to the user before the run
};

/// Parses the flags (see helpText()). `--config FILE` is applied first
/// wherever it stands, then the other flags override it. Throws InputError
/// naming the flag and the problem.
CommandLine parseCommandLine(const std::vector<std::string>& args);
std::string helpText();

/// Runs an experiment headless and returns the exit status: 0 success,
/// 1 failure while training, 2 invalid config or input file, 130 interrupted.
int runHeadless(const std::vector<std::string>& args);

/// Writes experiment.json, metrics.csv and (withWeights) weights.safetensors
/// and weights.npz into `dir` (created if missing), each by temp file + rename.
class Run;
class MetricsLog;
void writeRunOutputs(const std::string& dir, const Run& run, const MetricsLog& log,
                     bool withWeights = true);

} // namespace hwl
