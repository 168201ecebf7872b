#pragma once
// Ready-made teaching experiments, each with a short explanation (HTML: <p>,
// <b>, <i>, <tt>) of what to run, what to look at and why it happens. The
// window's Presets menu and the command line's --preset / --list-presets both
// take them from here. Every preset's config passes validate() and uses
// canonical model / dataset texts. Presets that would use Fashion-MNIST fall
// back to a synthetic teacher task when it is not installed
// (fashionMnistAvailable()), and say so.
#include "config/experimentconfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// One run of a preset that compares runs: what the run list calls it
/// ("locked") and its experiment.
struct PresetRun {
    std::string label;
    ExperimentConfig config;
};

/// The figure a comparison preset is about: the chart (and the column of
/// its final table) that carries the comparison, where every run is shown.
enum class ComparedFigure { None, Throughput, Divergence, StartUp };

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
    /// The experiment fields (their keys: "share", "start-method") that
    /// the explanation invites the reader to change ("share" in
    /// forgot-to-share): changing them follows the text, it does not make
    /// the preset "(modified)" beyond what the text says.
    std::vector<std::string> invites = {};
};

/// The presets, in menu order. Built on each call (checks Fashion-MNIST).
std::vector<Preset> presets();

/// The preset with this id or name, or null.
const Preset* findPreset(const std::vector<Preset>& all, const std::string& idOrName);

/// "hogwild-vs-locked, forgot-to-share, ...": for messages.
std::string presetIds(const std::vector<Preset>& all);

} // namespace hwl
