// Process Hogwild: N worker processes (fork, spawn or forkserver) update one
// copy of the parameters in POSIX shared memory without locks, reading one
// shared copy of the training data. It teaches the blog's scene 2 as well
// (--spawn-before-share): the parameters never put in a segment before the
// workers start; that pitfall's state and checks are this mode's.
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"

namespace hwl {

unsigned processSettings() {
    return unsigned(StrategySetting::Workers) | unsigned(StrategySetting::StartMethod) |
           unsigned(StrategySetting::Share) | unsigned(StrategySetting::FailurePolicy) |
           unsigned(StrategySetting::Split) | unsigned(StrategySetting::EvalEvery);
}

namespace {

class HogwildProcesses final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

    void prepare(RunResources& run, const float* initial) override {
        // The scene-2 pitfall: the parameters stay in this process's private
        // memory, and the workers are started all the same.
        const bool neverShared =
            config_.spawnBeforeShare && host_.place() == StorePlace::SharedMemory;
        host_.prepareParameters(run, initial, {}, neverShared ? StorePlace::Heap : host_.place());
        if (neverShared)
            neverShared_ = SharedSegment::unusedName("parameters");
        host_.placeData(run);
    }
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        return host_.job(*this, run, rank, {&host_.stores().run(), {}, neverShared_});
    }
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        auto rule = makeHogwildUpdate(env.model.layout().total(), config_.workers > 1,
                                      countedUpdates(env, rank));
        return hostSetup(env, rank, std::move(rule));
    }
    void explain(RunSummary& summary) const override;

private:
    /// --spawn-before-share: the name the workers are told their parameters
    /// are under, where no segment was ever made (the store stays on the heap).
    std::string neverShared_;
};

void HogwildProcesses::explain(RunSummary& summary) const {
    if (!neverShared_.empty())
        summary.explanations.push_back(
            "Unable to open shared memory (the blog's scene 2): the parameters were never put "
            "in a shared-memory segment before the workers started (--spawn-before-share; in "
            "PyTorch, model.share_memory() not called before mp.spawn). A spawned or "
            "fork-server worker is a fresh process: it shares nothing with the parent but what "
            "it opens by name, so it could not open " +
            neverShared_ +
            " and stopped before its first step. (PyTorch's own message: \"RuntimeError: "
            "Unable to open shared memory\"; there passing a model to mp.spawn usually moves "
            "it into shared memory by itself, and the error comes when the segment is gone "
            "by the time the child opens it.) Fix: share the parameters before starting the "
            "workers: drop --spawn-before-share (in the window, untick the pitfall).");
    explainOptimizerState(summary, config_, host_.stores().run());
    explainLostUpdates(summary, config_);
}

/// The pitfall's own check (other modes refuse the flag by their traits).
void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (c.spawnBeforeShare && c.startMethod == StartMethod::Fork)
        issues.push_back({"spawn-before-share",
                          "spawn-before-share applies to start-method spawn or forkserver: a "
                          "forked worker inherits the parent's memory instead of opening a "
                          "segment (its pitfall is --no-share: each trains a private copy)"});
}

} // namespace

StrategyEntry hogwildProcessesStrategy() {
    StrategyTraits t;
    t.name = modes::processes;
    t.share = true;
    t.label = "processes (Hogwild)";
    t.help = "N processes update one copy in POSIX shared memory without locks (Hogwild)";
    t.settings = processSettings() | unsigned(StrategySetting::LostUpdates) |
                 unsigned(StrategySetting::SpawnBeforeShare) |
                 unsigned(StrategySetting::SharedState);
    t.processes = true;
    t.divergence = DivergenceKind::Staleness;
    return {t, factoryOf<HogwildProcesses>(), &validate};
}

} // namespace hwl
