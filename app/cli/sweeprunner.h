#pragma once
// A sweep's runs made K at a time (--sweep-parallel K): each run is a child
// process of this engine (`hogwild-lab-engine --config RUN.json --quiet`),
// its output in DIR/<label>/output.txt, its figures read back from the
// summary.json it writes; the table and sweep.csv are the sequential
// sweep's, in the grid's order.
#include "cli/commandline.h"
#include "io/runstable.h"

#include <functional>
#include <vector>

namespace hwl {

/// The environment variable a --sweep-parallel sweep gives each run it
/// starts: the sweep's pid, with which the run dies (dieWithSweepParent()).
inline constexpr const char* kSweepParentVariable = "HWL_SWEEP_PARENT";

/// In a run a sweep started: asks for SIGTERM when the sweep dies (the run
/// then stops as Ctrl-C stops it, and writes what it trained), and sends it
/// now when the sweep is already gone.
void dieWithSweepParent();

/// Writes sweep.csv into the sweep's --out (nothing without one). False,
/// after saying why on stderr, when it cannot.
bool writeSweepCsv(const CommandLine& cl, const std::vector<TableRun>& rows);

/// Makes cl.runs cl.sweepParallel at a time and prints the table. A signal
/// (`stopSignal()` non-zero) stops launching, passes SIGINT on to the runs
/// going and waits for them. Returns the first non-zero exit status of the
/// runs in the grid's order (128 + the signal when stopped), or 1 when
/// sweep.csv could not be written.
int runSweepInParallel(const CommandLine& cl, const std::function<int()>& stopSignal);

} // namespace hwl
