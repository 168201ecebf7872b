#pragma once
// The runs of a sweep as a table (docs/file-formats.md, "sweep.csv"): per
// run its label, the value of each swept field, how it ended and its final
// figures. sweep.csv is written from it, and the command line prints the
// same columns, so both say the same thing.
#include "telemetry/runsummary.h"

#include <string>
#include <vector>

namespace hwl {

/// One run as it ended.
struct TableRun {
    std::string label;               ///< "workers=2,mode=threads"
    std::vector<std::string> values; ///< per swept field, as the label writes it
    int exitCode = 0;                ///< what the run alone would have exited with
    bool started = false;            ///< false: refused before training (see error)
    RunSummary summary;
    std::string error; ///< why it failed or was refused; empty when it did not
};

/// One final figure: its CSV column and how a run gives it (empty when the
/// run has none, e.g. no test set).
struct RunFigure {
    const char* column; ///< "samples_per_s"
    std::string (*text)(const TableRun&);
    /// The figure as a number, NaN when the run has none; null for the
    /// figures that are not numbers (result, exit).
    double (*value)(const TableRun&);
};

/// The figures, in column order: result, exit, samples_per_s,
/// test_accuracy, test_loss, train_loss, train_seconds, target ("reached",
/// "not reached", empty without one), target_seconds and target_samples
/// (the training seconds and samples to it, when reached), startup_seconds
/// (the slowest worker's), comm_share (data-parallel: the share of the
/// workers' loop time in collectives), lost_updates (gpu-hogwild).
const std::vector<RunFigure>& runFigures();

/// `text` as one CSV field: quoted as RFC 4180 says when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& text);

/// sweep.csv: a header "run,<keys...>,<figures...>,error", then one line
/// per run; fields holding a comma, a quote or a line break are quoted as
/// RFC 4180 says.
std::string runsCsv(const std::vector<std::string>& keys, const std::vector<TableRun>& runs);

} // namespace hwl
