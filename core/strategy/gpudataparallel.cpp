// Data-parallel training on GPUs (--mode data-parallel --device cuda): the
// run's `workers` replicas, `replicas-per-gpu` of them batched on each GPU,
// on their DistributedSampler shares of every epoch; gradients summed on the
// device in replica order and across GPUs by NCCL (one rank per GPU), so the
// replicas stay bit-identical; --sync-every K > 1 averages the parameters
// every K steps instead. Each replica is a worker in the telemetry.
#include "model/mlp.h"
#include "strategy/builtin.h"
#include "strategy/devicestrategy.h"
#include "train/epochplan.h"
#include "util/errors.h"

#include <algorithm>
#include <cmath>

namespace hwl {

namespace {

constexpr std::int64_t kStepsPerSync = 16; // steps replayed between looks at the host

cuda::MlpShape mlpShape(const Model& model) {
    const auto* mlp = dynamic_cast<const Mlp*>(&model);
    if (!mlp)
        throw InputError("model: data-parallel on cuda trains mlp models (the embedding bag "
                         "runs on the GPU in mode gpu-hogwild)");
    cuda::MlpShape s;
    for (const auto& l : mlp->layers())
        s.layers.push_back({l.in, l.out, l.weight, l.bias});
    s.activation = int(model.spec().activation);
    s.total = model.layout().total();
    return s;
}

class GpuDataParallel final : public DeviceStrategy {
public:
    using DeviceStrategy::DeviceStrategy;

    std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const override {
        return std::make_shared<StridedEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                                  config_.shuffle, config_.dropLast, config_.seed);
    }
    void explain(RunSummary& summary) const override {
        if (config_.syncEvery == 1)
            summary.remarks.push_back(
                "the " + std::to_string(config_.workers) + " replicas (" +
                std::to_string(config_.replicasPerGpu) +
                " per GPU) summed their gradients on the device in a fixed order" +
                (gpus() > 1 ? " and across GPUs with NCCL" : "") +
                ", so they stayed bit-identical (divergence 0)");
        else
            summary.remarks.push_back(
                "the replicas stepped alone for " + std::to_string(config_.syncEvery) +
                " steps, then their parameters (not their momentum buffers) were averaged: the "
                "divergence is the sawtooth of local SGD");
    }

protected:
    int gpus() const { return std::max(1, config_.workers / std::max(1, config_.replicasPerGpu)); }
    bool train(const WorkerEnvironment& env, DeviceWorkers& workers) const override;
};

bool GpuDataParallel::train(const WorkerEnvironment& env, DeviceWorkers& workers) const {
    const cuda::DeviceReport report = cuda::initialise();
    if (int(report.devices.size()) < gpus())
        throw RunError(report.error.empty() ? "this machine has too few GPUs" : report.error);
    cuda::ReplicaSettings s;
    s.mlp = mlpShape(env.model);
    s.gpus = gpus();
    s.replicasPerGpu = config_.replicasPerGpu;
    s.batch = config_.batch;
    s.sgd = deviceSgd(config_);
    auto trainer = cuda::ReplicaTrainer::create(s, hostData(env.train));
    trainer->setParameters(env.params);
    const auto replicas = std::uint32_t(config_.workers);
    for (std::uint32_t r = 0; r < replicas; ++r)
        workers.describe(r, "cuda:" + std::to_string(int(r) / s.replicasPerGpu) + ", " +
                                std::to_string(trainer->deviceBytes() >> 20) + " MiB");
    const auto plan = epochPlan(env.train.rows);
    const bool local = config_.syncEvery > 1;
    std::uint64_t steps = 0, samples = 0;
    std::vector<float> divergence(replicas, 0.0f);
    for (int epoch = 1; epoch <= config_.epochs; ++epoch) {
        std::vector<std::vector<std::int32_t>> rows;
        for (std::uint32_t r = 0; r < replicas; ++r)
            rows.push_back(rowsOf(*plan, epoch, r));
        trainer->setEpochRows(rows);
        const auto perReplica = std::int64_t(rows[0].size());
        const std::int64_t epochSteps = (perReplica + s.batch - 1) / s.batch;
        std::vector<double> lossSum(replicas, 0.0);
        for (std::int64_t k = 0; k < epochSteps;) {
            if (!workers.keepGoing())
                return false;
            std::int64_t count = std::min(kStepsPerSync, epochSteps - k);
            if (local)
                count = std::min<std::int64_t>(count, config_.syncEvery -
                                                          std::int64_t(steps % config_.syncEvery));
            trainer->enqueueSteps(k, count, local);
            const std::vector<float> losses = trainer->finishSteps();
            for (std::int64_t j = 0; j < count; ++j)
                for (std::uint32_t r = 0; r < replicas; ++r) {
                    const float loss = losses[std::size_t(j * replicas + r)];
                    if (!std::isfinite(loss))
                        throw RunError("training diverged: replica " + std::to_string(r) +
                                       "'s loss became " + std::to_string(loss) + "; lower --lr");
                    lossSum[r] += loss;
                }
            const std::int64_t lastN =
                k + count == epochSteps ? perReplica - (epochSteps - 1) * s.batch : s.batch;
            samples += std::uint64_t((count - 1) * s.batch + lastN);
            steps += std::uint64_t(count);
            k += count;
            if (local && steps % std::uint64_t(config_.syncEvery) == 0) {
                const auto d = trainer->divergences(); // the sawtooth's top
                for (std::uint32_t r = 0; r < replicas; ++r)
                    workers.stepped(r, epoch, steps, samples,
                                    losses[std::size_t((count - 1) * replicas + r)], float(d[r]));
                trainer->averageParameters();
            }
            for (std::uint32_t r = 0; r < replicas; ++r)
                workers.stepped(r, epoch, steps, samples,
                                losses[std::size_t((count - 1) * replicas + r)], divergence[r]);
        }
        const auto d = trainer->divergences();
        std::vector<float> epochLoss(replicas);
        for (std::uint32_t r = 0; r < replicas; ++r) {
            divergence[r] = float(d[r]);
            epochLoss[r] = float(lossSum[r] / double(std::max<std::int64_t>(1, epochSteps)));
        }
        trainer->copyParameters(0, env.params);
        if (!workers.endEpoch(epoch, epochLoss, divergence))
            return false;
    }
    return true;
}

void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (c.workers % c.replicasPerGpu != 0)
        issues.push_back(
            {"replicas-per-gpu", std::to_string(c.workers) + " replicas do not split evenly into " +
                                     std::to_string(c.replicasPerGpu) +
                                     " per GPU: make workers a multiple of replicas-per-gpu"});
    bool mlp = true;
    try {
        mlp = c.modelSpec().kind == ModelSpec::Kind::Mlp;
    } catch (const std::exception&) { // validate() reports the model text itself
    }
    if (!mlp)
        issues.push_back({"model", "data-parallel on cuda trains mlp models (the embedding bag "
                                   "runs on the GPU in mode gpu-hogwild)"});
}

} // namespace

StrategyEntry gpuDataParallelStrategy() {
    StrategyTraits t;
    t.name = "data-parallel";
    t.cuda = true;
    t.label = "data-parallel (DDP)";
    t.help = "on --device cuda: replicas per GPU reduced on the device, NCCL across GPUs";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::StartMethod) |
                 unsigned(StrategySetting::Replicas) | unsigned(StrategySetting::Device) |
                 unsigned(StrategySetting::GpuReplicas);
    t.processes = true;
    t.divergence = DivergenceKind::ReplicaDistance;
    t.workerNoun = "replica";
    return {t, factoryOf<GpuDataParallel>(), &validate};
}

} // namespace hwl
