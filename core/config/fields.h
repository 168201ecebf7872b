#pragma once
// The experiment's fields, in one table: JSON key, command-line flag, help
// text and limits. The JSON reader and writer (ExperimentConfig), the flag
// parser (applyFlag), --help (fieldsHelp) and the window's form (the ranges
// of its editors) are all made from it, so each field is described once.
// Part of the engine's public API. Thread-safe (the table never changes).
#include "config/experimentconfig.h"
#include "config/modes.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hwl {

enum class FieldType {
    Text,    ///< a string (model, dataset, init, out)
    Integer, ///< an integer in [min, max]
    Seed,    ///< a non-negative 64-bit integer
    Number,  ///< a finite number in the interval min..max (ends open or closed)
    Switch,  ///< true or false: --KEY sets true, --NEGATION sets false
    Choice,  ///< one of choices()
};

struct Field {
    const char* key = ""; ///< JSON key; the flag is "--" + key
    FieldType type = FieldType::Text;
    const char* valueName =
        nullptr;             ///< what --help calls the value: N, X, SPEC, ... (switches: none)
    const char* help = "";   ///< --help text; lines after the first are continuations
    double min = 0, max = 0; ///< Integer, Number
    bool minOpen = false, maxOpen = false; ///< Number: whether the interval's ends are open
    const char* negation = nullptr; ///< Switch: the flag word that sets false ("no-share"), if any
    const char* negationHelp = nullptr;                ///< ... and its --help text
    std::function<std::vector<std::string>()> choices; ///< Choice: the accepted names
    /// Names where or how the run writes (out, tensorboard,
    /// onnx-normalized-inputs), not how it trains:
    /// never swept (each run of a sweep gets its own folder under it), not
    /// a hyper-parameter, not a column of the runs table.
    bool output = false;
    /// A path, and what it names ("directory", "safetensors file"): an
    /// empty value on the command line is a mistake, not "none".
    const char* pathKind = nullptr;
    /// Which modes take the field: those whose traits take this setting
    /// (strategy/catalog.h); none: every mode. The validator, the form's
    /// rows and --help's "applies to" are made from it (fieldApplies() in
    /// strategy/catalog.h decides it for an experiment).
    std::optional<StrategySetting> setting;
    /// ... and only where the experiment is thus: the MPI fields need
    /// transport mpi. Null: always.
    bool (*needs)(const ExperimentConfig&) = nullptr;
    const char* needsText = nullptr; ///< what `needs` asks, for messages: "--transport mpi"
    /// Set away from its default for a mode it does not apply to: refused,
    /// naming the modes it applies to. False for the fields the mode itself
    /// judges (workers: a count it fixes; share and device: they pick the
    /// mode's variant) and for start-method, which a form keeps unused.
    bool refusedElsewhere = true;
    /// Judged by the mode however it came (workers: serial takes a count of
    /// 1; share and device: they pick the mode's variant; on-worker-failure:
    /// every run stops on a death unless told to continue, which
    /// data-parallel refuses), so never refused by the table's rule. Every other field with a
    /// setting or needs, given by the user where it does not apply, is refused whatever its value
    /// (ExperimentConfig::given), start-method included.
    bool judgedByMode = false;
    /// Behind the form's "Advanced" toggle: a pitfall, or tuning most runs leave alone.
    bool advanced = false;
    std::function<FieldValue(const ExperimentConfig&)> get;
    std::function<void(ExperimentConfig&, const FieldValue&)> set;

    bool ranged() const { return type == FieldType::Integer || type == FieldType::Number; }
    /// "1..256", "(0, 100]"; empty for fields without limits.
    std::string rangeText() const;
    bool inRange(double value) const;
    /// The one refusal of a value out of the field's range, whichever road
    /// it came by: "must be in 1..256 (got 99999999999)", "must be a
    /// number in (0, 100] (got 0)"; the seed: "must be in
    /// 0..18446744073709551615 (got ...)".
    std::string outOfRange(const std::string& got) const;
    /// The field's value in `config` as a flag takes it: "0.01", "fork", "true".
    std::string valueText(const ExperimentConfig& config) const;
};

/// Every field, in the order --help lists them.
const std::vector<Field>& experimentFields();
/// The field with JSON key `key`, or null.
const Field* findField(std::string_view key);
/// The field a flag sets ("--workers", "--no-share"), or null.
const Field* findFlag(std::string_view flag);
/// "; did you mean \"workers\"?" when `key` is a typo of a field's key (or
/// of one of `alsoKnown`, keys beside the table such as "sweep"), else "":
/// the end of the messages that refuse an unknown field (util/spelling.h).
std::string didYouMeanField(std::string_view key, const std::vector<std::string>& alsoKnown = {});
/// The same for a flag: "; did you mean --workers?" when `flag` is a typo of
/// one the table makes ("--KEY", "--NEGATION") or of one of `alsoKnown` (the
/// monitor's own flags), else "".
std::string didYouMeanFlag(std::string_view flag, const std::vector<std::string>& alsoKnown);

/// "a" or "b" / one of "a", "b", "c" (with quotes when `quote`): how messages list names.
std::string listChoices(const std::vector<std::string>& names, bool quote);

/// Applies one experiment flag to `config`: `flag` is "--KEY" (with `value`)
/// or a switch ("--shuffle", "--no-shuffle", no value). Checks only the
/// syntax (ranges are validate()'s, so every bad field is reported at once).
/// Throws InputError "--KEY: expected ..., got "..." (see --help)".
void applyFlag(ExperimentConfig& config, std::string_view flag,
               const std::optional<std::string>& value);
/// A value of `f` written as its flag takes it ("4", "0.01", "fork"; a
/// switch: "true" or "false"), judged as the flag judges it: the flag
/// parser and a sweep's values go through here. Throws InputError
/// "NAME: expected ..., got "..." (see --help)".
FieldValue parseFieldText(const Field& f, const std::string& text, std::string_view name);
/// Whether `flag` (a field's flag) takes a value; false for switches.
bool flagTakesValue(std::string_view flag);

/// The experiment part of --help: each field's flag, help, the modes it
/// applies to (`appliesTo`: "modes data-parallel" or empty for every mode)
/// and default (from ExperimentConfig::defaults()), then `modeLines`, the
/// modes with their one-line help. strategy/validation.h's experimentHelp()
/// passes the catalog's.
std::string fieldsHelp(const std::function<std::string(const Field&)>& appliesTo,
                       const std::vector<std::pair<std::string, std::string>>& modeLines);

} // namespace hwl
