#include "strategy/validation.h"

#include "config/fields.h"
#include "config/sweep.h"
#include "strategy/registry.h"
#include "util/errors.h"

#include <algorithm>

namespace hwl {

namespace {

/// The modes that take setting `s`, each named by its variant ("processes
/// (shared)", "data-parallel with --device cuda") where not every variant
/// of the name takes it.
std::vector<std::string> takers(StrategySetting s) {
    std::vector<std::string> names;
    for (const std::string& name : modesTaking(s)) {
        // A variant this build cannot run (a GPU mode without CUDA) does not
        // split its mode's name, unless only such a variant takes `s`.
        auto variants = variantsOf(name);
        auto available = variants;
        std::erase_if(available, [](const StrategyTraits* t) { return !t->unavailable.empty(); });
        if (std::any_of(available.begin(), available.end(),
                        [s](const StrategyTraits* t) { return t->takes(s); }))
            variants = available;
        if (std::all_of(variants.begin(), variants.end(),
                        [s](const StrategyTraits* t) { return t->takes(s); })) {
            names.push_back(name);
            continue;
        }
        for (const StrategyTraits* t : variants) {
            if (!t->takes(s))
                continue;
            std::string variant = name;
            if (t->takes(StrategySetting::Share))
                variant += t->share ? " (shared)" : " (not shared)";
            if (t->takes(StrategySetting::Device))
                variant += t->cuda ? " with --device cuda" : " with --device cpu";
            if (std::find(names.begin(), names.end(), variant) == names.end())
                names.push_back(variant);
        }
    }
    return names;
}

void checkWorkers(const StrategyTraits& s, const ExperimentConfig& c,
                  std::vector<ConfigIssue>& issues) {
    if (s.exactWorkers <= 0 || c.workers == s.exactWorkers)
        return;
    const std::vector<std::string> others = modeNamesWhere([](const StrategyTraits& t) {
        return t.share && t.takes(StrategySetting::Workers) && t.unavailable.empty();
    });
    issues.push_back({"workers", s.name + " mode runs exactly " + std::to_string(s.exactWorkers) +
                                     " worker" + (s.exactWorkers == 1 ? "" : "s") + " (got " +
                                     std::to_string(c.workers) + "); use mode " +
                                     listChoices(others, false) + " for more"});
}

/// device cuda for a mode without a CUDA variant (a CUDA-only mode needs no --device).
void checkDevice(const StrategyTraits& s, const ExperimentConfig& c,
                 std::vector<ConfigIssue>& issues) {
    if (c.device == ExperimentConfig{}.device || s.takes(StrategySetting::Device) || s.cuda)
        return;
    const auto cudaOnly = modeNamesWhere(
        [](const StrategyTraits& t) { return t.cuda && !t.takes(StrategySetting::Device); });
    issues.push_back(
        {"device",
         "device cuda applies to mode " + listChoices(modesTaking(StrategySetting::Device), false) +
             " only" +
             (cudaOnly.empty() ? std::string()
                               : " (" + listChoices(cudaOnly, false) + " always runs on CUDA)")});
}

/// Why optimizer-state means nothing to mode `s`, and the fix.
std::string sharedStateNote(const StrategyTraits& s, const std::string& fix) {
    if (s.cuda)
        return ": " + s.name + " on the GPU keeps its SGD momentum on the device, per block " +
               "or replica, as its kernels apply it" + fix;
    std::string why;
    if (s.takes(StrategySetting::Replicas))
        why = "its replicas apply the same averaged update, so their states stay identical "
              "without sharing";
    else if (s.takes(StrategySetting::Share) && !s.share)
        why = "each replica trains its own copy, and its state stays beside it";
    else
        why = "its one worker's state is the only one, per-worker and shared alike";
    return ": " + s.name + (s.takes(StrategySetting::Share) && !s.share ? " --no-share" : "") +
           " has no parameters that several workers update (" + why + ")" + fix;
}

/// Why a mode has no use for a field, where the table's words need more.
std::string noteFor(const Field& f, const StrategyTraits& s, const ExperimentConfig& c,
                    bool taken) {
    const std::string_view key = f.key;
    if (key == "momentum" && c.optimizer == OptimizerKind::RmsProp)
        return " (torch's RMSprop(momentum=...) is not implemented: rmsprop would train "
               "without it)";
    if (key == "lost-updates" && s.takes(StrategySetting::GpuBlocks))
        return " (" + s.name + " always counts them)";
    if (key == "split" && s.takes(StrategySetting::Replicas))
        return " (" + s.name + " gives each replica its own shard, as DistributedSampler does)";
    if (key == "resume")
        return ": " + s.name +
               "'s workers keep their momentum in processes or on a device that end with the run";
    if (key == "optimizer-state") {
        const std::string fix = "drop --optimizer-state " + f.valueText(c);
        return taken ? ": sgd without momentum keeps no state to share; set --momentum above 0 "
                       "or " +
                           fix
                     : sharedStateNote(s, "; " + fix);
    }
    if (key == "spawn-before-share")
        return ": the workers that open the parameters' segment by name";
    if (key == "reduce" && taken)
        return " (threads and processes always average in rank order, in double, as both MPI "
               "reductions do)";
    return {};
}

/// The table's rule (Field::setting, needs): a field given by the user, or
/// set away from its default, for an experiment it does not apply to is
/// said, not ignored.
void checkFields(const StrategyTraits& s, const ExperimentConfig& c,
                 std::vector<ConfigIssue>& issues) {
    const ExperimentConfig d;
    for (const Field& f : experimentFields()) {
        if ((!f.setting && !f.needs) || f.judgedByMode || fieldApplies(f, s, c))
            continue;
        const GivenField* given = c.givenField(f.key);
        if (!given && (!f.refusedElsewhere || f.get(c) == f.get(d)))
            continue;
        const bool taken = !f.setting || s.takes(*f.setting);
        std::string text = f.key;
        if (f.type == FieldType::Choice) // "split replicate applies to ..."
            text.append(1, ' ').append(f.valueText(c));
        text += " applies to ";
        if (taken) {
            text += f.needsText;
        } else {
            text += "mode ";
            text += listChoices(takers(*f.setting), false);
        }
        text += " only";
        if (!taken && f.needs) {
            text += ", with ";
            text += f.needsText;
        }
        text += noteFor(f, s, c, taken);
        // Given where it does not apply: the fix is to leave it out (the
        // issue's line names the flag or the file it came from).
        if (given && text.find("; drop ") == std::string::npos)
            text += "; drop it";
        issues.push_back({f.key, text});
    }
}

/// What the catalog says of the experiment's mode.
void validateMode(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (!findStrategy(c.mode, true) && !findStrategy(c.mode, false)) {
        issues.push_back({"mode", "unknown mode \"" + c.mode + "\"; expected " +
                                      listChoices(modeNames(), true)});
        return;
    }
    const StrategyTraits* s = findStrategy(c);
    if (s && !s->unavailable.empty()) {
        if (s->takes(StrategySetting::Device))
            issues.push_back(
                {"device", "mode " + c.mode + " on device cuda cannot run: " + s->unavailable});
        else
            issues.push_back({"mode", "mode " + c.mode + " cannot run: " + s->unavailable});
        return;
    }
    if (!s) {
        const auto unshared = modeNamesWhere([](const StrategyTraits& t) { return !t.share; });
        issues.push_back({"share", "share false (--no-share) applies to mode " +
                                       listChoices(unshared, false) +
                                       " only: the workers of mode " + c.mode +
                                       " always share one copy of the parameters"});
        return;
    }
    checkWorkers(*s, c, issues);
    checkDevice(*s, c, issues);
    checkFields(*s, c, issues);
    validateWithStrategy(c, issues);
}

} // namespace

bool fieldApplies(const Field& f, const StrategyTraits& mode, const ExperimentConfig& config) {
    return (!f.setting || mode.takes(*f.setting)) && (!f.needs || f.needs(config));
}

void resetInapplicableFields(ExperimentConfig& config,
                             const std::function<bool(const Field&)>& which) {
    const ExperimentConfig read = config, defaults;
    for (const Field& f : experimentFields())
        if ((f.setting || f.needs) && which(f) && !fieldApplies(f, read))
            f.set(config, f.get(defaults));
}

bool fieldApplies(const Field& f, const ExperimentConfig& config) {
    const StrategyTraits* mode = findStrategy(config);
    return mode && fieldApplies(f, *mode, config);
}

std::string experimentFileJson(const ExperimentConfig& config) {
    bool dropout = true;
    try {
        dropout = config.modelSpec().usesDropoutField();
    } catch (const InputError&) {
    }
    return config.toJson([&](const Field& f) {
        if (f.key == std::string_view("dropout"))
            return dropout;
        return (!f.setting && !f.needs) || f.judgedByMode || fieldApplies(f, config);
    });
}

std::string fieldModesText(const Field& f) {
    std::string text;
    if (f.setting) {
        const auto names = takers(*f.setting);
        text = names.size() == 1 ? "mode " : "modes ";
        text += listChoices(names, false);
    }
    if (f.needs) {
        text += text.empty() ? "with " : ", with ";
        text += f.needsText;
    }
    return text;
}

std::vector<ConfigIssue> validateExperiment(const ExperimentConfig& config) {
    std::vector<ConfigIssue> issues = config.validateFields();
    validateMode(config, issues);
    return issues;
}

namespace {
/// Where the issue's field was given ("--mode", "config \"a.json\": field
/// \"mode\""), else the field's key.
std::string issueLabel(const ExperimentConfig& config, const ConfigIssue& issue) {
    const GivenField* g = config.givenField(issue.field);
    if (!g)
        return issue.field;
    if (g->where.rfind("--", 0) == 0)
        return g->where;
    return g->where + ": field \"" + issue.field + "\"";
}
} // namespace

void validateExperimentOrThrow(const ExperimentConfig& config) {
    const auto issues = validateExperiment(config);
    if (issues.empty())
        return;
    std::string message = "invalid experiment:";
    for (const auto& issue : issues)
        message += "\n  " + issueLabel(config, issue) + ": " + issue.message;
    throw InputError(message);
}

void validateSweepRuns(const std::vector<PresetRun>& runs) {
    std::string message;
    std::size_t refused = 0;
    for (const PresetRun& run : runs) {
        const std::vector<ConfigIssue> issues = validateExperiment(run.config);
        if (issues.empty())
            continue;
        ++refused;
        message += "\n  run " + run.label + ":";
        for (const ConfigIssue& issue : issues)
            message += "\n    " + issueLabel(run.config, issue) + ": " + issue.message;
    }
    if (refused > 0)
        throw InputError("sweep: " + std::to_string(refused) + " of its " +
                         std::to_string(runs.size()) + " runs " + (refused == 1 ? "is" : "are") +
                         " invalid:" + message);
}

std::string experimentHelp() {
    std::vector<std::pair<std::string, std::string>> lines;
    for (const StrategyTraits* s : allStrategies()) {
        std::string name = s->name;
        if (s->takes(StrategySetting::Share) && !s->share)
            name += " --no-share";
        lines.emplace_back(name, s->help);
    }
    return fieldsHelp(&fieldModesText, lines);
}

} // namespace hwl
