#include "strategy/registry.h"

#include "config/experimentconfig.h"
#include "config/fields.h"
#include "strategy/builtin.h"
#include "strategy/replicatransport.h"
#include "util/errors.h"

#include <algorithm>
#include <deque>
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

namespace {
void checkWorkers(const StrategyTraits& s, const ExperimentConfig& c,
                  std::vector<ConfigIssue>& issues) {
    if (s.exactWorkers <= 0 || c.workers == s.exactWorkers)
        return;
    std::vector<std::string> others;
    for (const std::string& name : modeNames()) {
        const StrategyTraits* t = findStrategy(name, true);
        if (t && t->takes(StrategySetting::Workers) && t->unavailable.empty())
            others.push_back(name);
    }
    issues.push_back({"workers", s.name + " mode runs exactly " + std::to_string(s.exactWorkers) +
                                     " worker" + (s.exactWorkers == 1 ? "" : "s") + " (got " +
                                     std::to_string(c.workers) + "); use mode " +
                                     listChoices(others, false) + " for more"});
}
/// The distinct names of the modes `pick` selects, in registration order.
template <class Pick>
std::vector<std::string> namesOf(Pick pick) {
    std::vector<std::string> names;
    for (const StrategyTraits* t : allStrategies())
        if (pick(*t) && std::find(names.begin(), names.end(), t->name) == names.end())
            names.push_back(t->name);
    return names;
}
/// The modes that take setting `s`, for "applies to mode ... only".
std::string takersOf(StrategySetting s) {
    return listChoices(modesTaking(s), false);
}
/// The same, with the `share` variant named where a mode has both and with
/// the device where the setting is for its CUDA variant only.
std::string variantsTaking(StrategySetting s) {
    std::vector<std::string> names;
    for (const StrategyTraits* t : allStrategies()) {
        if (!t->takes(s))
            continue;
        std::string name = t->name;
        if (t->takes(StrategySetting::Share))
            name += t->share ? " (shared)" : " (not shared)";
        if (t->cuda && t->takes(StrategySetting::Device))
            name += " with --device cuda";
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return listChoices(names, false);
}
/// What the modes whose workers are processes this app starts are called:
/// the modes that are, and the transport that makes them so.
std::string processModes() {
    std::vector<std::string> names = namesOf([](const StrategyTraits& t) {
        return t.takes(StrategySetting::StartMethod) && !t.takes(StrategySetting::Transport) &&
               !t.cuda;
    });
    if (!namesOf([](const StrategyTraits& t) {
             return t.takes(StrategySetting::Transport);
         }).empty())
        names.push_back(std::string("--transport ") + toString(Transport::Processes));
    std::string text;
    for (const std::string& n : names)
        text += (text.empty() ? "" : ", ") + n;
    return text;
}
void checkGpuOptions(const StrategyTraits& s, const ExperimentConfig& c,
                     std::vector<ConfigIssue>& issues) {
    const ExperimentConfig d;
    if (c.device != d.device && !s.takes(StrategySetting::Device) && !s.cuda) {
        const auto cudaOnly = namesOf(
            [](const StrategyTraits& t) { return t.cuda && !t.takes(StrategySetting::Device); });
        issues.push_back({"device", "device cuda applies to mode " +
                                        takersOf(StrategySetting::Device) + " only" +
                                        (cudaOnly.empty() ? std::string()
                                                          : " (" + listChoices(cudaOnly, false) +
                                                                " always runs on CUDA)")});
    }
    if (c.replicasPerGpu != d.replicasPerGpu && !s.takes(StrategySetting::GpuReplicas))
        issues.push_back({"replicas-per-gpu", "replicas-per-gpu applies to mode " +
                                                  variantsTaking(StrategySetting::GpuReplicas) +
                                                  " only"});
    if (!s.takes(StrategySetting::GpuBlocks)) {
        if (c.blocks != d.blocks)
            issues.push_back({"blocks", "blocks applies to mode " +
                                            takersOf(StrategySetting::GpuBlocks) + " only"});
        if (c.update != d.update)
            issues.push_back({"update", "update applies to mode " +
                                            takersOf(StrategySetting::GpuBlocks) + " only"});
    }
    if ((c.cudaBeforeFork || c.forceUnsafeFork) && !s.takes(StrategySetting::StartMethod))
        issues.push_back({"cuda-before-fork", "cuda-before-fork applies to modes whose workers "
                                              "are processes (" +
                                                  processModes() + ")"});
    if (c.forceUnsafeFork && !c.cudaBeforeFork)
        issues.push_back({"force-unsafe-fork", "force-unsafe-fork goes with --cuda-before-fork"});
}

/// The process pitfall that is not about CUDA, for a mode that does not
/// teach it (the mode that does checks the rest itself).
void checkProcessPitfalls(const StrategyTraits& s, const ExperimentConfig& c,
                          std::vector<ConfigIssue>& issues) {
    if (c.spawnBeforeShare && !s.takes(StrategySetting::SpawnBeforeShare))
        issues.push_back({"spawn-before-share",
                          "spawn-before-share applies to mode " +
                              variantsTaking(StrategySetting::SpawnBeforeShare) +
                              " only: the workers that open the parameters' segment by name"});
}

/// Why a mode that does not take `split` has no use for it.
std::string splitNote(const StrategyTraits& s) {
    if (s.takes(StrategySetting::Replicas))
        return " (" + s.name + " gives each replica its own shard, as DistributedSampler does)";
    return {};
}

/// Options that only some modes take, set away from their default for a mode
/// that does not: said, not ignored.
void checkOptions(const StrategyTraits& s, const ExperimentConfig& c,
                  std::vector<ConfigIssue>& issues) {
    const ExperimentConfig d;
    const std::string only = " applies to mode " + takersOf(StrategySetting::Replicas) + " only";
    if (!s.takes(StrategySetting::Transport)) {
        if (c.transport != d.transport)
            issues.push_back({"transport", "transport" + only});
        if (!c.hostfile.empty())
            issues.push_back({"hostfile", "hostfile" + only + ", with --transport mpi"});
        if (!c.mpirunArgs.empty())
            issues.push_back({"mpirun-args", "mpirun-args" + only + ", with --transport mpi"});
        if (c.reduce != d.reduce)
            issues.push_back({"reduce", "reduce" + only + ", with --transport mpi"});
    }
    checkGpuOptions(s, c, issues);
    checkProcessPitfalls(s, c, issues);
    if (c.split != d.split && !s.takes(StrategySetting::Split))
        issues.push_back({"split", "split " + std::string(toString(c.split)) + " applies to mode " +
                                       takersOf(StrategySetting::Split) + " only" + splitNote(s)});
    if (!c.resume.empty() && !s.takes(StrategySetting::Resume))
        issues.push_back({"resume", "resume applies to mode " + takersOf(StrategySetting::Resume) +
                                        " only: " + s.name +
                                        "'s workers keep their momentum in processes or on a "
                                        "device that end with the run"});
    if (!c.resume.empty() && !c.init.empty())
        issues.push_back({"init", "init and resume both name the weights to start from; "
                                  "drop --init (resume takes DIR's weights.safetensors)"});
    if (c.lostUpdates && !s.takes(StrategySetting::LostUpdates))
        issues.push_back(
            {"lost-updates",
             "lost-updates applies to mode " + takersOf(StrategySetting::LostUpdates) + " only" +
                 (s.takes(StrategySetting::GpuBlocks) ? " (" + s.name + " always counts them)"
                                                      : std::string())});
    if (!s.takes(StrategySetting::Replicas)) {
        if (c.syncEvery != d.syncEvery)
            issues.push_back({"sync-every", "sync-every" + only});
        if (c.bucketMb != d.bucketMb)
            issues.push_back({"bucket-mb", "bucket-mb" + only});
        if (c.dropLast != d.dropLast)
            issues.push_back({"drop-last", "drop-last" + only});
    }
}

} // namespace

void validateMode(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (!findStrategy(c.mode, true) && !findStrategy(c.mode, false)) {
        issues.push_back({"mode", "unknown mode \"" + c.mode + "\"; expected " +
                                      listChoices(modeNames(), true)});
        return;
    }
    const StrategyTraits* s = findStrategy(c);
    if (s && !s->unavailable.empty()) {
        if (s->takes(StrategySetting::Device))
            issues.push_back(
                {"device", "mode " + c.mode + " on device cuda cannot run: " + s->unavailable});
        else
            issues.push_back({"mode", "mode " + c.mode + " cannot run: " + s->unavailable});
        return;
    }
    if (!s) {
        std::vector<std::string> unshared;
        for (const StrategyTraits* t : allStrategies())
            if (!t->share)
                unshared.push_back(t->name);
        issues.push_back({"share", "share false (--no-share) applies to mode " +
                                       listChoices(unshared, false) +
                                       " only: the workers of mode " + c.mode +
                                       " always share one copy of the parameters"});
        return;
    }
    checkWorkers(*s, c, issues);
    checkOptions(*s, c, issues);
    StrategyValidator validate;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        validate = r.find(c)->validate;
    }
    if (validate)
        validate(c, issues);
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

std::vector<std::string> modeNames() {
    std::vector<std::string> names;
    for (const StrategyTraits* t : allStrategies())
        if (std::find(names.begin(), names.end(), t->name) == names.end())
            names.push_back(t->name);
    return names;
}

std::vector<std::string> modesTaking(StrategySetting s) {
    std::vector<std::string> names;
    for (const StrategyTraits* t : allStrategies())
        if (t->takes(s) && std::find(names.begin(), names.end(), t->name) == names.end())
            names.push_back(t->name);
    return names;
}

std::vector<const StrategyTraits*> variantsOf(const std::string& name) {
    std::vector<const StrategyTraits*> variants;
    for (const StrategyTraits* t : allStrategies())
        if (t->name == name)
            variants.push_back(t);
    return variants;
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
