#pragma once
// Sweeps: a grid of runs over experiment fields. `--sweep workers=1,2,4
// --sweep mode=threads,processes` on the command line, or the experiment
// file's "sweep" object ({"workers": [1, 2, 4], "mode": ["threads",
// "processes"]}), makes the cross product of the values: one run per
// combination, the first axis varying slowest, each labelled by its values
// ("workers=2,mode=threads") and writing into its own folder under --out.
// Every value is judged by the field's own check (config/fields.h), and
// every run is validated before the first one starts.
#include "config/experimentconfig.h"
#include "config/presetrun.h"

#include <string>
#include <vector>

namespace hwl {

/// --sweep's value "KEY=V1,V2,...": the field's JSON key and its values as
/// its flag takes them (a switch: true, false). Throws InputError naming
/// --sweep and what is wrong (unknown field, no values, a value refused).
SweepAxis parseSweepFlag(const std::string& text);

/// Adds `axis` to `sweep`; a field already swept is refused (InputError).
void addSweepAxis(std::vector<SweepAxis>& sweep, SweepAxis axis);

/// The runs of config.sweep: config with each combination of values set and
/// its sweep emptied; `out` (when set) becomes out/<folder of the label>
/// (out/run-N, N from 1, when that name would pass 120 bytes).
/// Throws InputError when the sweep varies what it cannot (out), repeats a
/// value, or has more than limits::kMaxSweepRuns runs.
std::vector<PresetRun> sweepRuns(const ExperimentConfig& config);

/// The keys config.sweep varies, in order.
std::vector<std::string> sweepKeys(const ExperimentConfig& config);

/// A value as the run's label and sweep.csv write it: "4", "0.01", "fork".
std::string sweepValueText(const FieldValue& value);

/// A label as a folder name: characters other than letters, digits and
/// ".,=+-:_" become "_" (a dataset path's "/").
std::string sweepFolderName(const std::string& label);

} // namespace hwl
