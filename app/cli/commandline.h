#pragma once
// The headless command line: `hogwild-lab --headless [options]`. Experiment
// flags come from the engine's field table (config/fields.h); this adds the
// monitor's own flags (--config, --quiet, --help, --version, --list-devices).
#include "config/experimentconfig.h"

#include <string>
#include <vector>

namespace hwl {

struct CommandLine {
    ExperimentConfig config;
    bool help = false;
    bool version = false;
    bool listDevices = false;       ///< --list-devices: print the CUDA devices and exit
    bool quiet = false;             ///< no progress bar, no per-worker lines
    bool workersGiven = false;      ///< --workers was on the command line
    std::vector<std::string> notes; ///< said to the user before the run
};

/// Parses the flags (see helpText()). `--config FILE` is applied first
/// wherever it stands, then the other flags override it. A mode that runs
/// an exact number of workers (serial) sets it unless --workers is given.
/// Throws InputError naming the flag and the problem.
CommandLine parseCommandLine(const std::vector<std::string>& args);
std::string helpText();

} // namespace hwl
