#pragma once
// An experiment validated whole: its fields (ExperimentConfig::validateFields:
// limits, specs, fields that go together) and its mode (the strategy catalog:
// an unknown mode, one this build cannot run, a setting the mode does not
// take, a worker count it cannot run, the strategy's own checks). Every
// caller that asks "may this run?" asks here: the Run, an MPI rank, the
// window's form and file opening, a sweep's runs, the presets. Part of the
// engine's public API. Thread-safe.
#include "config/experimentconfig.h"

#include <functional>
#include <string>
#include <vector>

namespace hwl {

struct Field;
struct PresetRun;
struct StrategyTraits;

/// Every problem, each naming its field. Empty: the experiment may run.
std::vector<ConfigIssue> validateExperiment(const ExperimentConfig& config);
/// Throws InputError "invalid experiment:" listing every issue, one per line.
void validateExperimentOrThrow(const ExperimentConfig& config);
/// Throws InputError naming each run of a sweep that is invalid, and why
/// ("sweep: 2 of its 6 runs are invalid: ...").
void validateSweepRuns(const std::vector<PresetRun>& runs);
/// Whether field `f` (config/fields.h) applies to the experiment `config`
/// describes: its mode takes the field's setting and the experiment is as
/// the field needs (transport mpi). Fields without a setting apply to every
/// mode. The validator refuses a field set where it does not apply, the
/// window shows and enables its editor where it does.
bool fieldApplies(const Field& f, const ExperimentConfig& config);
/// Sets back to its default each field `which` picks that `config` sets for
/// a mode it does not apply to (Field::setting, needs): what a form's hidden
/// row holds is no part of a run of that mode (the window's form on a mode
/// change, its sweep over mode).
void resetInapplicableFields(ExperimentConfig& config,
                             const std::function<bool(const Field&)>& which);
bool fieldApplies(const Field& f, const StrategyTraits& mode, const ExperimentConfig& config);
/// The experiment as a file holds it (an --out folder's experiment.json,
/// the window's Save): the fields that apply to it, so that --config, which
/// refuses a field given where it does not apply, reads it back as the same
/// experiment. Leaves out each field of a setting or need the experiment
/// lacks (Field::setting, needs; not those its mode judges, such as
/// workers) and dropout for a model without dropout layers.
std::string experimentFileJson(const ExperimentConfig& config);
/// The modes a field applies to, for --help and tooltips: "mode
/// data-parallel, with --transport mpi", "modes serial, threads or
/// threads-locked"; empty for a field of every mode.
std::string fieldModesText(const Field& f);

/// The experiment part of --help: the field table's flags, then the
/// registered modes with their one-line help.
std::string experimentHelp();

} // namespace hwl
