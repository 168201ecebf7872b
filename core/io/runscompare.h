#pragma once
// The table of `hogwild-lab --compare DIR...` (and of a sweep's repeats):
// runs read back from their summary.json, one column per experiment field
// whose value differs between them (in the field table's order), then the
// final figures (io/runstable.h). Runs that differ only in their seed are
// repeats of one experiment: with `groupSeeds` each group becomes one row
// giving the number of runs and each figure's mean and standard deviation.
// Sortable by any column; written as aligned text, CSV or Markdown.
#include "config/experimentconfig.h"
#include "io/runstable.h"

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace hwl {

/// One run as summary.json gives it.
struct FolderRun {
    std::string label;                         ///< its folder, as the table names it
    std::map<std::string, std::string> fields; ///< the experiment's, as JSON text
    TableRun run;                              ///< its figures (label, summary)
};

/// The mean and the sample's standard deviation (n - 1) of the finite
/// values among `xs` (NaN without any; sd NaN below two), and how many.
struct Spread {
    double mean = std::numeric_limits<double>::quiet_NaN();
    double sd = std::numeric_limits<double>::quiet_NaN();
    double median = std::numeric_limits<double>::quiet_NaN();
    double lo = std::numeric_limits<double>::quiet_NaN(); ///< the smallest
    double hi = std::numeric_limits<double>::quiet_NaN(); ///< the largest
    std::size_t n = 0;                                    ///< the finite figures the others are of
};
Spread spreadOf(const std::vector<double>& xs);

/// Reads summary.json's text (InputError naming `origin` when it is not a
/// run summary).
FolderRun folderRunFromJson(const std::string& text, const std::string& label,
                            const std::string& origin);

/// A run of this process's sweep: its experiment's fields and its row.
FolderRun folderRunOf(const ExperimentConfig& config, const TableRun& row);

/// The fields whose value differs between the runs, in the field table's
/// order; the folders (out, tensorboard, resume, init) left out.
std::vector<std::string> varyingFields(const std::vector<FolderRun>& runs);

struct RunsTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> cells; ///< per row, as the header
    std::vector<std::vector<double>> values;     ///< per row: a number per cell, NaN when text
    std::vector<std::vector<double>> spreads;    ///< per row: a figure's sd (grouped), else NaN
    std::vector<std::vector<double>> medians;    ///< per row: a figure's median (grouped), else NaN
    std::vector<bool> figure;                    ///< per column: a final figure (a number)
    bool grouped = false;                        ///< repeats folded into mean ± sd rows
};

/// The table of `runs`; with `groupSeeds`, runs that differ only in their
/// seed are one row (when any two do).
RunsTable runsTable(const std::vector<FolderRun>& runs, bool groupSeeds);

/// Sorts the rows by the column named `column` (numbers by value, unknown
/// cells last; otherwise by text), in reverse when `descending`. False when
/// no column has that name.
bool sortRunsTable(RunsTable& table, const std::string& column, bool descending);

enum class TableFormat { Text, Csv, Markdown };
/// Text and Markdown show figures for the eye (5.94M, 55.17%, mean ± sd);
/// CSV gives them as numbers as sweep.csv does, a grouped figure as two
/// columns, <figure>_mean and <figure>_sd (and target_seconds_median: time
/// to a target is told by its median, as MLPerf does, over the runs that
/// reached it; the target column counts them: "2 reached, 1 not reached").
std::string formatRunsTable(const RunsTable& table, TableFormat format);

} // namespace hwl
