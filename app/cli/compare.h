#pragma once
// hogwild-lab --compare DIR... [--sort COLUMN] [--reverse] [--format
// text|csv|markdown] [--no-repeats]: the table of runs already made, read
// from the summary.json of each run folder (or of every run below a sweep's
// folder), as io/runscompare.h lays it out. Nothing is trained.
#include <string>
#include <vector>

namespace hwl {

/// Whether `args` ask for --compare.
bool wantsCompare(const std::vector<std::string>& args);

/// Prints the table; returns 0, 1 when a summary.json could not be read
/// (said on stderr, the others still shown), 2 for bad flags or folders.
int runCompare(const std::vector<std::string>& args);

} // namespace hwl
