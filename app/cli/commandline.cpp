#include "cli/commandline.h"

#include "config/fields.h"
#include "config/sweep.h"
#include "data/datasetspec.h"
#include "preset/measuredfigure.h"
#include "preset/presets.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/limits.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>
#include <utility>

namespace hwl {

namespace {
/// The monitor's own flags: whether each takes a value.
struct MonitorFlag {
    const char* name;
    bool takesValue;
};
constexpr MonitorFlag kMonitorFlags[] = {{"--config", true},        {"--quiet", false},
                                         {"--help", false},         {"-h", false},
                                         {"--version", false},      {"--headless", false},
                                         {"--list-devices", false}, {"--preset", true},
                                         {"--list-presets", false}, {"--counter-toy", false},
                                         {"--increments", true},    {"--pace", true},
                                         {"--sweep", true},         {"--sweep-parallel", true},
                                         {"--overwrite", false},    {"--repeat", true},
                                         {"--trace", true}};

const MonitorFlag* monitorFlag(const std::string& flag) {
    for (const auto& f : kMonitorFlags)
        if (flag == f.name)
            return &f;
    return nullptr;
}

[[noreturn]] void badFlag(const std::string& flag, const std::string& why) {
    throw InputError(flag + ": " + why + " (see --help)");
}

std::int64_t wholeNumber(const std::string& flag, const std::string& text) {
    const std::optional<std::int64_t> n = parseInteger(text);
    if (!n)
        badFlag(flag, "must be a whole number (got \"" + text + "\")");
    return *n;
}

std::uint32_t paceOf(const std::string& flag, const std::string& text) {
    const std::int64_t n = wholeNumber(flag, text);
    if (n < 0 || n > limits::kMaxPace)
        badFlag(flag, "steps per second per worker must be 0 (full speed) to " +
                          std::to_string(limits::kMaxPace) + " (got " + text + ")");
    return std::uint32_t(n);
}

/// --repeat N: 1 to 100.
int repeatOf(const std::string& flag, const std::string& text) {
    const std::int64_t n = wholeNumber(flag, text);
    if (n < 1 || n > 100)
        badFlag(flag, "runs of each experiment must be 1 to 100 (got " + text + ")");
    return int(n);
}

/// --sweep-parallel K: 1 to the cores of this machine.
unsigned sweepParallelOf(const std::string& flag, const std::string& text) {
    const std::int64_t k = wholeNumber(flag, text);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (k < 1 || k > std::int64_t(cores))
        badFlag(flag, "runs at once must be 1 to " + std::to_string(cores) +
                          ", the cores of this machine (got " + text + ")");
    return unsigned(k);
}

struct Flag {
    std::string name;
    std::optional<std::string> value;
};

/// Why `arg`, which no flag took as its value, is refused: an unknown flag
/// (with the nearest known one when it looks like a typo), or a word the
/// command line has no place for (it takes no positional arguments).
[[noreturn]] void refuseArgument(const std::string& arg, bool afterDoubleDash) {
    if (!afterDoubleDash && arg.rfind("-", 0) == 0) {
        std::vector<std::string> monitor;
        for (const auto& f : kMonitorFlags)
            monitor.emplace_back(f.name);
        monitor.emplace_back("--compare"); // read before this parser (cli/compare.h)
        badFlag(arg, "unknown option" + didYouMeanFlag(arg, monitor));
    }
    badFlag(arg, "unexpected argument: the command line takes no arguments besides flags and "
                 "their values; give a file with its flag (--config " +
                     arg + ", --init " + arg + ")");
}

/// Splits "--flag=value", takes a flag's value from the next argument
/// (whatever it starts with: --out -dir is the folder "-dir"), and rejects
/// unknown flags and missing or unexpected values. "--" ends the flags;
/// what follows it is refused as any positional argument is.
std::vector<Flag> tokenize(const std::vector<std::string>& args) {
    std::vector<Flag> flags;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--") {
            if (i + 1 < args.size())
                refuseArgument(args[i + 1], true);
            break;
        }
        Flag f{args[i], std::nullopt};
        const auto eq = f.name.find('=');
        if (f.name.rfind("--", 0) == 0 && eq != std::string::npos) {
            f.value = f.name.substr(eq + 1);
            f.name.resize(eq);
        }
        const MonitorFlag* monitor = monitorFlag(f.name);
        if (!monitor && !findFlag(f.name))
            refuseArgument(f.name, false);
        const bool takesValue = monitor ? monitor->takesValue : flagTakesValue(f.name);
        if (takesValue && !f.value) {
            if (i + 1 >= args.size())
                badFlag(f.name, "needs a value");
            f.value = args[++i];
        } else if (!takesValue && f.value) {
            badFlag(f.name, "takes no value");
        }
        flags.push_back(std::move(f));
    }
    return flags;
}

/// What the user did not choose: the worker count a mode fixes, and the
/// synthetic stand-in when the default's Fashion-MNIST is not installed.
void applyImplicitDefaults(ExperimentConfig& config, std::vector<std::string>& notes,
                           bool workersGiven, bool datasetGiven) {
    settleWorkerCount(config, workersGiven);
    if (!datasetGiven && config.dataset == "fashion-mnist" && !fashionMnistAvailable()) {
        config.dataset = "teacher:60000x784:10:64";
        notes.push_back("note: Fashion-MNIST is not installed in " + fashionMnistDir().string() +
                        " (apt-get install dataset-fashion-mnist); running the default "
                        "experiment on the synthetic teacher task " +
                        config.dataset + " instead");
    }
}

/// --resume DIR without --config: the experiment starts as DIR's
/// experiment.json says (the flags then change it, --epochs first of all),
/// less its --init (resume brings the weights), writing into DIR.
void resumedExperiment(ExperimentConfig& base, const std::vector<Flag>& experiment,
                       bool* workersInFile) {
    const auto named = [&](const char* name) {
        return std::find_if(experiment.begin(), experiment.end(),
                            [&](const Flag& f) { return f.name == name; });
    };
    const auto resume = named("--resume");
    if (resume == experiment.end() || named("--config") != experiment.end() || !resume->value ||
        resume->value->empty())
        return; // an empty value: the field's own judgement says so
    namespace fs = std::filesystem;
    const fs::path dir(*resume->value);
    std::error_code ec;
    if (!fs::exists(dir, ec))
        badFlag("--resume", quoted(dir) + " does not exist; name the --out folder of the run "
                                          "to continue");
    if (!fs::is_directory(dir, ec))
        badFlag("--resume", quoted(dir) + " is a file, not a directory; name the --out folder "
                                          "of the run to continue");
    if (!fs::is_regular_file(dir / "experiment.json", ec))
        badFlag("--resume", quoted(dir) + " holds no experiment.json; name the --out folder of "
                                          "the run to continue");
    const std::vector<std::string> keys = base.mergeJsonFile((dir / "experiment.json").string());
    if (workersInFile && std::find(keys.begin(), keys.end(), "workers") != keys.end())
        *workersInFile = true;
    base.init.clear();
    // The run continues in DIR (unless --out says otherwise), not in the
    // folder its experiment.json names: a moved or copied run folder is
    // continued where it is, and its original stays untouched.
    base.out = dir.string();
}

/// Whether a file's `keys` are every field of the table (all but two at
/// most: fields added since): the experiment.json an earlier version wrote,
/// which listed every field whether it applied or not. Its fields are not
/// the user's choices and keep the value rule (refused only away from
/// their defaults), so that such a run folder stays usable with --config.
bool isFullDump(const std::vector<std::string>& keys) {
    std::size_t listed = 0;
    for (const Field& f : experimentFields())
        listed += std::find(keys.begin(), keys.end(), f.key) != keys.end();
    return listed + 2 >= experimentFields().size();
}

/// `base` with --config and then the experiment flags applied; sets
/// `*workersInFile` when a --config file chose the worker count.
ExperimentConfig configured(ExperimentConfig base, const std::vector<Flag>& experiment,
                            bool* workersInFile = nullptr) {
    resumedExperiment(base, experiment, workersInFile);
    // What the file's keys and the flags set is the user's: refused where
    // it does not apply, whatever its value (ExperimentConfig::given).
    for (const auto& f : experiment)
        if (f.name == "--config") {
            const std::vector<std::string> keys = base.mergeJsonFile(*f.value);
            if (workersInFile && std::find(keys.begin(), keys.end(), "workers") != keys.end())
                *workersInFile = true;
            if (isFullDump(keys))
                continue; // an earlier version's experiment.json: judged by value, as then
            for (const std::string& key : keys)
                if (findField(key))
                    base.markGiven(key, "config \"" + *f.value + "\"");
        }
    for (const auto& f : experiment)
        if (f.name != "--config") {
            applyFlag(base, f.name, f.value);
            base.markGiven(findFlag(f.name)->key, f.name);
        }
    return base;
}

/// The command line sorted in one pass: the monitor's flags are decided
/// (into the CommandLine), the experiment's are kept in order for the field
/// table, --preset names the starting point.
struct SortedFlags {
    std::optional<Preset> preset;
    std::vector<Flag> experiment; ///< --config and the field table's flags
    std::optional<std::uint32_t> pace;
    std::vector<SweepAxis> sweep; ///< --sweep, in order
    int repeat = 1;               ///< --repeat
    bool workersGiven = false;
    bool datasetGiven = false; ///< --dataset, or a preset or a file that decides it
};

Preset presetNamed(const Flag& f) {
    std::vector<PresetProblem> problems;
    const std::vector<Preset> all = presets(&problems);
    const Preset* p = findPreset(all, *f.value);
    if (!p)
        badFlag(f.name, presetNotFound(*f.value, all, problems));
    return *p;
}

void applyMonitorFlag(CommandLine& cl, SortedFlags& sorted, const Flag& f) {
    if (f.name == "--quiet")
        cl.quiet = true;
    else if (f.name == "--help" || f.name == "-h")
        cl.help = true;
    else if (f.name == "--version")
        cl.version = true;
    else if (f.name == "--list-devices")
        cl.listDevices = true;
    else if (f.name == "--list-presets")
        cl.listPresets = true;
    else if (f.name == "--counter-toy")
        cl.counterToy = true;
    else if (f.name == "--increments")
        cl.increments = wholeNumber(f.name, *f.value);
    else if (f.name == "--pace")
        sorted.pace = paceOf(f.name, *f.value);
    else if (f.name == "--sweep")
        addSweepAxis(sorted.sweep, parseSweepFlag(*f.value));
    else if (f.name == "--sweep-parallel")
        cl.sweepParallel = sweepParallelOf(f.name, *f.value);
    else if (f.name == "--overwrite")
        cl.overwrite = true;
    else if (f.name == "--repeat")
        sorted.repeat = repeatOf(f.name, *f.value);
    else if (f.name == "--trace" && f.value->empty())
        badFlag(f.name, "needs a file name (e.g. run.trace.json)");
    else if (f.name == "--trace")
        cl.trace = *f.value;
}

SortedFlags sortFlags(const std::vector<Flag>& flags, CommandLine& cl) {
    SortedFlags sorted;
    for (const auto& f : flags) {
        if (f.name == "--preset") {
            sorted.preset = presetNamed(f);
            sorted.datasetGiven = true; // the preset decides (it has its own stand-in)
        } else if (f.name == "--config" || !monitorFlag(f.name)) {
            sorted.experiment.push_back(f);
            sorted.workersGiven = sorted.workersGiven || f.name == "--workers";
            sorted.datasetGiven = sorted.datasetGiven || f.name == "--dataset" ||
                                  f.name == "--config" || f.name == "--resume";
        } else {
            applyMonitorFlag(cl, sorted, f);
        }
    }
    return sorted;
}

/// A comparison preset's runs, each configured as the first run is, with
/// --out DIR made DIR/<label>. With --repeat N each run is made N times in a
/// row over the seed and the N - 1 after it, labelled "<label>,seed=S" (as a
/// sweep's repeats), its `group` the preset's label.
std::vector<PresetRun> comparedRuns(const Preset& p, const std::vector<Flag>& experiment,
                                    bool workersGiven, int repeat,
                                    std::vector<std::string>& notes) {
    std::vector<PresetRun> runs;
    for (const PresetRun& run : p.compare) {
        PresetRun r{run.label, configured(run.config, experiment), run.label};
        applyImplicitDefaults(r.config, notes, workersGiven, true);
        const std::uint64_t seed = r.config.seed;
        const std::string out = r.config.out;
        for (int i = 0; i < repeat; ++i) {
            if (repeat > 1) {
                r.config.seed = seed + std::uint64_t(i);
                r.label = run.label + ",seed=" + std::to_string(r.config.seed);
            }
            if (!out.empty()) // --tensorboard's logdir is shared: a run folder each
                r.config.out = (std::filesystem::path(out) / r.label).string();
            runs.push_back(r);
        }
    }
    return runs;
}
/// --repeat N as the last axis of the sweep: the seed and the N - 1 after
/// it, so that each point of the grid runs N times.
void addRepeats(SortedFlags& sorted, const ExperimentConfig& c) {
    if (sorted.repeat <= 1)
        return;
    const bool swept = std::any_of(sorted.sweep.begin(), sorted.sweep.end(),
                                   [](const SweepAxis& a) { return a.key == "seed"; }) ||
                       std::any_of(c.sweep.begin(), c.sweep.end(),
                                   [](const SweepAxis& a) { return a.key == "seed"; });
    if (swept)
        badFlag("--repeat", "the sweep already varies the seed: drop --repeat or the seed's axis");
    std::string seeds = "seed=";
    for (int i = 0; i < sorted.repeat; ++i)
        seeds += (i ? "," : "") + std::to_string(c.seed + std::uint64_t(i));
    addSweepAxis(sorted.sweep, parseSweepFlag(seeds));
}

/// The runs of the sweep: --sweep's axes replace the file's of the same
/// field and follow the others; each run gets the defaults the user did
/// not choose, as one run does; all are validated before any starts.
void planSweep(CommandLine& cl, const SortedFlags& sorted) {
    std::vector<SweepAxis> grid;
    for (SweepAxis& axis : cl.config.sweep)
        if (std::none_of(sorted.sweep.begin(), sorted.sweep.end(),
                         [&](const SweepAxis& a) { return a.key == axis.key; }))
            grid.push_back(std::move(axis));
    grid.insert(grid.end(), sorted.sweep.begin(), sorted.sweep.end());
    cl.config.sweep = std::move(grid);
    cl.sweepKeys = sweepKeys(cl.config);
    cl.sweepOut = cl.config.out;
    const auto swept = [&](const char* key) {
        return std::find(cl.sweepKeys.begin(), cl.sweepKeys.end(), key) != cl.sweepKeys.end();
    };
    std::vector<std::string> notes;
    cl.runs = sweepRuns(cl.config);
    for (PresetRun& run : cl.runs)
        applyImplicitDefaults(run.config, notes, sorted.workersGiven || swept("workers"),
                              sorted.datasetGiven || swept("dataset"));
    validateSweepRuns(cl.runs);
    for (const std::string& note : notes) // the same note for every run: once
        if (std::find(cl.notes.begin(), cl.notes.end(), note) == cl.notes.end())
            cl.notes.push_back(note);
    cl.config = cl.runs.front().config;
}
} // namespace

std::string helpText() {
    return "Hogwild Lab: parallel SGD training workbench (headless mode)\n"
           "\n"
           "Usage: hogwild-lab --headless [options]\n"
           "\n"
           "Without options it runs the embedded default experiment: Fashion-MNIST,\n"
           "mlp:784-128-10, thread Hogwild, 2 workers (the teacher task when Fashion-MNIST\n"
           "is not installed).\n"
           "\n"
           "Experiment (each flag is also a field of the --config file, without \"--\"):\n"
           "  --preset ID            start from this teaching preset (--list-presets);\n"
           "                         --config and the other flags then change it\n"
           "  --config FILE.json     start from this experiment file (applied before the\n"
           "                         other flags)\n"
           "  --sweep FIELD=V1,V2,...\n"
           "                         a grid of runs, one after another: repeat it for the\n"
           "                         cross product (--sweep workers=1,2,4 --sweep\n"
           "                         mode=threads,processes); each run writes into\n"
           "                         --out DIR/FIELD=V,...; at the end a table, and\n"
           "                         DIR/sweep.csv; at most 1000 runs\n"
           "  --repeat N             make each run (each point of a sweep, each run of a\n"
           "                         comparison preset) N times, with seeds seed,\n"
           "                         seed+1, ...; the table then gives each figure's mean\n"
           "                         and standard deviation, and a race to a target ranks\n"
           "                         by the median time to it (1 to 100)\n"
           "  --sweep-parallel K     make K of the sweep's runs at once, each a process\n"
           "                         of its own (1 to the cores; default 1)\n" +
           experimentHelp() +
           "\n"
           "Other:\n"
           "  --quiet                only the epoch test lines and the final summary\n"
           "  --compare DIR...       train nothing: print the table of the runs made in\n"
           "                         these folders (each run's --out, or a sweep's): a\n"
           "                         column per field that differs, then the final\n"
           "                         figures; runs that differ only in seed as mean and\n"
           "                         standard deviation (--no-repeats: a row each);\n"
           "                         --sort COLUMN, --reverse, --format text|csv|markdown\n"
           "  --overwrite            let the run replace the run its --out folder holds\n"
           "                         (without it such a run is refused; a sweep started\n"
           "                         again keeps the runs it finished and redoes the\n"
           "                         others)\n"
           "  --trace FILE           write where each worker's time goes (start-up,\n"
           "                         compute, wait, communicate, epoch gate, paced;\n"
           "                         evaluations, the outputs written) as a Chrome\n"
           "                         trace that ui.perfetto.dev opens; gzip when FILE\n"
           "                         ends in .gz\n"
           "  --pace N               at most N steps per second per worker, to watch a run\n"
           "                         (0: full speed; a preset brings its own); the\n"
           "                         arithmetic is the same at any pace\n"
           "  --help                 this text\n"
           "  --version              the version\n"
           "  --list-devices         the CUDA devices the GPU modes can use (found by a\n"
           "                         child process: this one never initialises CUDA)\n"
           "  --list-presets         the teaching presets, with what each one shows: the\n"
           "                         built-in ones, then the user's (each ID.json with\n"
           "                         ID.html in ~/.local/share/hogwild-lab/presets/ or\n"
           "                         another XDG data folder's hogwild-lab/presets/); a\n"
           "                         file that cannot be used is named, and why\n"
           "  --counter-toy          the shared-counter race: --workers threads each add 1\n"
           "                         to one float --increments M times (default 1000000),\n"
           "                         plainly, atomically and under a lock; prints what\n"
           "                         each ends at and the increments lost\n"
           "\n"
           "Exit status: 0 success, 1 failure while training (e.g. diverged),\n"
           "2 invalid option, config or input file, 130 interrupted by Ctrl-C (SIGINT),\n"
           "143 by SIGTERM, 129 by SIGHUP (with --out what was trained so far is still\n"
           "written).\n";
}

namespace {
/// The explanation's words without its tags, one paragraph per <p>, wrapped
/// at `width` columns after `indent` spaces.
std::string plainParagraphs(const std::string& html, std::size_t indent, std::size_t width) {
    std::string out, line, word;
    auto flushWord = [&] {
        if (word.empty())
            return;
        if (!line.empty() && line.size() + 1 + word.size() > width - indent) {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        word.clear();
    };
    auto flushLine = [&] {
        flushWord();
        if (!line.empty())
            out += std::string(indent, ' ') + line + "\n";
        line.clear();
    };
    for (std::size_t i = 0; i < html.size(); ++i) {
        if (html[i] == '<') {
            const std::size_t close = html.find('>', i);
            if (html.compare(i, 4, "</p>") == 0)
                flushLine();
            i = close == std::string::npos ? html.size() : close;
        } else if (html[i] == ' ' || html[i] == '\n') {
            flushWord();
        } else if (html[i] == '&') { // an entity: the character it stands for
            static const std::pair<const char*, const char*> entities[] = {
                {"&gt;", ">"}, {"&lt;", "<"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&nbsp;", " "}};
            const auto e = std::find_if(std::begin(entities), std::end(entities), [&](auto x) {
                return html.compare(i, std::strlen(x.first), x.first) == 0;
            });
            if (e == std::end(entities)) {
                word += '&';
                continue;
            }
            word += e->second;
            i += std::strlen(e->first) - 1;
        } else {
            word += html[i];
        }
    }
    flushLine();
    return out;
}
} // namespace

std::string presetsText(const std::vector<Preset>& all) {
    std::string text = "The teaching presets (hogwild-lab --preset ID, or --headless --preset ID;\n"
                       "further flags change the preset's experiment):\n";
    for (const Preset& p : all) {
        text += "\n" + p.id + "  (" + p.name + ")\n";
        if (!p.file.empty())
            text += "    from " + p.file.string() + "\n";
        if (!p.compare.empty()) {
            std::string labels;
            for (std::size_t i = 0; i < p.compare.size(); ++i)
                labels += (i == 0                      ? ""
                           : i + 1 == p.compare.size() ? " and "
                                                       : ", ") +
                          p.compare[i].label;
            text += plainParagraphs("comparison: " + std::to_string(p.compare.size()) + " runs, " +
                                        labels +
                                        ", one after another; headless, a table of them at "
                                        "the end</p>",
                                    4, 80);
        }
        // The figures the window fills in from the run: here none has run.
        text +=
            plainParagraphs(fillFigures(p.explanation, {}, "", "", "(the run's figure)"), 4, 80);
    }
    return text;
}

CommandLine parseCommandLine(const std::vector<std::string>& args) {
    CommandLine cl;
    SortedFlags sorted = sortFlags(tokenize(args), cl);
    const ExperimentConfig base =
        sorted.preset ? sorted.preset->config : ExperimentConfig::defaults();
    // Workers chosen in the file are chosen as --workers is: a mode that
    // fixes the count (serial) refuses another, never overrides it.
    bool workersInFile = false;
    cl.config = configured(base, sorted.experiment, &workersInFile);
    sorted.workersGiven = sorted.workersGiven || workersInFile;
    cl.pace = sorted.pace.value_or(sorted.preset ? sorted.preset->pace : 0);
    cl.presetId = sorted.preset ? sorted.preset->id : std::string();
    cl.workersGiven = sorted.workersGiven;
    applyImplicitDefaults(cl.config, cl.notes, sorted.workersGiven, sorted.datasetGiven);
    if (sorted.preset && !sorted.preset->compare.empty()) {
        if (!sorted.sweep.empty() || !cl.config.sweep.empty())
            throw InputError("--sweep: the preset " + sorted.preset->id +
                             " compares runs of its own; sweep a single-run preset, or none");
        cl.runs = comparedRuns(*sorted.preset, sorted.experiment, sorted.workersGiven,
                               sorted.repeat, cl.notes);
        cl.config = cl.runs.front().config;
        cl.repeat = sorted.repeat;
    } else {
        addRepeats(sorted, cl.config);
    }
    if (!sorted.sweep.empty() || !cl.config.sweep.empty())
        planSweep(cl, sorted);
    else if (cl.sweepParallel > 0)
        badFlag("--sweep-parallel", "applies to a sweep: add --sweep FIELD=V1,V2,...");
    if (!cl.trace.empty() && !cl.runs.empty())
        badFlag("--trace", "traces one run, and this makes " + std::to_string(cl.runs.size()) +
                               " (a comparison, a sweep or --repeat): trace one of them");
    return cl;
}

} // namespace hwl
