#pragma once
// The headless command line: `hogwild-lab --headless [options]`. Experiment
// flags come from the engine's field table (config/fields.h); this adds the
// monitor's own flags (--preset, --config, --sweep, --quiet, --help,
// --version, --list-devices, --list-presets, --counter-toy, --increments,
// --pace, --overwrite).
#include "config/experimentconfig.h"
#include "preset/presets.h"

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
    /// --preset of a comparison (Preset::compare): its runs in order, each
    /// with --config and the other flags applied as to `config` (which is
    /// the first), and --out DIR made DIR/<label>. Empty: the one run.
    std::vector<PresetRun> runs;
    std::string presetId; ///< --preset's id, or empty
    /// --repeat N of a comparison preset: `runs` holds each of its runs N
    /// times in a row (PresetRun::group its label); 1 otherwise.
    int repeat = 1;
    /// A sweep (--sweep, or the file's "sweep"): the fields it varies, and
    /// --out as given, where sweep.csv goes (the runs write below it).
    /// `runs` then holds its runs (config/sweep.h).
    std::vector<std::string> sweepKeys;
    std::string sweepOut;
    /// --sweep-parallel: the sweep's runs going at once (0, not given, and 1:
    /// one after another).
    unsigned sweepParallel = 0;
    /// --overwrite: a run may replace the run its --out folder holds (and a
    /// sweep every run of another experiment in its folders).
    bool overwrite = false;
    /// --trace FILE: where each worker's time goes, as a Chrome trace
    /// (io/tracefile.h); empty: not traced.
    std::string trace;
};

/// Parses the flags (see helpText()). `--preset ID` is applied first, then
/// `--config FILE`, wherever they stand; then the other flags override them. A mode that runs
/// an exact number of workers (serial) sets it unless --workers is given. A
/// comparison preset gets the same done to each of its runs (`runs`); so
/// does a sweep, whose every run is validated here (before any starts).
/// Throws InputError naming the flag and the problem.
CommandLine parseCommandLine(const std::vector<std::string>& args);
std::string helpText();
/// What --list-presets prints: each preset's id, name and explanation (a
/// user's with the file it came from).
std::string presetsText(const std::vector<Preset>& all);

} // namespace hwl
