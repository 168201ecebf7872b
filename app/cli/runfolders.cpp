#include "cli/runfolders.h"

#include "config/fields.h"
#include "config/sweep.h"
#include "io/atomicfile.h"
#include "io/runsummaryfile.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hwl {

namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i ? ", " : "") + names[i];
    return text;
}

/// The experiment a folder's experiment.json describes, as the JSON text a
/// planned run's config gives, less where it writes (out, tensorboard):
/// equal texts are the same experiment. Empty when it cannot be read.
std::string experimentKey(ExperimentConfig c) {
    c.out.clear();
    c.tensorboard.clear();
    c.resume.clear();
    return experimentFileJson(c);
}

std::string experimentKeyIn(const std::string& dir) {
    try {
        ExperimentConfig c;
        c.mergeJsonFile(fs::path(dir) / "experiment.json");
        return experimentKey(c);
    } catch (const std::exception&) {
        return {};
    }
}

bool sameFolder(const std::string& a, const std::string& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

} // namespace

void checkOutIsFree(const ExperimentConfig& c, bool overwrite) {
    std::vector<std::string> files = runFilesIn(c.out);
    if (files.empty())
        return;
    if (!c.resume.empty() && sameFolder(c.resume, c.out))
        return; // continuing a run replaces it: what --resume DIR into DIR asks
    if (overwrite) {
        std::printf("out: replacing the run in %s (--overwrite)\n", c.out.c_str());
        return;
    }
    throw InputError("out: " + hwl::quoted(fs::path(c.out)) + " already holds a run (" +
                     joined(files) +
                     "); to keep it, choose a new --out folder; to continue it, --resume " + c.out +
                     "; to replace it, add --overwrite");
}

std::size_t EarlierRuns::count(bool finishedOnes) const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < redo.size(); ++i)
        n += finishedOnes ? finished[i].has_value() : bool(redo[i]);
    return n;
}

namespace {
/// What a sweep started again does with run `i`'s folder: keep it (its
/// row), make it again (redo), or refuse it (another experiment's, `taken`).
void judgeEarlierRun(const CommandLine& cl, std::size_t i, EarlierRuns& earlier,
                     std::vector<std::string>& taken) {
    const PresetRun& run = cl.runs[i];
    const std::string& out = run.config.out;
    if (const std::string said = settleRunFolder(out); !said.empty())
        std::printf("%s\n", said.c_str());
    if (runFilesIn(out).empty())
        return;
    if (cl.overwrite) {
        earlier.redo[i] = true;
        return;
    }
    const std::string key = experimentKeyIn(out);
    if (!key.empty() && key != experimentKey(run.config)) {
        taken.push_back(out);
        return;
    }
    const FolderCheck check = checkRunFolder(out, true);
    const std::optional<RunSummary> s = summaryIn(out);
    const bool trusted = check.whole() || check.trust == FolderTrust::BeforeManifests;
    if (key.empty() || !trusted || !s || s->state != RunState::Finished ||
        (check.whole() && check.manifest.state != stateName(RunState::Finished))) {
        if (!trusted)
            std::printf("%s; made again\n", trustText(out, check).c_str());
        earlier.redo[i] = true;
        return;
    }
    if (check.trust == FolderTrust::BeforeManifests)
        std::printf("%s\n", trustText(out, check).c_str());
    TableRun row;
    row.label = run.label;
    for (const std::string& k : cl.sweepKeys)
        row.values.push_back(sweepValueText(findField(k)->get(run.config)));
    row.summary = *s;
    row.started = true;
    earlier.finished[i] = std::move(row);
}
} // namespace

EarlierRuns findEarlierRuns(const CommandLine& cl) {
    EarlierRuns earlier;
    earlier.finished.resize(cl.runs.size());
    earlier.redo.resize(cl.runs.size());
    std::vector<std::string> taken;
    for (std::size_t i = 0; i < cl.runs.size(); ++i)
        judgeEarlierRun(cl, i, earlier, taken);
    if (!taken.empty())
        throw InputError(
            "out: " + hwl::quoted(fs::path(taken.front())) +
            (taken.size() > 1 ? " and " + std::to_string(taken.size() - 1) + " other run folder" +
                                    (taken.size() > 2 ? "s" : "")
                              : std::string()) +
            " already hold" + (taken.size() > 1 ? "" : "s") +
            " a run of another experiment; to keep it, choose a new --out folder; to replace " +
            "it, add --overwrite (a sweep started again with the same experiment keeps its " +
            "finished runs and makes the others)");
    return earlier;
}

namespace {
/// The first field of each data line of a sweep.csv (its runs' labels),
/// and the key columns of its header (between "run" and the figures).
void readSweepCsv(const fs::path& file, std::vector<std::string>& labels,
                  std::vector<std::string>& keys) {
    std::ifstream in(file);
    std::string line;
    const auto firstField = [](const std::string& l, std::size_t& end) {
        std::string field;
        std::size_t i = 0;
        if (!l.empty() && l[0] == '"') {
            for (i = 1; i < l.size(); ++i) {
                if (l[i] == '"' && i + 1 < l.size() && l[i + 1] == '"')
                    field += l[++i];
                else if (l[i] == '"')
                    break;
                else
                    field += l[i];
            }
            end = i + 1;
            return field;
        }
        end = l.find(',');
        return l.substr(0, end);
    };
    for (bool header = true; std::getline(in, line); header = false) {
        std::size_t end = 0;
        const std::string first = firstField(line, end);
        if (!header) {
            labels.push_back(first);
            continue;
        }
        const std::vector<RunFigure>& figures = runFigures();
        std::stringstream rest(end == std::string::npos ? "" : line.substr(end + 1));
        for (std::string key; std::getline(rest, key, ',');) {
            if (!figures.empty() && key == figures.front().column)
                break;
            keys.push_back(key);
        }
    }
}

std::string gridText(const std::vector<std::string>& keys, const std::vector<std::string>& labels) {
    constexpr std::size_t kShown = 6;
    std::vector<std::string> shown(
        labels.begin(), labels.begin() + std::ptrdiff_t(std::min(labels.size(), kShown)));
    if (labels.size() > kShown)
        shown.push_back("...");
    return joined(keys) + " (" + std::to_string(labels.size()) + " run" +
           (labels.size() == 1 ? "" : "s") + ": " + joined(shown) + ")";
}
} // namespace

void claimSweepFolder(const CommandLine& cl) {
    if (cl.sweepOut.empty() || cl.sweepKeys.empty())
        return;
    const fs::path dir(cl.sweepOut), json = dir / "sweep.json", csv = dir / "sweep.csv";
    std::vector<std::string> labels;
    for (const PresetRun& r : cl.runs)
        labels.push_back(r.label);
    std::vector<std::string> heldLabels, heldKeys;
    std::error_code ec;
    if (fs::exists(json, ec)) {
        try {
            const nlohmann::json j = nlohmann::json::parse(std::ifstream(json));
            heldKeys = j.at("keys").get<std::vector<std::string>>();
            for (const auto& run : j.at("runs"))
                heldLabels.push_back(run.at("label").get<std::string>());
        } catch (const std::exception&) {
            heldKeys = {"(unreadable sweep.json)"};
        }
    } else if (fs::exists(csv, ec)) {
        readSweepCsv(csv, heldLabels, heldKeys);
    }
    const bool held = fs::exists(json, ec) || fs::exists(csv, ec);
    if (!held || (heldKeys == cl.sweepKeys && heldLabels == labels))
        return;
    if (!cl.overwrite)
        throw InputError("--sweep: " + hwl::quoted(dir) + " holds another sweep, over " +
                         gridText(heldKeys, heldLabels) + ", where this one is over " +
                         gridText(cl.sweepKeys, labels) +
                         "; to keep it, choose a new --out folder; to replace it, add "
                         "--overwrite (the same sweep started again keeps its finished runs)");
    std::vector<std::string> staying;
    for (const std::string& label : heldLabels)
        if (std::find(labels.begin(), labels.end(), label) == labels.end())
            staying.push_back(label);
    std::printf("sweep: replacing the sweep in %s (--overwrite)%s\n", dir.c_str(),
                staying.empty() ? ""
                                : ("; the runs of its grid that this one does not make stay in "
                                   "their folders: " +
                                   gridText({}, staying).substr(1))
                                      .c_str());
}

void recordSweepGrid(const CommandLine& cl) {
    if (cl.sweepOut.empty() || cl.sweepKeys.empty())
        return;
    const fs::path dir(cl.sweepOut);
    std::error_code ec;
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const PresetRun& r : cl.runs)
        runs.push_back(
            {{"label", r.label}, {"out", fs::path(r.config.out).lexically_relative(dir).string()}});
    const nlohmann::ordered_json j = {
        {"format", "hogwild-lab sweep"}, {"version", 1}, {"keys", cl.sweepKeys}, {"runs", runs}};
    fs::create_directories(dir, ec);
    writeFileAtomically(dir / "sweep.json", j.dump(2) + "\n");
}

std::string keptRunLine(const PresetRun& run, std::size_t index, std::size_t total) {
    return "== run " + std::to_string(index + 1) + " of " + std::to_string(total) + ": " +
           run.label + ": finished before, kept (" +
           (fs::path(run.config.out) / "summary.json").string() + ") ==";
}

} // namespace hwl
