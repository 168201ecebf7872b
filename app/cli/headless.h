#pragma once
// The headless monitor: `hogwild-lab --headless [options]` runs one
// experiment through the engine's run API, prints each epoch and a summary,
// and writes the outputs. Everything printed is printed here: the engine
// prints nothing.
#include <string>
#include <vector>

namespace hwl {

/// Runs an experiment headless and returns the exit status: 0 success,
/// 1 failure while training (or writing the outputs), 2 invalid config or
/// input file, 128 + the signal when interrupted (130 for Ctrl-C).
int runHeadless(const std::vector<std::string>& args);

} // namespace hwl
