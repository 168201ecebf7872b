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

struct Preset {
    std::string id;          ///< what --preset takes: lower case, dashes ("forgot-to-share")
    std::string name;        ///< the menu's words ("Forgot to share parameters (fork)")
    std::string explanation; ///< HTML
    ExperimentConfig config;
    /// The pace it is meant to be watched at: steps per second per worker
    /// (0: full speed). The window's speed control and --preset take it.
    std::uint32_t pace = 0;
};

/// The presets, in menu order. Built on each call (checks Fashion-MNIST).
std::vector<Preset> presets();

/// The preset with this id or name, or null.
const Preset* findPreset(const std::vector<Preset>& all, const std::string& idOrName);

/// "hogwild-vs-locked, forgot-to-share, ...": for messages.
std::string presetIds(const std::vector<Preset>& all);

} // namespace hwl
