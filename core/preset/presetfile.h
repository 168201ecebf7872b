#pragma once
// One preset read from its files' texts (preset/presets.h): the experiment
// through the experiment reader (ExperimentConfig::mergeJson, on the default
// experiment, as --config reads a file), the "preset" object beside it, the
// runs a comparison makes, and the validation every experiment passes.
#include "config/experimentconfig.h"
#include "preset/presets.h"

#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// What one preset is made of: ID.json, ID.html and, when there is one,
/// ID.stand-in.html (its explanation where Fashion-MNIST is not installed).
struct PresetTexts {
    std::string id;
    std::string json;
    std::string html;
    std::optional<std::string> standInHtml;
    /// Who speaks in messages: "preset file \"/.../ID.json\"".
    std::string origin;
};

/// The preset these texts describe. Throws InputError starting with
/// `origin`: what is wrong and how to fix it. `fashionMnistInstalled`
/// false: the runs on fashion-mnist take the synthetic stand-in, and the
/// explanation says so.
Preset readPreset(const PresetTexts& texts, bool fashionMnistInstalled);

} // namespace hwl
