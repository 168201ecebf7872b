#pragma once
// What an --out folder already holds, and what a run may do with it: a run
// never replaces another run's files unless told to (--overwrite), or it
// continues that very run (--resume DIR into DIR); a sweep or comparison
// started again into the same folder keeps its finished runs and redoes
// the others (docs/command-line.md, "Runs are never overwritten").
#include "cli/commandline.h"
#include "io/runstable.h"
#include "run/outputfolder.h"

#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// Refuses, with an InputError naming the three ways on, a run whose --out
/// already holds a run's files, unless `overwrite` or the run continues that
/// folder's run (--resume names the same folder). Says on stdout when a run
/// is replaced. Called once the folder is claimed (OutputFolder).
void checkOutIsFree(const ExperimentConfig& c, bool overwrite);

/// A sweep's or comparison's runs against what their folders hold from an
/// earlier start with the same experiments.
struct EarlierRuns {
    /// Per run of cl.runs: its row when its folder holds it finished (it is
    /// kept, not made again).
    std::vector<std::optional<TableRun>> finished;
    /// Per run: its folder holds this run unfinished (stopped, failed,
    /// killed), which it replaces.
    std::vector<bool> redo;
    std::size_t count(bool finishedOnes) const;
};

/// Reads each run's --out folder. A folder that holds another experiment's
/// run is refused (InputError, before any run starts) unless cl.overwrite.
EarlierRuns findEarlierRuns(const CommandLine& cl);

/// A sweep's --out folder records its grid in sweep.json (the sweep's keys
/// and its runs' labels, docs/file-formats.md). Refuses (InputError) a
/// sweep whose grid is not the one the folder holds (from sweep.json, or
/// from an older sweep.csv), unless cl.overwrite, when it says which runs
/// of the old grid stay. Nothing for a run that is not a sweep's.
void claimSweepFolder(const CommandLine& cl);

/// Writes the sweep's grid into its folder's sweep.json: once the sweep is
/// accepted (claimSweepFolder, findEarlierRuns), before its runs start.
void recordSweepGrid(const CommandLine& cl);

/// The line a sweep prints for a run it keeps.
std::string keptRunLine(const PresetRun& run, std::size_t index, std::size_t total);

} // namespace hwl
