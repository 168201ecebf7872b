#include "config/sweep.h"

#include "config/fields.h"
#include "util/errors.h"
#include "util/limits.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace hwl {

namespace {
/// Longer labels name their folder "run-N" (N counts from 1).
constexpr std::size_t kMaxFolderName = 120;

const Field& sweptField(const std::string& key, const std::string& origin) {
    const Field* f = findField(key);
    if (!f)
        throw InputError(origin + ": no experiment field is called \"" + key + "\"" +
                         didYouMeanField(key) +
                         " (the fields are the flags of --help without \"--\")");
    if (f->output)
        throw InputError(origin + ": \"" + key +
                         "\" cannot be swept: each run of a sweep writes into its own "
                         "folder under --" +
                         key);
    return *f;
}

/// The number of runs of `sweep`, or limits::kMaxSweepRuns + 1 when more.
std::size_t gridSize(const std::vector<SweepAxis>& sweep) {
    std::size_t runs = 1;
    for (const SweepAxis& axis : sweep) {
        runs *= axis.values.size();
        if (runs > std::size_t(limits::kMaxSweepRuns))
            return std::size_t(limits::kMaxSweepRuns) + 1;
    }
    return runs;
}

/// Refuses what no grid may hold: a field it cannot vary, an axis without
/// values, a value listed twice, more runs than kMaxSweepRuns.
void checkGrid(const std::vector<SweepAxis>& sweep) {
    for (const SweepAxis& axis : sweep) {
        const std::string origin = "sweep: \"" + axis.key + "\"";
        sweptField(axis.key, "sweep");
        if (axis.values.empty())
            throw InputError(origin + " has no values");
        for (std::size_t i = 0; i < axis.values.size(); ++i)
            for (std::size_t j = 0; j < i; ++j)
                if (axis.values[i] == axis.values[j])
                    throw InputError(origin + " lists " + sweepValueText(axis.values[i]) +
                                     " twice (each run needs its own label and folder)");
    }
    if (gridSize(sweep) > std::size_t(limits::kMaxSweepRuns))
        throw InputError("sweep: more than " + std::to_string(limits::kMaxSweepRuns) +
                         " runs (the product of the numbers of values); sweep fewer values");
}
} // namespace

std::string sweepValueText(const FieldValue& value) {
    if (const bool* b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    if (const double* d = std::get_if<double>(&value)) {
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, *d).ptr; // shortest round trip
        return std::string(text, end);
    }
    if (const std::string* s = std::get_if<std::string>(&value))
        return *s;
    if (const std::uint64_t* u = std::get_if<std::uint64_t>(&value))
        return std::to_string(*u);
    return std::to_string(std::get<std::int64_t>(value));
}

std::string sweepFolderName(const std::string& label) {
    std::string name = label;
    for (char& c : name)
        if (c == '\0' ||
            (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr(".,=+-:_", c)))
            c = '_';
    return name;
}

SweepAxis parseSweepFlag(const std::string& text) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError("--sweep: expected FIELD=VALUE,VALUE,... (e.g. --sweep workers=1,2,4), "
                         "got \"" +
                         text + "\" (see --help)");
    SweepAxis axis{text.substr(0, eq), {}};
    const Field& f = sweptField(axis.key, "--sweep");
    const std::string name = "--sweep " + axis.key;
    const std::string list = text.substr(eq + 1);
    std::size_t at = 0;
    while (true) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string value = list.substr(at, comma - at);
        if (value.empty())
            throw InputError(name + ": an empty value in \"" + list +
                             "\" (values are separated by single commas)");
        axis.values.push_back(parseFieldText(f, value, name));
        if (comma == list.size())
            break;
        at = comma + 1;
    }
    return axis;
}

void addSweepAxis(std::vector<SweepAxis>& sweep, SweepAxis axis) {
    for (const SweepAxis& other : sweep)
        if (other.key == axis.key)
            throw InputError("--sweep: \"" + axis.key +
                             "\" is swept twice; give all its values in one --sweep");
    sweep.push_back(std::move(axis));
}

std::vector<PresetRun> sweepRuns(const ExperimentConfig& config) {
    checkGrid(config.sweep);
    const std::size_t axes = config.sweep.size(), total = gridSize(config.sweep);
    std::vector<PresetRun> runs;
    runs.reserve(total);
    std::vector<std::size_t> pick(axes);
    for (std::size_t index = 0; index < total; ++index) {
        std::size_t rest = index; // the last axis varies fastest
        for (std::size_t a = axes; a-- > 0;) {
            pick[a] = rest % config.sweep[a].values.size();
            rest /= config.sweep[a].values.size();
        }
        PresetRun run{{}, config};
        run.config.sweep.clear();
        for (std::size_t a = 0; a < axes; ++a) {
            const SweepAxis& axis = config.sweep[a];
            const FieldValue& value = axis.values[pick[a]];
            findField(axis.key)->set(run.config, value);
            run.config.markGiven(axis.key, "sweep");
            run.label += (a ? "," : "") + axis.key + "=" + sweepValueText(value);
        }
        std::string folder = sweepFolderName(run.label);
        if (folder.size() > kMaxFolderName) // a file name has at most 255 bytes
            folder = "run-" + std::to_string(index + 1);
        // The runs share --tensorboard's logdir: each makes its run folder there.
        if (!run.config.out.empty())
            run.config.out = (std::filesystem::path(run.config.out) / folder).string();
        runs.push_back(std::move(run));
    }
    return runs;
}

std::vector<std::string> sweepKeys(const ExperimentConfig& config) {
    std::vector<std::string> keys;
    for (const SweepAxis& axis : config.sweep)
        keys.push_back(axis.key);
    return keys;
}

} // namespace hwl
