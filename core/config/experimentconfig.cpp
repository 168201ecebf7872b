#include "config/experimentconfig.h"

#include "config/fields.h"
#include "config/modes.h"
#include "data/normalize.h"
#include "optim/lrschedule.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace hwl {

namespace {
using nlohmann::json;

/// What an experiment file says of a key that is no field: the nearest
/// field when it looks like a typo of one, and the list of them.
std::string unknownField(const std::string& key, const std::vector<std::string>& alsoKnown) {
    std::string list;
    for (const auto& f : experimentFields())
        list += (list.empty() ? "" : ", ") + std::string(f.key);
    const std::string nearest = didYouMeanField(key, alsoKnown);
    return "unknown field \"" + key + "\"" +
           (nearest.empty() ? "; known fields: " + list
                            : nearest + " (known fields: " + list + ")");
}

template <class Enum, std::size_t N>
std::optional<Enum> parseEnum(const std::string& text, const Enum (&values)[N]) {
    for (Enum v : values)
        if (text == toString(v))
            return v;
    return std::nullopt;
}

/// What a JSON value must be for a field of this type, for messages.
std::string expected(const Field& f) {
    switch (f.type) {
    case FieldType::Text:
        return "a string";
    case FieldType::Integer:
        return "an integer";
    case FieldType::Seed:
        return "a non-negative integer";
    case FieldType::Number:
        return "a number";
    case FieldType::Switch:
        return "true or false";
    case FieldType::Choice:
        return listChoices(f.choices(), true);
    }
    return "valid";
}

/// The field's value from JSON, type- and (integers) range-checked; throws
/// InputError naming `origin` and the field.
FieldValue fromJson(const Field& f, const json& v, const std::string& origin) {
    auto fail = [&] {
        throw InputError(origin + ": field \"" + f.key + "\" must be " + expected(f) + " (got " +
                         v.dump() + ")");
    };
    switch (f.type) {
    case FieldType::Text:
        if (!v.is_string())
            fail();
        return v.get<std::string>();
    case FieldType::Integer: {
        if (!v.is_number_integer())
            fail();
        // Unsigned values past int64 read as the largest int64: out of range anyway.
        const std::int64_t x = v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX
                                   ? INT64_MAX
                                   : v.get<std::int64_t>();
        if (!f.inRange(double(x)))
            throw InputError(origin + ": field \"" + f.key + "\" " + f.outOfRange(v.dump()));
        return x;
    }
    case FieldType::Seed:
        if (v.is_number_integer() && !v.is_number_unsigned()) // negative
            throw InputError(origin + ": field \"" + f.key + "\" " + f.outOfRange(v.dump()));
        if (!v.is_number_unsigned())
            fail();
        return v.get<std::uint64_t>();
    case FieldType::Number:
        if (!v.is_number())
            fail();
        return v.get<double>();
    case FieldType::Switch:
        if (!v.is_boolean())
            fail();
        return v.get<bool>();
    case FieldType::Choice: {
        const auto names = f.choices();
        if (!v.is_string() ||
            std::find(names.begin(), names.end(), v.get<std::string>()) == names.end())
            fail();
        return v.get<std::string>();
    }
    }
    fail();
    return {};
}

json toJson(const FieldValue& v) {
    return std::visit([](const auto& x) { return json(x); }, v);
}

/// The "sweep" object: field key to a non-empty array of that field's
/// values, each judged as the field's own value in a file is.
std::vector<SweepAxis> sweepFromJson(const json& grid, const std::string& origin) {
    const std::string where = origin + ": \"sweep\"";
    if (!grid.is_object() || grid.empty())
        throw InputError(where +
                         " must be an object of field: [values] "
                         "(e.g. {\"workers\": [1, 2, 4]}; got " +
                         grid.dump() + ")");
    std::vector<SweepAxis> axes;
    for (const auto& [key, values] : grid.items()) {
        const Field* f = findField(key);
        if (!f)
            throw InputError(where + ": " + unknownField(key, {}));
        if (!values.is_array() || values.empty())
            throw InputError(where + ": \"" + key +
                             "\" must be a non-empty array of its values (got " + values.dump() +
                             ")");
        SweepAxis axis{key, {}};
        for (const json& v : values)
            axis.values.push_back(fromJson(*f, v, where));
        axes.push_back(std::move(axis));
    }
    return axes;
}

} // namespace

const char* toString(DataSplit s) {
    return s == DataSplit::Shard ? "shard" : "replicate";
}

const char* toString(StartMethod m) {
    switch (m) {
    case StartMethod::Fork:
        return "fork";
    case StartMethod::Spawn:
        return "spawn";
    case StartMethod::Forkserver:
        return "forkserver";
    }
    return "forkserver";
}

const char* toString(FailurePolicy p) {
    return p == FailurePolicy::Stop ? "stop" : "continue";
}

const char* toString(Transport t) {
    switch (t) {
    case Transport::Threads:
        return "threads";
    case Transport::Processes:
        return "processes";
    case Transport::Mpi:
        return "mpi";
    }
    return "threads";
}

const char* toString(Reduce r) {
    return r == Reduce::Exact ? "exact" : "mpi";
}

const char* toString(Device d) {
    return d == Device::Cuda ? "cuda" : "cpu";
}

const char* toString(UpdateKind u) {
    return u == UpdateKind::Atomic ? "atomic" : "racy";
}

std::optional<Device> parseDevice(const std::string& text) {
    static const Device all[] = {Device::Cpu, Device::Cuda};
    return parseEnum(text, all);
}

std::optional<UpdateKind> parseUpdateKind(const std::string& text) {
    static const UpdateKind all[] = {UpdateKind::Racy, UpdateKind::Atomic};
    return parseEnum(text, all);
}

std::optional<Transport> parseTransport(const std::string& text) {
    static const Transport all[] = {Transport::Threads, Transport::Processes, Transport::Mpi};
    return parseEnum(text, all);
}

std::optional<Reduce> parseReduce(const std::string& text) {
    static const Reduce all[] = {Reduce::Mpi, Reduce::Exact};
    return parseEnum(text, all);
}

std::optional<DataSplit> parseDataSplit(const std::string& text) {
    static const DataSplit all[] = {DataSplit::Shard, DataSplit::Replicate};
    return parseEnum(text, all);
}

std::optional<StartMethod> parseStartMethod(const std::string& text) {
    static const StartMethod all[] = {StartMethod::Fork, StartMethod::Spawn,
                                      StartMethod::Forkserver};
    return parseEnum(text, all);
}

std::optional<FailurePolicy> parseFailurePolicy(const std::string& text) {
    static const FailurePolicy all[] = {FailurePolicy::Stop, FailurePolicy::Continue};
    return parseEnum(text, all);
}

ModelSpec ExperimentConfig::modelSpec() const {
    ModelSpec spec = parseModelSpec(model);
    spec.dropout = dropout;
    spec.dropoutSeed = seed;
    return spec;
}
DatasetSpec ExperimentConfig::datasetSpec() const {
    return parseDatasetSpec(dataset);
}

std::vector<ConfigIssue> ExperimentConfig::validateFields() const {
    std::vector<ConfigIssue> issues;
    // The spec parsers' messages start with the field's name, which the
    // issue carries on its own (the form shows the message at the field).
    auto parseIssue = [&](const char* field, const InputError& e) {
        std::string message = e.what();
        const std::string prefix = std::string(field) + ": ";
        if (message.rfind(prefix, 0) == 0)
            message.erase(0, prefix.size());
        issues.push_back({field, std::move(message)});
    };
    try {
        if (!modelSpec().usesDropoutField() &&
            (dropout != ExperimentConfig().dropout || givenField("dropout")))
            issues.push_back({"dropout",
                              "dropout applies to the model's dropout layers "
                              "written without a probability (cnn:mnist's, a net: "
                              "list's dropout and dropout2d), and this model has none; drop "
                              "--dropout or use a model with dropout layers"});
    } catch (const InputError& e) {
        parseIssue("model", e);
    }
    bool sparse = false; // known from the spec alone: sparse-bow, libsvm
    try {
        sparse = shapeBeforeLoading(datasetSpec()).sparse;
    } catch (const InputError& e) {
        parseIssue("dataset", e);
    }
    if (const std::string why = normalizeSettingProblem(normalize); !why.empty())
        issues.push_back({"normalize", why});
    else if (sparse && normalize != "none")
        issues.push_back({"normalize", sparseNormalizeRefusal(dataset)});
    try {
        (void)parseLrSchedule(lrSchedule);
    } catch (const InputError& e) {
        parseIssue("lr-schedule", e);
    }
    for (const auto& f : experimentFields()) {
        if (!f.ranged())
            continue;
        const FieldValue v = f.get(*this);
        const double x =
            f.type == FieldType::Integer ? double(std::get<std::int64_t>(v)) : std::get<double>(v);
        if (!f.inRange(x))
            issues.push_back({f.key, std::string(f.key) + " " + f.outOfRange(f.valueText(*this))});
    }
    // Fields that go together, whatever the mode.
    if (!resume.empty() && !init.empty())
        issues.push_back({"init", "init and resume both name the weights to start from; "
                                  "drop --init (resume takes DIR's weights.safetensors)"});
    if (nesterov && optimizer == OptimizerKind::Sgd && !(momentum > 0))
        issues.push_back({"nesterov", "nesterov needs a momentum above 0 (torch.optim.SGD: "
                                      "\"Nesterov momentum requires a momentum\"); set "
                                      "--momentum or drop --nesterov"});
    return issues;
}

void ExperimentConfig::markGiven(const std::string& key, const std::string& where) {
    for (GivenField& g : given)
        if (g.key == key) {
            g.where = where;
            return;
        }
    given.push_back({key, where});
}

const GivenField* ExperimentConfig::givenField(std::string_view key) const {
    for (const GivenField& g : given)
        if (g.key == key)
            return &g;
    return nullptr;
}

std::string ExperimentConfig::toJson(const std::function<bool(const Field&)>& keep) const {
    json j = json::object();
    for (const auto& f : experimentFields())
        if (!keep || keep(f))
            j[f.key] = hwl::toJson(f.get(*this));
    if (!sweep.empty()) {
        json grid = json::object();
        for (const SweepAxis& axis : sweep) {
            json values = json::array();
            for (const FieldValue& v : axis.values)
                values.push_back(hwl::toJson(v));
            grid[axis.key] = std::move(values);
        }
        j["sweep"] = std::move(grid);
    }
    // Paths are bytes: one that is not UTF-8 cannot be a JSON string as it
    // is; its stray bytes become U+FFFD rather than failing the write.
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {
/// Deeper nesting than any experiment needs is refused before parsing (the
/// parse itself would recurse once per level).
constexpr int kMaxJsonDepth = 32;

/// Throws when `text` nests arrays or objects deeper than kMaxJsonDepth
/// (brackets inside strings do not count).
void checkJsonDepth(const std::string& text, const std::string& origin) {
    int depth = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == ']' || c == '}')
            --depth;
        else if ((c == '[' || c == '{') && ++depth > kMaxJsonDepth)
            throw InputError(origin + ": nested more than " + std::to_string(kMaxJsonDepth) +
                             " levels deep (at byte offset " + std::to_string(i) +
                             "); an experiment file is one object of fields and values");
    }
}
} // namespace

std::vector<std::string> ExperimentConfig::mergeJson(const std::string& text,
                                                     const std::string& origin) {
    checkJsonDepth(text, origin);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(origin + ": not valid JSON: " + e.what());
    } catch (const json::exception& e) { // e.g. a number out of range
        throw InputError(origin + ": not usable JSON: " + e.what() +
                         " (numbers must fit a double)");
    }
    if (!j.is_object())
        throw InputError(origin + ": expected a JSON object of experiment fields");
    // Merged into a copy: a bad field changes nothing.
    ExperimentConfig merged = *this;
    std::vector<std::string> keys;
    for (const auto& [key, value] : j.items()) {
        if (key == kPresetKey)
            continue;
        keys.push_back(key);
        if (key == "sweep") {
            merged.sweep = sweepFromJson(value, origin);
            continue;
        }
        const Field* f = findField(key);
        if (!f)
            throw InputError(origin + ": " + unknownField(key, {"sweep"}));
        f->set(merged, fromJson(*f, value, origin));
    }
    *this = std::move(merged);
    return keys;
}

std::vector<std::string> ExperimentConfig::mergeJsonFile(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec))
        throw InputError("config \"" + file.string() +
                         "\": is not a regular file; give the path of an experiment .json file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError("config \"" + file.string() +
                         "\": cannot be read (missing file or no permission)");
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size > (1 << 20))
        throw InputError("config \"" + file.string() + "\": " + std::to_string(size) +
                         " bytes is too large for an experiment file (limit 1 MiB)");
    in.seekg(0);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return mergeJson(buffer.str(), "config \"" + file.string() + "\"");
}

ExperimentConfig ExperimentConfig::defaults() {
    ExperimentConfig config;
    config.mergeJson(defaultJson(), "embedded default experiment");
    return config;
}

} // namespace hwl
