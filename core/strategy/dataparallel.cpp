// Data-parallel training, as PyTorch's DistributedDataParallel does it: N
// replicas of the model, one per rank, each on its own share of every epoch
// (DistributedSampler), averaging their gradients every step (or their
// parameters every K steps) through a collective, so they stay copies of one
// model. Ranks are threads of the run's process or worker processes (the
// start method), over one shared-memory collective, or MPI ranks (on this
// machine or several, over MPI); replica 0 is what the run evaluates and
// exports.
#include "collective/allreduceupdate.h"
#include "collective/mpi/mpicollective.h"
#include "collective/mpi/mpijob.h"
#include "collective/shmcollective.h"
#include "config/fields.h"
#include "data/fingerprint.h"
#include "launch/workerargs.h"
#include "model/mlp.h"
#include "store/sharedsegment.h"
#include "strategy/builtin.h"
#include "strategy/hostparts.h"
#include "train/epochplan.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <unistd.h>

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

/// What an MPI rank says of itself: what must equal rank 0's (every
/// experiment field but the ones only rank 0 uses, the training data, the
/// program's version).
mpi::Greeting greetingOf(const WorkerEnvironment& env) {
    mpi::Greeting g;
    g.pid = std::int32_t(getpid());
    g.host = mpi::job().host;
    for (const Field& f : experimentFields())
        if (std::string_view key = f.key;
            !f.output && key != "init" && key != "hostfile" && key != "mpirun-args")
            g.facts.emplace_back(f.key, f.valueText(env.config));
    g.facts.emplace_back("training data", describeFingerprint(env.train));
    g.facts.emplace_back("hogwild-lab", HWL_VERSION);
    return g;
}

MpirunCommand mpirunCommand(const ExperimentConfig& c) {
    std::string error;
    return {std::uint32_t(c.workers), c.hostfile, splitMpirunArgs(c.mpirunArgs, error)};
}

class DataParallel final : public Strategy {
public:
    DataParallel(const StrategyTraits& traits, ExperimentConfig config)
        : Strategy(traits, std::move(config)), host_(config_) {}

    void prepare(RunResources& run, const float* initial) override;
    std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const override {
        return std::make_shared<StridedEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                                  config_.shuffle, config_.dropLast, config_.seed);
    }
    std::unique_ptr<Launcher> makeLauncher(const RunResources& /*run*/) const override {
        if (!mpi())
            return nullptr;
        // Under mpirun this process is rank 0; else it starts mpirun.
        return mpi::joined() ? makeMpiRankLauncher() : makeMpirunLauncher(mpirunCommand(config_));
    }
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        if (mpi() && rank > 0)
            return {}; // mpirun starts it
        ParameterStores& stores = host_.stores();
        ParameterStore& store = rank == 0 || mpi() ? stores.run() : stores.worker(rank - 1);
        return host_.job(*this, run, rank, {&store, collectiveName(), {}});
    }
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        return hostWorkerSetup(env, rank, makeRule(env, rank), epochPlan(env.train.rows), true);
    }
    const float* hostParameters() const override { return host_.parameters(); }
    void explain(RunSummary& summary) const override;
    void finish() override {
        host_.finish();
        collective_.unlink();
    }

private:
    bool mpi() const { return config_.transport == Transport::Mpi; }
    std::string collectiveName() const {
        return mpi() ? std::string(kMpiCollective) : collective_.name();
    }
    std::unique_ptr<UpdateRule> makeRule(const WorkerEnvironment& env, std::uint32_t rank) const;

    /// The run's store is rank 0's; ranks 1 .. N-1 have worker stores (none
    /// under MPI: the other replicas live in mpirun's ranks).
    HostTraining host_;
    SharedSegment collective_;
    std::int64_t capacity_ = 4096;
};

void DataParallel::prepare(RunResources& run, const float* initial) {
    capacity_ = collectiveCapacity(config_, run.model.layout());
    const std::int64_t gradients = gradientArea(config_, run.model);
    const SharedNeeds needs{
        mpi() ? 0 : std::size_t(config_.workers) - 1,
        mpi() ? 0 : ShmCollective::bytesFor(std::uint32_t(config_.workers), capacity_, gradients)};
    host_.prepareParameters(run, initial, needs);
    if (!mpi()) {
        // The other replicas start empty: each worker takes rank 0's
        // parameters by a broadcast before its first step.
        for (int r = 1; r < config_.workers; ++r)
            host_.stores().addWorker(run, host_.place(), "replica" + std::to_string(r), nullptr);
        collective_ = ShmCollective::create(std::uint32_t(config_.workers), capacity_, gradients);
    }
    host_.placeData(run);
    if (mpi() && !mpi::joined())
        for (const auto& [arg, why] : automaticMpirunArgs(mpirunCommand(config_)))
            run.notes.push_back("mpirun gets " + arg + ": " + why);
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
    std::unique_ptr<Collective> collective;
    if (mpi())
        collective = makeMpiCollective(
            env.telemetry, rank, collectiveCapacity(env.config, *settings.layout), greetingOf(env),
            env.config.reduce == Reduce::Exact ? MpiReduction::Hub : MpiReduction::Collective);
    else
        collective = std::make_unique<ShmCollective>(env.collective, rank);
    return makeAllreduceUpdate(std::move(collective), std::move(settings), env.telemetry, rank);
}

void DataParallel::explain(RunSummary& summary) const {
    // Replicas in this process are compared bit for bit; MPI ranks by the
    // distance from their mean each measured after its last step (exactly
    // 0 only when every rank holds the same bits).
    const std::size_t bytes = std::size_t(host_.stores().run().size()) * sizeof(float);
    bool identical = true;
    for (const auto& r : host_.stores().workers())
        identical = identical && std::memcmp(r.data(), host_.parameters(), bytes) == 0;
    if (mpi())
        for (const double d : summary.divergence)
            identical = identical && d == 0.0;
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
    if (const std::string why = transportUnavailable(int(c.transport)); !why.empty())
        issues.push_back({"transport", std::string("transport ") + toString(c.transport) +
                                           " cannot be used: " + why});
    if (c.transport != Transport::Mpi) {
        for (const auto& [key, value] :
             {std::pair{"hostfile", &c.hostfile}, std::pair{"mpirun-args", &c.mpirunArgs}})
            if (!value->empty())
                issues.push_back({key, std::string(key) + " applies to --transport mpi only"});
        if (c.reduce != ExperimentConfig{}.reduce)
            issues.push_back({"reduce", "reduce applies to --transport mpi only (threads and "
                                        "processes always average in rank order, in double, "
                                        "as both MPI reductions do)"});
        return;
    }
    std::string error;
    splitMpirunArgs(c.mpirunArgs, error);
    if (!error.empty())
        issues.push_back({"mpirun-args", "mpirun-args \"" + c.mpirunArgs + "\" refused: " + error});
    std::error_code ec;
    if (!c.hostfile.empty() && !std::filesystem::is_regular_file(c.hostfile, ec))
        issues.push_back({"hostfile", "hostfile \"" + c.hostfile + "\" is not a file" +
                                          " (one host per line, e.g. \"node1 slots=4\"; this "
                                          "machine first, where rank 0 runs)"});
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
                 unsigned(StrategySetting::Device);
    t.divergence = DivergenceKind::ReplicaDistance;
    t.workerNoun = "rank";
    return {t, factoryOf<DataParallel>(), &validate};
}

} // namespace hwl
