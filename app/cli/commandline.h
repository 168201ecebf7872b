#pragma once
// The headless command line: `hogwild-lab --headless [options]`. Experiment
// flags come from the engine's field table (config/fields.h); this adds the
// monitor's own flags (--preset, --config, --quiet, --help, --version,
// --list-devices, --list-presets, --counter-toy, --increments, --pace).
#include "config/experimentconfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct CommandLine {
    ExperimentConfig config;
    bool help = false;
    bool version = false;
    bool listDevices = false;       ///< --list-devices: print the CUDA devices and exit
    bool listPresets = false;       ///< --list-presets: print the presets and exit
    bool counterToy = false;        ///< --counter-toy: run the shared-counter race and exit
    std::int64_t increments = 0;    ///< --increments; 0: counterToyDefaultIncrements()
    bool quiet = false;             ///< no progress bar, no per-worker lines
    std::uint32_t pace = 0;         ///< --pace (or the preset's): steps/s per worker; 0: full speed
    bool workersGiven = false;      ///< --workers was on the command line
    std::vector<std::string> notes; ///< said to the user before the run
};

/// Parses the flags (see helpText()). `--preset ID` is applied first, then
/// `--config FILE`, wherever they stand; then the other flags override them. A mode that runs
/// an exact number of workers (serial) sets it unless --workers is given.
/// Throws InputError naming the flag and the problem.
CommandLine parseCommandLine(const std::vector<std::string>& args);
std::string helpText();
/// What --list-presets prints: each preset's id, name and explanation.
std::string presetsText();

} // namespace hwl
