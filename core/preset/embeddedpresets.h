#pragma once
// The built-in presets' files (resources/presets/: ID.json, ID.html,
// ID.stand-in.html), embedded at build time by a generated source
// (core/preset/CMakeLists.txt).
#include <vector>

namespace hwl {

struct EmbeddedPresetFile {
    const char* name; ///< the file's name in resources/presets/ ("lost-updates.json")
    const char* text; ///< its bytes, as the build read them
};

/// Every file of resources/presets/, by name.
const std::vector<EmbeddedPresetFile>& embeddedPresetFiles();

} // namespace hwl
