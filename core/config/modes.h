#pragma once
// The parallel modes as config sees them. The field table lists them (the
// --mode choices, the modes section of --help) and validate() checks the
// mode an experiment asks for, but the modes are the registered strategies,
// a layer above config (docs/architecture.md, "Layers"). So config reads them
// through this table, which run/modecatalog.cpp fills from the strategy
// registry before main(); every program that links the engine links that
// file (core/CMakeLists.txt). Read-only once filled.
#include <string>
#include <utility>
#include <vector>

namespace hwl {

/// The built-in modes' names (the --mode values), each defined in the file
/// of core/strategy/ that registers its mode: presets, defaults and monitors
/// name a mode with these, never with a literal of their own.
namespace modes {
extern const char* const serial;
extern const char* const threads;
extern const char* const threadsLocked;
extern const char* const processes;
extern const char* const dataParallel;
extern const char* const gpuHogwild;
} // namespace modes

struct ConfigIssue;
struct ExperimentConfig;

struct ModeCatalog {
    /// The distinct mode names, in registration order.
    std::vector<std::string> (*names)() = nullptr;
    /// For --help, one (entry, help) pair per mode: ("processes --no-share", ...).
    std::vector<std::pair<std::string, std::string>> (*helpLines)() = nullptr;
    /// What the mode says of an experiment: issues to append, each naming its field.
    void (*validate)(const ExperimentConfig&, std::vector<ConfigIssue>&) = nullptr;
};

/// Fills the table (run/modecatalog.cpp, once, before main()).
void installModeCatalog(const ModeCatalog& catalog);
/// The filled table. std::logic_error when nothing filled it.
const ModeCatalog& modeCatalog();

} // namespace hwl
