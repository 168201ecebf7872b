#include "preset/presetfile.h"

#include "config/fields.h"
#include "data/datasetspec.h"
#include "model/modelspec.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/limits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <set>

namespace hwl {

namespace {
using nlohmann::json;

/// The synthetic stand-in for Fashion-MNIST: same shape (784 features,
/// 10 classes, 60000 rows), learnable.
const char* const kFashionStandIn = "teacher:60000x784:10:64";
const char* const kStandInNote =
    "<p>Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist), "
    "so this runs on a synthetic teacher task of the same shape.</p>";

const char* const kMetaKeys[] = {"title", "order", "pace", "compares", "invites", "runs"};

[[noreturn]] void refuse(const PresetTexts& t, const std::string& why) {
    throw InputError(t.origin + ": " + why);
}

/// The canonical form of the model and dataset texts, so that a preset
/// survives a round trip through the form unchanged (a text that does not
/// parse stays as it is: the validation names it).
void canonicalise(ExperimentConfig& c) {
    try {
        c.model = toString(parseModelSpec(c.model));
    } catch (const InputError&) {
    }
    try {
        c.dataset = toString(parseDatasetSpec(c.dataset));
    } catch (const InputError&) {
    }
}

std::string fieldList() {
    std::string list;
    for (const Field& f : experimentFields())
        list += (list.empty() ? "" : ", ") + std::string(f.key);
    return list;
}

/// The first field in which two experiments differ, or "".
std::string firstDifference(const ExperimentConfig& a, const ExperimentConfig& b) {
    const json ja = json::parse(a.toJson()), jb = json::parse(b.toJson());
    for (const auto& [key, value] : ja.items())
        if (!jb.contains(key) || jb[key] != value)
            return key;
    for (const auto& [key, value] : jb.items())
        if (!ja.contains(key))
            return key;
    return {};
}

void checkExperiment(const PresetTexts& t, const ExperimentConfig& c, const std::string& run) {
    const std::vector<ConfigIssue> issues = validateExperiment(c);
    if (issues.empty())
        return;
    std::string message = run.empty() ? "invalid experiment:" : "run \"" + run + "\" is invalid:";
    for (const ConfigIssue& issue : issues)
        message += "\n  " + issue.field + ": " + issue.message;
    refuse(t, message);
}

ComparedFigure comparedFigure(const PresetTexts& t, const json& value) {
    const std::pair<const char*, ComparedFigure> figures[] = {
        {"throughput", ComparedFigure::Throughput},
        {"divergence", ComparedFigure::Divergence},
        {"start-up", ComparedFigure::StartUp},
        {"time to target", ComparedFigure::TimeToTarget}};
    for (const auto& [name, figure] : figures)
        if (value.is_string() && value.get<std::string>() == name)
            return figure;
    refuse(t, "\"preset\": \"compares\" must be \"throughput\", \"divergence\", \"start-up\" "
              "or \"time to target\" "
              "(the chart that carries the comparison; got " +
                  value.dump() + ")");
}

int wholeNumber(const PresetTexts& t, const json& meta, const char* key, long long low,
                long long high, int otherwise) {
    if (!meta.contains(key))
        return otherwise;
    const json& v = meta[key];
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
        refuse(t, "\"preset\": \"" + std::string(key) + "\" must be a whole number from " +
                      std::to_string(low) + " to " + std::to_string(high) + " (got " + v.dump() +
                      ")");
    return int(v.get<long long>());
}

/// The "preset" object's title, order, pace, compares and invites.
void readDescription(const PresetTexts& t, const json& meta, Preset& p) {
    for (const auto& [key, value] : meta.items())
        if (std::find(std::begin(kMetaKeys), std::end(kMetaKeys), key) == std::end(kMetaKeys))
            refuse(t, "\"preset\": unknown key \"" + key +
                          "\"; it takes title, order, pace, compares, invites and runs");
    if (!meta.contains("title") || !meta["title"].is_string() ||
        meta["title"].get<std::string>().empty())
        refuse(t, "\"preset\" needs a \"title\", the words of the menu "
                  "(\"title\": \"My experiment\")");
    p.name = meta["title"].get<std::string>();
    p.order = wholeNumber(t, meta, "order", INT_MIN, INT_MAX, 0);
    p.pace = std::uint32_t(wholeNumber(t, meta, "pace", 0, limits::kMaxPace, 0));
    if (meta.contains("compares"))
        p.compares = comparedFigure(t, meta["compares"]);
    if (!meta.contains("invites"))
        return;
    if (!meta["invites"].is_array())
        refuse(t, "\"preset\": \"invites\" must be a list of field names ([\"share\"]) or "
                  "field=value ([\"mode=threads-locked\"])");
    for (const json& field : meta["invites"]) {
        const std::string text = field.is_string() ? field.get<std::string>() : std::string();
        const std::string key = text.substr(0, text.find('='));
        if (!findField(key) || (text.find('=') != std::string::npos && text.back() == '='))
            refuse(t, "\"preset\": \"invites\" names " + field.dump() +
                          ", not a field of an experiment (or field=value); the fields: " +
                          fieldList());
        p.invites.push_back(text);
    }
}

bool usableLabel(const std::string& label) {
    return !label.empty() && label.front() != '.' && label.size() <= 64 &&
           std::all_of(label.begin(), label.end(), [](unsigned char c) {
               return std::isalnum(c) || c == '-' || c == '_' || c == '.';
           });
}

/// The runs of a comparison: each the experiment with its own fields set.
void readRuns(const PresetTexts& t, const json& runs, Preset& p) {
    if (!runs.is_array() || runs.size() < 2)
        refuse(t, "\"preset\": \"runs\" must be a list of at least two runs, each an object "
                  "with its \"label\" and the fields it changes ([{\"label\": \"locked\", "
                  "\"mode\": \"threads-locked\"}, {\"label\": \"hogwild\", \"mode\": "
                  "\"threads\"}])");
    std::set<std::string> labels;
    for (const json& run : runs) {
        if (!run.is_object() || !run.contains("label") || !run["label"].is_string())
            refuse(t, "\"preset\": each of \"runs\" needs a \"label\" (got " + run.dump() + ")");
        const std::string label = run["label"].get<std::string>();
        if (!usableLabel(label) || !labels.insert(label).second)
            refuse(t, "\"preset\": the run label \"" + label +
                          "\" must be unique and a folder's name: letters, digits, '-', '_' "
                          "and '.', at most 64");
        json fields = run;
        fields.erase("label");
        if (fields.contains("sweep"))
            refuse(t, "run \"" + label + "\": a comparison's run cannot sweep");
        ExperimentConfig c = p.config;
        c.mergeJson(fields.dump(), t.origin + ", run \"" + label + "\"");
        canonicalise(c);
        p.compare.push_back({label, c});
    }
    if (const std::string field = firstDifference(p.compare.front().config, p.config);
        !field.empty())
        refuse(t, "the first run, \"" + p.compare.front().label +
                      "\", must be the experiment the file describes; it differs in \"" + field +
                      "\": set that field outside \"preset\" and let the later runs change it");
    if (!p.config.sweep.empty())
        refuse(t, "a preset that compares runs cannot also sweep: drop \"sweep\" or \"runs\"");
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") + 1 - first);
}

/// Where Fashion-MNIST is missing, the stand-in for it; and the
/// explanation that says so.
void standIn(const PresetTexts& t, Preset& p) {
    const auto replace = [](ExperimentConfig& c) {
        if (c.dataset == "fashion-mnist")
            c.dataset = kFashionStandIn;
    };
    if (p.config.dataset == "fashion-mnist")
        p.explanation = t.standInHtml ? trimmed(*t.standInHtml) : p.explanation + kStandInNote;
    replace(p.config);
    for (PresetRun& run : p.compare)
        replace(run.config);
}

} // namespace

Preset readPreset(const PresetTexts& t, bool fashionMnistInstalled) {
    Preset p;
    p.id = t.id;
    p.config = ExperimentConfig::defaults();
    p.config.mergeJson(t.json, t.origin); // the experiment reader: its messages
    canonicalise(p.config);
    const json file = json::parse(t.json);
    if (!file.contains(ExperimentConfig::kPresetKey) ||
        !file[ExperimentConfig::kPresetKey].is_object())
        refuse(t, "no \"preset\" object: a preset file is an experiment file with "
                  "\"preset\": {\"title\": \"...\"} (docs/presets.md)");
    const json& meta = file[ExperimentConfig::kPresetKey];
    readDescription(t, meta, p);
    if (meta.contains("runs"))
        readRuns(t, meta["runs"], p);
    if (p.compare.empty() != (p.compares == ComparedFigure::None))
        refuse(t, p.compare.empty() ? "\"preset\": \"compares\" goes with \"runs\" (a single "
                                      "run compares nothing)"
                                    : "\"preset\": a comparison says what it compares: "
                                      "\"compares\": \"throughput\", \"divergence\" or "
                                      "\"start-up\"");
    p.explanation = trimmed(t.html);
    if (p.explanation.empty())
        refuse(t, "its explanation, " + t.id +
                      ".html, is empty: write what to run and what "
                      "to look at (HTML paragraphs, <p>...</p>)");
    if (!fashionMnistInstalled)
        standIn(t, p);
    checkExperiment(t, p.config, {});
    for (const PresetRun& run : p.compare)
        checkExperiment(t, run.config, run.label);
    return p;
}

} // namespace hwl
