// Data-parallel training, as PyTorch's DistributedDataParallel does it: N
// replicas of the model, one per rank, each on its own share of every epoch
// (DistributedSampler), averaging their gradients every step (or their
// parameters every K steps) through a collective, so they stay copies of one
// model. Ranks are threads of the run's process or worker processes (the
// start method), over one shared-memory collective, or MPI ranks (on this
// machine or several, over MPI); replica 0 is what the run evaluates and
// exports.
#include "collective/allreduceupdate.h"
#include "model/mlp.h"
#include "strategy/builtin.h"
#include "strategy/hoststrategy.h"
#include "strategy/replicatransport.h"
#include "train/epochplan.h"

#include <algorithm>
#include <cstring>

namespace hwl {

namespace {

/// The collective's capacity: the largest bucket, at least 16 KiB (the
/// layout check sends its text through one slot).
std::int64_t collectiveCapacity(const ExperimentConfig& c, const ParamLayout& layout) {
    std::int64_t largest = 4096;
    for (const Bucket& b : makeBuckets(layout, c.bucketMb))
        largest = std::max(largest, b.length);
    return largest;
}

/// The collective's gradient area, per rank: a whole dense gradient, which
/// each rank's backward pass writes into (sync-every 1 reduces gradients;
/// a sparse model's kernel keeps its own and leaves the area unused).
std::int64_t gradientArea(const ExperimentConfig& c, const Model& model) {
    return c.syncEvery == 1 && dynamic_cast<const Mlp*>(&model) ? model.layout().total() : 0;
}

/// The run's store is rank 0's; ranks 1 .. n-1 of this process have worker
/// stores (none under MPI: the other replicas live in mpirun's ranks).
class DataParallel final : public HostStrategy {
public:
    DataParallel(const StrategyTraits& traits, ExperimentConfig config)
        : HostStrategy(traits, std::move(config)), transport_(makeTransport(config_)) {}

    void prepare(RunResources& run, const float* initial) override;
    std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const override {
        return std::make_shared<StridedEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                                  config_.shuffle, config_.dropLast, config_.seed);
    }
    std::unique_ptr<Launcher> makeLauncher(const RunResources& /*run*/) const override {
        return transport_->makeLauncher();
    }
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        if (rank >= transport_->localRanks())
            return {}; // started elsewhere (mpirun)
        ParameterStores& stores = host_.stores();
        ParameterStore& store = rank == 0 ? stores.run() : stores.worker(rank - 1);
        return host_.job(*this, run, rank, {&store, transport_->collectiveName(), {}});
    }
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        return hostSetup(env, rank, makeRule(env, rank), true);
    }
    void explain(RunSummary& summary) const override;
    void finish() override {
        host_.finish();
        transport_->finish();
    }

private:
    std::unique_ptr<UpdateRule> makeRule(const WorkerEnvironment& env, std::uint32_t rank) const;

    std::unique_ptr<ReplicaTransport> transport_; ///< how the replicas reach each other
};

void DataParallel::prepare(RunResources& run, const float* initial) {
    const CollectiveSize size{collectiveCapacity(config_, run.model.layout()),
                              gradientArea(config_, run.model)};
    const std::uint32_t local = transport_->localRanks();
    host_.prepareParameters(run, initial, {local - 1, transport_->sharedBytes(size)});
    // The other replicas start empty: each worker takes rank 0's parameters
    // by a broadcast before its first step.
    for (std::uint32_t r = 1; r < local; ++r)
        host_.stores().addWorker(run, host_.place(), "replica" + std::to_string(r), nullptr);
    transport_->prepare(run, size);
    host_.placeData(run);
    if (config_.syncEvery > 1)
        run.notes.push_back(
            "sync-every " + std::to_string(config_.syncEvery) + ": each replica takes " +
            std::to_string(config_.syncEvery) +
            " steps on its own, then the replicas' parameters are averaged (and at each "
            "epoch's end); momentum buffers are not averaged: each replica keeps its own");
}

std::unique_ptr<UpdateRule> DataParallel::makeRule(const WorkerEnvironment& env,
                                                   std::uint32_t rank) const {
    AllreduceSettings settings;
    settings.layout = &env.model.layout();
    settings.buckets = makeBuckets(env.model.layout(), env.config.bucketMb);
    settings.syncEvery = env.config.syncEvery;
    auto collective =
        transport_->makeCollective(env, rank, collectiveCapacity(env.config, *settings.layout));
    return makeAllreduceUpdate(std::move(collective), std::move(settings), env.telemetry, rank);
}

void DataParallel::explain(RunSummary& summary) const {
    // Replicas in this process are compared bit for bit; the others as
    // their transport can (MPI ranks by their final divergence).
    const std::size_t bytes = std::size_t(host_.stores().run().size()) * sizeof(float);
    bool identical = true;
    for (const auto& r : host_.stores().workers())
        identical = identical && std::memcmp(r.data(), host_.parameters(), bytes) == 0;
    identical = identical && transport_->othersIdentical(summary);
    const std::string n = std::to_string(config_.workers);
    if (summary.state == RunState::Failed && summary.steps == 0)
        return; // nothing was trained: nothing to say of the replicas
    if (config_.syncEvery == 1 && identical)
        summary.remarks.push_back("the " + n +
                                  " replicas ended bit-identical, as they were at every step "
                                  "(divergence from their mean: exactly 0)");
    else if (identical)
        summary.remarks.push_back("the " + n +
                                  " replicas ended bit-identical: the last averaging of their "
                                  "parameters made them one model again");
    else if (summary.state == RunState::Finished)
        summary.explanations.push_back(
            "the replicas ended different although every step averaged them: this should not "
            "happen; please report it with the experiment");
}

void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (c.onWorkerFailure == FailurePolicy::Continue)
        issues.push_back(
            {"on-worker-failure", "data-parallel cannot continue without a rank: every step's "
                                  "collective needs all " +
                                      std::to_string(c.workers) +
                                      " replicas, so a dead rank stops the run; use stop"});
    const TransportEntry transport = transportEntry(c.transport);
    if (!transport.unavailable.empty())
        issues.push_back({"transport", std::string("transport ") + toString(c.transport) +
                                           " cannot be used: " + transport.unavailable});
    if (transport.validate)
        transport.validate(c, issues);
}

} // namespace

StrategyEntry dataParallelStrategy() {
    StrategyTraits t;
    t.name = modes::dataParallel;
    t.label = "data-parallel (DDP)";
    t.help = "N replicas, each on its share of every epoch, average their gradients every "
             "step (or their parameters every K steps) and stay one model (--device cuda: "
             "on GPUs)";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::Transport) |
                 unsigned(StrategySetting::StartMethod) | unsigned(StrategySetting::Replicas) |
                 unsigned(StrategySetting::Device) | unsigned(StrategySetting::EvalEvery);
    t.divergence = DivergenceKind::ReplicaDistance;
    t.workerNoun = "rank";
    return {t, factoryOf<DataParallel>(), &validate};
}

} // namespace hwl
