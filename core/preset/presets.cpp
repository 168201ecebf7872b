#include "preset/presets.h"

#include "data/datasetspec.h"
#include "preset/embeddedpresets.h"
#include "preset/presetfile.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

namespace hwl {

namespace {
namespace fs = std::filesystem;

/// What a preset file may weigh: as an experiment file (1 MiB).
constexpr long kMaxPresetFileBytes = 1 << 20;

bool isStandIn(const std::string& name) {
    const std::string suffix = ".stand-in.html";
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<std::string> embeddedText(const std::string& name) {
    for (const EmbeddedPresetFile& f : embeddedPresetFiles())
        if (name == f.name)
            return std::string(f.text);
    return std::nullopt;
}

/// Sorts [first, last) into menu order: by "order", then by id.
void sortByMenuOrder(std::vector<Preset>::iterator first, std::vector<Preset>::iterator last) {
    std::stable_sort(first, last, [](const Preset& a, const Preset& b) {
        return a.order != b.order ? a.order < b.order : a.id < b.id;
    });
}

/// The built-in presets; one that cannot be read (a build from a broken
/// resources/presets/) is a problem like a user's, never a crash.
std::vector<Preset> readBuiltins(bool fashion, std::vector<PresetProblem>& problems) {
    std::vector<Preset> out;
    for (const EmbeddedPresetFile& f : embeddedPresetFiles()) {
        const std::string name = f.name;
        if (name.size() <= 5 || name.compare(name.size() - 5, 5, ".json") != 0)
            continue;
        const std::string id = name.substr(0, name.size() - 5);
        const std::string origin = "built-in preset " + hwl::quoted("resources/presets/" + name);
        try {
            const std::optional<std::string> html = embeddedText(id + ".html");
            if (!html)
                throw InputError(origin + ": no " + id + ".html beside it");
            out.push_back(readPreset(
                {id, f.text, *html, embeddedText(id + ".stand-in.html"), origin}, fashion));
        } catch (const InputError& e) {
            problems.push_back({id, "resources/presets/" + name, e.what()});
        }
    }
    sortByMenuOrder(out.begin(), out.end());
    return out;
}

/// A preset file's text; InputError naming it when it cannot be read.
std::string readText(const fs::path& file) {
    std::string why;
    const FilePtr in = openRegularFile(file, why);
    if (!in)
        throw InputError("preset file " + hwl::quoted(file) + ": cannot be read (" + why + ")");
    std::string text;
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, in.get())) > 0;) {
        text.append(buffer, n);
        if (long(text.size()) > kMaxPresetFileBytes)
            throw InputError("preset file " + hwl::quoted(file) +
                             ": larger than 1 MiB, too large "
                             "for a preset");
    }
    return text;
}

/// An id is what --preset takes and the menu's shortcut key: lower-case
/// letters, digits and dashes, as the built-in ones.
bool usableId(const std::string& id) {
    return !id.empty() && id.front() != '-' && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

/// One user preset file, ID.json with ID.html beside it.
Preset readUserPreset(const fs::path& json, const std::string& id, bool fashion) {
    const std::string origin = "preset file " + hwl::quoted(json);
    if (!usableId(id))
        throw InputError(origin + ": its name is the preset's id (what --preset takes): use "
                                  "lower-case letters, digits and dashes (my-preset.json, "
                                  "my-preset.html)");
    const fs::path html = json.parent_path() / (id + ".html");
    std::error_code ec;
    if (!fs::exists(html, ec))
        throw InputError(origin + ": no explanation beside it: write " + id +
                         ".html (what to run and what to look at, in <p> paragraphs) in " +
                         hwl::quoted(json.parent_path()));
    const fs::path standIn = json.parent_path() / (id + ".stand-in.html");
    std::optional<std::string> standInText;
    if (fs::exists(standIn, ec))
        standInText = readText(standIn);
    Preset p = readPreset({id, readText(json), readText(html), standInText, origin}, fashion);
    p.file = json;
    return p;
}

/// The presets of one folder that no earlier folder (nor the program)
/// holds, added to `out` (which holds every preset read so far, whose
/// titles a new one must not take); what cannot be used, to `problems`.
void readFolder(const fs::path& folder, bool fashion, std::set<std::string>& taken,
                const std::set<std::string>& builtinIds, std::vector<Preset>& out,
                std::vector<PresetProblem>& problems) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return; // no such folder: nothing added there
    std::vector<fs::path> files;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".json")
            files.push_back(it->path());
    if (ec) {
        problems.push_back({{},
                            folder,
                            "preset folder " + hwl::quoted(folder) + ": cannot be read (" +
                                ec.message() + "); its presets are left out"});
        return;
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
        const std::string id = file.stem().string();
        if (!taken.insert(id).second && !builtinIds.count(id))
            continue; // an earlier folder's preset of this id wins
        try {
            if (builtinIds.count(id))
                throw InputError("preset file " + hwl::quoted(file) + ": " + id +
                                 " is the id of a built-in preset; rename the file and its "
                                 ".html (my-" +
                                 id + ".json, my-" + id + ".html)");
            Preset p = readUserPreset(file, id, fashion);
            if (findPreset(out, p.name))
                throw InputError("preset file " + hwl::quoted(file) + ": its title \"" + p.name +
                                 "\" is another preset's already; give it a title of its own");
            out.push_back(std::move(p));
        } catch (const InputError& e) {
            problems.push_back({id, file, e.what()});
        }
    }
}
} // namespace

std::vector<fs::path> presetFolders() {
    std::vector<fs::path> folders;
    // The XDG base directories: only absolute paths count.
    const auto add = [&](const std::string& base) {
        const fs::path folder = fs::path(base) / "hogwild-lab" / "presets";
        if (!base.empty() && base.front() == '/' &&
            std::find(folders.begin(), folders.end(), folder) == folders.end())
            folders.push_back(folder);
    };
    const char* dataHome = std::getenv("XDG_DATA_HOME");
    const char* home = std::getenv("HOME");
    if (dataHome && *dataHome == '/')
        add(dataHome);
    else if (home && *home == '/')
        add(std::string(home) + "/.local/share");
    const char* dataDirs = std::getenv("XDG_DATA_DIRS");
    for (const std::string& dir :
         split(dataDirs && *dataDirs ? dataDirs : "/usr/local/share:/usr/share", ':'))
        add(dir);
    return folders;
}

std::vector<Preset> builtinPresets() {
    std::vector<PresetProblem> problems;
    return readBuiltins(fashionMnistAvailable(), problems);
}

std::vector<Preset> presets(std::vector<PresetProblem>* problems) {
    std::vector<PresetProblem> found;
    const bool fashion = fashionMnistAvailable();
    std::vector<Preset> all = readBuiltins(fashion, found);
    std::set<std::string> builtinIds;
    for (const EmbeddedPresetFile& f : embeddedPresetFiles())
        if (const std::string name = f.name; name.size() > 5 && !isStandIn(name))
            builtinIds.insert(name.substr(0, name.rfind('.')));
    std::set<std::string> taken;
    const std::ptrdiff_t builtins = std::ptrdiff_t(all.size());
    for (const fs::path& folder : presetFolders()) // each adds its presets to `all`
        readFolder(folder, fashion, taken, builtinIds, all, found);
    sortByMenuOrder(all.begin() + builtins, all.end()); // the user's, after the built-in ones
    if (problems)
        *problems = std::move(found);
    return all;
}

bool invitesChange(const Preset& p, const std::string& key, const std::string& value) {
    return std::any_of(p.invites.begin(), p.invites.end(), [&](const std::string& invite) {
        return invite == key || invite == key + "=" + value;
    });
}

const Preset* findPreset(const std::vector<Preset>& all, const std::string& idOrName) {
    for (const Preset& p : all)
        if (p.id == idOrName || p.name == idOrName)
            return &p;
    return nullptr;
}

std::string presetIds(const std::vector<Preset>& all) {
    std::string ids;
    for (const Preset& p : all)
        ids += (ids.empty() ? "" : ", ") + p.id;
    return ids;
}

std::string presetNotFound(const std::string& idOrName, const std::vector<Preset>& all,
                           const std::vector<PresetProblem>& problems) {
    for (const PresetProblem& p : problems)
        if (!p.id.empty() && p.id == idOrName)
            return p.message;
    return "no preset named \"" + idOrName + "\"; the presets are " + presetIds(all);
}

} // namespace hwl
