#include "strategy/registry.h"

#include "config/experimentconfig.h"
#include "config/fields.h"
#include "strategy/builtin.h"
#include "strategy/replicatransport.h"
#include "util/errors.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>

namespace hwl {

namespace {

struct Registry {
    std::mutex mutex;
    std::deque<StrategyEntry> entries; ///< a deque: traits keep their address

    Registry() {
        for (auto&& entry :
             {serialStrategy(), hogwildThreadsStrategy(), lockedThreadsStrategy(),
              hogwildProcessesStrategy(), unsharedReplicasStrategy(), dataParallelStrategy(),
              gpuDataParallelStrategy(), gpuHogwildStrategy()})
            entries.push_back(entry);
    }
    /// The entry of `name` and `share` on `cuda` (modes with a device
    /// variant), or the one whose device the mode fixes.
    const StrategyEntry* find(const std::string& name, bool share, bool cuda) {
        const StrategyEntry* fixed = nullptr;
        for (const auto& e : entries) {
            if (e.traits.name != name || e.traits.share != share)
                continue;
            if (!e.traits.takes(StrategySetting::Device))
                fixed = fixed ? fixed : &e;
            else if (e.traits.cuda == cuda)
                return &e;
        }
        return fixed;
    }
    const StrategyEntry* find(const ExperimentConfig& c) {
        return find(c.mode, c.share, c.device == Device::Cuda);
    }
};

Registry& registry() {
    static Registry r;
    return r;
}

} // namespace

void registerStrategy(StrategyEntry entry) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (entry.traits.name.empty() || !entry.make)
        throw std::logic_error("a strategy needs a name and a factory");
    for (const auto& e : r.entries)
        if (e.traits.name == entry.traits.name && e.traits.share == entry.traits.share &&
            e.traits.cuda == entry.traits.cuda)
            throw std::logic_error("strategy \"" + entry.traits.name + "\" is registered twice");
    r.entries.push_back(std::move(entry));
}

void validateWithStrategy(const ExperimentConfig& config, std::vector<ConfigIssue>& issues) {
    StrategyValidator validate;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        if (const StrategyEntry* e = r.find(config))
            validate = e->validate;
    }
    if (validate)
        validate(config, issues);
}

std::unique_ptr<Strategy> createStrategy(const ExperimentConfig& config) {
    Registry& r = registry();
    const StrategyEntry* entry = nullptr;
    {
        std::lock_guard lock(r.mutex);
        entry = r.find(config);
    }
    if (!entry)
        throw InputError("mode: no mode \"" + config.mode + "\" with share " +
                         (config.share ? "true" : "false") + "; expected " +
                         listChoices(modeNames(), true));
    return entry->make(entry->traits, config);
}

std::vector<const StrategyTraits*> allStrategies() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<const StrategyTraits*> all;
    for (const auto& e : r.entries)
        all.push_back(&e.traits);
    return all;
}

const StrategyTraits* findStrategy(const std::string& name, bool share) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    const StrategyEntry* e = r.find(name, share, false);
    return e ? &e->traits : nullptr;
}

const StrategyTraits* findStrategy(const ExperimentConfig& config) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    const StrategyEntry* e = r.find(config);
    return e ? &e->traits : nullptr;
}

std::vector<std::string> modeNamesWhere(const std::function<bool(const StrategyTraits&)>& pick) {
    std::vector<std::string> names;
    for (const StrategyTraits* t : allStrategies())
        if (pick(*t) && std::find(names.begin(), names.end(), t->name) == names.end())
            names.push_back(t->name);
    return names;
}

std::vector<std::string> modeNames() {
    return modeNamesWhere([](const StrategyTraits&) { return true; });
}

std::vector<std::string> modesTaking(StrategySetting s) {
    return modeNamesWhere([s](const StrategyTraits& t) { return t.takes(s); });
}

std::vector<const StrategyTraits*> variantsOf(const std::string& name) {
    std::vector<const StrategyTraits*> variants;
    for (const StrategyTraits* t : allStrategies())
        if (t->name == name)
            variants.push_back(t);
    return variants;
}

int fixedWorkerCount(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    return t && t->exactWorkers > 0 ? t->exactWorkers : 0;
}

void settleWorkerCount(ExperimentConfig& config, bool userChose) {
    if (const int fixed = fixedWorkerCount(config); fixed > 0 && !userChose)
        config.workers = fixed;
}

bool workersAreProcesses(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    if (t && t->takes(StrategySetting::Transport))
        return transportEntry(config.transport).processes;
    return t && t->processes;
}

bool usesStartMethod(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    if (!t || !t->takes(StrategySetting::StartMethod))
        return false;
    return t->takes(StrategySetting::Transport) ? transportEntry(config.transport).startMethod
                                                : workersAreProcesses(config);
}

std::string describeMode(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    if (!t)
        return config.mode;
    std::vector<std::string> details;
    if (t->cuda && t->takes(StrategySetting::GpuReplicas))
        details.push_back("cuda, " + std::to_string(config.replicasPerGpu) + " per GPU");
    if (t->takes(StrategySetting::Transport))
        details.push_back(toString(config.transport));
    if (usesStartMethod(config))
        details.push_back(toString(config.startMethod));
    if (t->takes(StrategySetting::Share) && !t->share)
        details.push_back("NOT shared");
    if (t->takes(StrategySetting::GpuBlocks))
        details.push_back(std::to_string(config.blocks) + " blocks, " + toString(config.update));
    if (t->takes(StrategySetting::Replicas) && config.syncEvery > 1)
        details.push_back("sync every " + std::to_string(config.syncEvery));
    std::string text = t->name;
    for (std::size_t i = 0; i < details.size(); ++i)
        text += (i == 0 ? " (" : ", ") + details[i];
    return details.empty() ? text : text + ")";
}

std::string transportUnavailable(int transport) {
    return transportEntry(Transport(transport)).unavailable;
}

const char* divergenceMeaning(DivergenceKind kind) {
    switch (kind) {
    case DivergenceKind::None:
        return "none (one worker)";
    case DivergenceKind::Staleness:
        return "staleness: how much other workers changed the shared parameters under a step";
    case DivergenceKind::ReplicaDistance:
        return "distance of each worker's private copy from the replicas' mean";
    }
    return "";
}

} // namespace hwl
