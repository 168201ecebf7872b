#pragma once
// The teaching presets: ready-made experiments, each with an explanation
// (HTML: <p>, <b>, <i>, <tt>, <a href="hwl:...">) of what to run, what to
// look at and why it happens. A preset is data: an experiment file with a
// "preset" object (its title, menu order, pace, the runs it compares) and
// its explanation beside it, ID.json and ID.html (docs/file-formats.md,
// "Preset files"). The built-in ones are resources/presets/, embedded in the
// program at build time; a user adds one by putting the two files in
// $XDG_DATA_HOME/hogwild-lab/presets/ (or a folder of $XDG_DATA_DIRS). Every
// preset is read by the experiment reader and checked by the same validation
// as any experiment file. The window's Presets menu and the command line's
// --preset / --list-presets take them from here.
//
// A preset on the dataset fashion-mnist runs, where Fashion-MNIST is not
// installed (fashionMnistAvailable()), on a synthetic teacher task of the
// same shape, and its explanation says so (ID.stand-in.html when there is
// one, else a note after its text).
#include "config/experimentconfig.h"
#include "config/presetrun.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hwl {

/// The figure a comparison preset is about: the chart (and the column of
/// its final table) that carries the comparison, where every run is shown.
/// TimeToTarget: every run trains to the same target; the training seconds
/// to it (the runs' --target-accuracy or --target-loss).
enum class ComparedFigure { None, Throughput, Divergence, StartUp, TimeToTarget };

struct Preset {
    std::string id;          ///< what --preset takes: lower case, dashes ("forgot-to-share")
    std::string name;        ///< the menu's words ("Forgot to share parameters (fork)")
    std::string explanation; ///< HTML
    ExperimentConfig config;
    /// The pace it is meant to be watched at: steps per second per worker
    /// (0: full speed). The window's speed control and --preset take it.
    std::uint32_t pace = 0;
    /// A comparison: the runs to make one after another (the window keeps
    /// each in its run list, overlaid on the next). Empty: the one run of
    /// `config`. When set, the first one's config equals `config`.
    std::vector<PresetRun> compare = {};
    /// What a comparison compares (None for a single run).
    ComparedFigure compares = ComparedFigure::None;
    /// The changes the explanation invites the reader to make: a field's
    /// key ("share" in forgot-to-share: any value), or key=value, that value
    /// only ("mode=threads-locked" in lost-updates). Making one follows the
    /// text, it does not make the preset "(modified)" (invitesChange()).
    std::vector<std::string> invites = {};
    /// Its place in the menu: the built-in presets come first, then the
    /// user's, each by this number, then by id.
    int order = 0;
    /// The file it was read from; empty for a built-in preset.
    std::filesystem::path file = {};
};

/// A preset file that was not offered: its id (the file's name without
/// .json; empty when a whole folder could not be read), the file, and one
/// message naming the file, what is wrong and how to fix it.
struct PresetProblem {
    std::string id;
    std::filesystem::path file;
    std::string message;
};

/// The id of the preset that explains the default experiment (the window
/// shows it at start).
inline constexpr const char* kDefaultPresetId = "fashion-mnist";

/// Every preset, in menu order: the built-in ones, then those in the
/// preset folders (presetFolders()). Read on each call (the files may
/// change; Fashion-MNIST may be installed meanwhile). A user's file that
/// cannot be used is left out and, when `problems` is given, said there;
/// the others are offered. Never throws for a user's file.
std::vector<Preset> presets(std::vector<PresetProblem>* problems = nullptr);

/// The built-in presets only, in menu order (the files of resources/presets/
/// embedded in the program): what a program documents about itself (the
/// man page, the completion) without the user's.
std::vector<Preset> builtinPresets();

/// The folders a user's presets are read from, the first one winning when
/// two hold the same id: $XDG_DATA_HOME/hogwild-lab/presets (default
/// ~/.local/share/hogwild-lab/presets), then each folder of $XDG_DATA_DIRS
/// (default /usr/local/share:/usr/share) with hogwild-lab/presets.
std::vector<std::filesystem::path> presetFolders();

/// Whether `p`'s text invites setting the field `key` to `value` (the
/// field's text, as its flag takes it): an invitation "key" takes any value,
/// "key=value" that one.
bool invitesChange(const Preset& p, const std::string& key, const std::string& value);

/// The preset with this id or name, or null.
const Preset* findPreset(const std::vector<Preset>& all, const std::string& idOrName);

/// "hogwild-vs-locked, forgot-to-share, ...": for messages.
std::string presetIds(const std::vector<Preset>& all);

/// Why there is no preset `idOrName`: the problem of the file of that id
/// when one was refused (the message names the file), else "no preset named
/// "X"; the presets are ...".
std::string presetNotFound(const std::string& idOrName, const std::vector<Preset>& all,
                           const std::vector<PresetProblem>& problems);

} // namespace hwl
