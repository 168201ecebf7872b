#pragma once
// The strategy registry: each parallel mode registers its traits (what every
// surface shows: strategy/catalog.h) and a factory. The built-in modes are
// registered on first use (strategy/builtin.h); more may be added at any
// time before they are used (a test registers one). Thread-safe.
#include "strategy/strategy.h"

#include <functional>
#include <memory>

namespace hwl {

using StrategyFactory =
    std::function<std::unique_ptr<Strategy>(const StrategyTraits&, const ExperimentConfig&)>;

/// Checks a strategy makes of an experiment beyond what its traits say
/// (validateExperiment() calls them): issues to append, each naming
/// its field.
using StrategyValidator = std::function<void(const ExperimentConfig&, std::vector<ConfigIssue>&)>;

struct StrategyEntry {
    StrategyTraits traits;
    StrategyFactory make;
    StrategyValidator validate; ///< may be empty
};

/// The factory of a strategy class constructed from (traits, config).
template <class S>
StrategyFactory factoryOf() {
    return [](const StrategyTraits& traits, const ExperimentConfig& config) {
        return std::unique_ptr<Strategy>(std::make_unique<S>(traits, config));
    };
}

/// Adds a strategy. Throws std::logic_error when its name and share value
/// are taken, or its name is empty.
void registerStrategy(StrategyEntry entry);
/// The own checks of the strategy `config` selects (StrategyEntry::validate),
/// appended to `issues`; nothing for an unknown mode. validateExperiment()
/// (strategy/validation.h) calls it after what the traits say.
void validateWithStrategy(const ExperimentConfig& config, std::vector<ConfigIssue>& issues);
/// The strategy the config's mode and share select, made for it. Throws
/// InputError naming the mode when there is none.
std::unique_ptr<Strategy> createStrategy(const ExperimentConfig& config);

} // namespace hwl
