// The "forgot to share the parameters" pitfall: N worker processes, each on a
// private copy of the parameters (one shared-memory segment per replica, so
// the coordinator can measure how far they drift apart), while the parent's
// copy, which the run evaluates and exports, never changes.
#include "optim/hogwild.h"
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"

#include <cstring>

namespace hwl {

namespace {

/// The parent's store (host_'s run store) and one worker store per worker,
/// the replicas.
class UnsharedReplicas final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

    void prepare(RunResources& run, const float* initial) override {
        host_.prepareParameters(run, initial, {std::size_t(config_.workers), 0});
        const std::int64_t total = run.model.layout().total();
        initial_.assign(initial, initial + total);
        for (int r = 0; r < config_.workers; ++r)
            host_.stores().addWorker(run, host_.place(), "replica" + std::to_string(r), initial);
        host_.placeData(run);
    }
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        return host_.job(*this, run, rank, {&host_.stores().worker(rank), {}, {}});
    }
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        return hostSetup(env, rank, makePrivateUpdate(env.telemetry.worker(rank)));
    }
    void measureDivergence(Telemetry& telemetry) override {
        std::vector<const float*> views;
        for (const auto& r : host_.stores().workers())
            views.push_back(r.data());
        std::vector<double> distances;
        hogwild::replicaDistances(views, host_.stores().run().size(), distances);
        for (std::uint32_t r = 0; r < distances.size(); ++r)
            telemetry.worker(r).replicaDistance.store(float(distances[r]));
    }
    float finalDivergence(const Telemetry& telemetry, std::uint32_t rank) const override {
        return telemetry.worker(rank).replicaDistance.load();
    }
    void explain(RunSummary& summary) const override;

private:
    bool unchanged(const float* params) const {
        return std::memcmp(params, initial_.data(), initial_.size() * sizeof(float)) == 0;
    }

    AlignedVector<float> initial_; ///< to prove the parent's copy never changed
};

void UnsharedReplicas::explain(RunSummary& summary) const {
    // Detected from the parameters themselves: the parent's copy is untouched
    // while the workers' copies trained.
    bool replicasTrained = false;
    for (const auto& r : host_.stores().workers())
        replicasTrained = replicasTrained || !unchanged(r.data());
    if (!unchanged(host_.parameters()) || !replicasTrained)
        return;
    std::string distances;
    for (std::size_t r = 0; r < summary.divergence.size(); ++r)
        distances +=
            (r ? ", " : "") + std::to_string(r) + ": " + std::to_string(summary.divergence[r]);
    summary.explanations.push_back(
        "parameters were not shared: each of the " +
        std::to_string(host_.stores().workers().size()) +
        " workers trained its own copy; the exported model is the untouched initial model. The "
        "workers' copies drifted apart (L2 distance from their mean: " +
        distances +
        "). This is the blog's \"scene 3\" (model.share_memory() not called): PyTorch with fork "
        "loses the training silently, with spawn it moves the parameters to shared memory "
        "anyway. Fix: share the parameters (drop --no-share, or tick Share parameters in the "
        "window).");
}

} // namespace

StrategyEntry unsharedReplicasStrategy() {
    StrategyTraits t;
    t.name = modes::processes; // its unshared variant
    t.share = false;
    t.label = "processes, not shared (pitfall)";
    t.help = "the \"forgot to share\" pitfall: each process trains a private copy and the "
             "parent's copy never changes";
    t.settings = processSettings();
    t.processes = true;
    t.divergence = DivergenceKind::ReplicaDistance;
    return {t, factoryOf<UnsharedReplicas>(), {}};
}

} // namespace hwl
