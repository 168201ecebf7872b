#pragma once
// The headless monitor: `hogwild-lab --headless [options]` runs one
// experiment through the engine's run API, prints each epoch and a summary,
// and writes the outputs. Everything printed is printed here: the engine
// prints nothing.
#include <string>
#include <vector>

namespace hwl {

class Run;
class MetricsLog;

/// Runs an experiment headless and returns the exit status: 0 success,
/// 1 failure while training, 2 invalid config or input file, 130 interrupted.
int runHeadless(const std::vector<std::string>& args);

/// Writes experiment.json, metrics.csv and (withWeights) weights.safetensors
/// and weights.npz into `dir` (created if missing), each by temp file + rename.
void writeRunOutputs(const std::string& dir, const Run& run, const MetricsLog& log,
                     bool withWeights = true);

} // namespace hwl
