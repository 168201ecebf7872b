// Fills config's table of modes (config/modes.h) from the strategy registry,
// before main(). The engine's link interface names hwl_mode_catalog
// (core/CMakeLists.txt), so every program that links the engine takes this
// file from the static library, also one that calls nothing else of run/.
#include "config/modes.h"
#include "strategy/registry.h"

namespace hwl {

namespace {

std::vector<std::pair<std::string, std::string>> helpLines() {
    std::vector<std::pair<std::string, std::string>> lines;
    for (const StrategyTraits* s : allStrategies()) {
        std::string name = s->name;
        if (s->takes(StrategySetting::Share) && !s->share)
            name += " --no-share";
        lines.emplace_back(name, s->help);
    }
    return lines;
}

int install() {
    installModeCatalog({&modeNames, &helpLines, &validateMode});
    return 1;
}

} // namespace

} // namespace hwl

extern "C" {
extern const int hwl_mode_catalog;
const int hwl_mode_catalog = hwl::install();
}
