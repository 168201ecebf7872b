// Data-parallel training on GPUs (--mode data-parallel --device cuda): the
// run's `workers` replicas, `replicas-per-gpu` of them batched on each GPU,
// on their DistributedSampler shares of every epoch; gradients summed on the
// device in replica order and across GPUs by NCCL (one rank per GPU), so the
// replicas stay bit-identical; --sync-every K > 1 averages the parameters
// every K steps instead. Each replica is a worker in the telemetry. The
// learning rate follows --lr-schedule and --warmup-steps step by step, as a
// CPU worker's does.
#include "backend/cuda/deviceshapes.h"
#include "backend/devicetraining.h"
#include "strategy/builtin.h"
#include "strategy/devicestrategy.h"
#include "strategy/epochdealer.h"
#include "train/epochplan.h"
#include "util/errors.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace hwl {

namespace {

constexpr std::int64_t kStepsPerSync = 16;  // updates replayed between looks at the host
constexpr std::int64_t kMicroPerChunk = 64; // micro-batches at most (the device's loss history)

class GpuDataParallel final : public DeviceStrategy {
public:
    using DeviceStrategy::DeviceStrategy;

    std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const override {
        return std::make_shared<StridedEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                                  config_.shuffle, config_.dropLast, config_.seed);
    }
    void explain(RunSummary& summary) const override {
        explainEvaluation(summary);
        explainRowWaits(summary);
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
    int gpus() const { return gpusFor(config_); }
    bool train(const WorkerEnvironment& env, const DeviceTraining& device,
               DeviceWorkers& workers) const override;

private:
    struct Progress;
    /// One epoch's steps over the rows the trainer holds; their count, or
    /// -1 when the run must stop.
    std::int64_t trainEpoch(Progress& p, int epoch, DeviceWorkers& workers,
                            std::vector<double>& lossSum) const;
};

/// One device process's training state.
struct GpuDataParallel::Progress {
    std::unique_ptr<cuda::ReplicaTrainer> trainer;
    LrSchedule schedule;
    std::vector<float> rates; ///< the next chunk's steps' rates
    std::uint32_t replicas = 0;
    int batch = 32;
    std::uint64_t steps = 0, samples = 0;
    std::vector<float> divergence;
};

bool GpuDataParallel::train(const WorkerEnvironment& env, const DeviceTraining& device,
                            DeviceWorkers& workers) const {
    if (int(device.devices().devices.size()) < gpus())
        throw RunError("this machine has " + std::to_string(device.devices().devices.size()) +
                       " GPUs, and the run needs " + std::to_string(gpus()));
    cuda::ReplicaSettings s;
    s.cnnModel = env.model.spec().kind == ModelSpec::Kind::Cnn;
    if (s.cnnModel)
        s.cnn = cnnShape(env.model);
    else
        s.mlp = mlpShape(env.model);
    s.gpus = gpus();
    s.replicasPerGpu = config_.replicasPerGpu;
    s.batch = config_.batch;
    s.accumulate = config_.accumulate;
    s.sgd = deviceSgd(optimizerOf(config_).spec.sgd);
    Progress p;
    p.trainer = device.replicas(s, env.train);
    p.trainer->setParameters(env.params);
    DeviceTestEvaluation evaluation(device, env.model, workers);
    p.replicas = std::uint32_t(config_.workers);
    p.batch = s.batch;
    p.schedule = optimizerOf(config_).schedule;
    p.divergence.assign(p.replicas, 0.0f);
    for (std::uint32_t r = 0; r < p.replicas; ++r)
        workers.describe(r, "cuda:" + std::to_string(int(r) / s.replicasPerGpu) + ", " +
                                std::to_string(p.trainer->deviceBytes() >> 20) + " MiB");
    // The epochs' rows are dealt on host threads ahead of the device
    // (strategy/epochdealer.h): at hundreds of replicas a step is
    // microseconds, and one thread's shuffle would otherwise make the
    // device wait between epochs. How long it still waited is published.
    const auto plan = epochPlan(env.train.rows);
    EpochDealer dealer(
        plan, p.replicas, config_.epochs,
        EpochDealer::aheadFor(plan->samplesPerEpoch(), std::thread::hardware_concurrency()));
    for (int epoch = 1; epoch <= config_.epochs; ++epoch) {
        std::vector<double> lossSum(p.replicas, 0.0);
        p.trainer->setEpochRows(dealer.next(), epoch);
        workers.waitedForRows(epoch, dealer.lastWaitSeconds(), dealer.ahead());
        const std::int64_t steps = trainEpoch(p, epoch, workers, lossSum);
        // Local SGD ends each epoch averaged, as on the CPU (the exported
        // model is the replicas' mean); a stop keeps what was trained.
        if (config_.syncEvery > 1)
            p.trainer->averageParameters();
        p.trainer->copyParameters(0, env.params);
        if (steps < 0)
            return false;
        // On the device: replica 0 (the replicas are one model).
        evaluation.evaluate(p.trainer->deviceParameters(), epoch);
        const auto d = p.trainer->divergences();
        std::vector<float> epochLoss(p.replicas);
        for (std::uint32_t r = 0; r < p.replicas; ++r) {
            p.divergence[r] = float(d[r]);
            epochLoss[r] = float(lossSum[r] / double(std::max<std::int64_t>(1, steps)));
        }
        if (!workers.endEpoch(epoch, epochLoss, p.divergence))
            return false;
    }
    return true;
}

std::int64_t GpuDataParallel::trainEpoch(Progress& p, int epoch, DeviceWorkers& workers,
                                         std::vector<double>& lossSum) const {
    // The device steps micro-batches of `batch` rows (the last one of an
    // epoch may be short); an update takes `accumulate` of them (the last
    // group of an epoch may take fewer), as a CPU worker's step does.
    const cuda::EpochSteps e{p.trainer->rowsPerReplica(), p.batch, config_.accumulate};
    const std::int64_t micro = e.microBatches(), K = e.accumulate;
    const bool local = config_.syncEvery > 1;
    const auto S = std::uint64_t(config_.syncEvery);
    std::vector<double> groupLoss(p.replicas, 0.0);
    std::vector<float> latest(p.replicas, 0.0f);
    std::int64_t updates = 0;
    for (std::int64_t m = 0; m < micro;) {
        if (!workers.keepGoing())
            return -1;
        // Up to kStepsPerSync updates (with local SGD, to where the replicas
        // are averaged), at most kMicroPerChunk micro-batches.
        std::uint64_t chunkUpdates = kStepsPerSync;
        if (local)
            chunkUpdates = std::min(chunkUpdates, S - p.steps % S);
        const std::int64_t end = std::min(micro, (m / K + std::int64_t(chunkUpdates)) * K);
        const std::int64_t count = std::min(end - m, kMicroPerChunk);
        // Each micro-batch's rate is its update's, the schedule's at that
        // update's index over the run (as a CPU worker's step).
        p.rates.resize(std::size_t(count));
        for (std::int64_t j = 0; j < count; ++j)
            p.rates[std::size_t(j)] =
                float(p.schedule.rate(epoch, p.steps + std::uint64_t((m + j) / K - m / K)));
        workers.setRate(p.rates.back());
        p.trainer->enqueueSteps(m, count, local, p.rates.data());
        const std::vector<float> losses = p.trainer->finishSteps();
        bool averaged = false;
        for (std::int64_t j = 0; j < count; ++j, ++m) {
            for (std::uint32_t r = 0; r < p.replicas; ++r) {
                const float loss = losses[std::size_t(j * p.replicas + r)];
                if (!std::isfinite(loss))
                    throw RunError("training diverged: replica " + std::to_string(r) +
                                   "'s loss became " + std::to_string(loss) +
                                   "; lower the learning rate (--lr)");
                groupLoss[r] += loss;
            }
            p.samples += std::uint64_t(e.rowsOf(m));
            if (!e.endsUpdate(m))
                continue; // the update is not complete yet
            const std::int64_t group = e.groupOf(m);
            for (std::uint32_t r = 0; r < p.replicas; ++r) {
                latest[r] = float(groupLoss[r] / double(group));
                lossSum[r] += latest[r];
                groupLoss[r] = 0;
            }
            ++p.steps;
            ++updates;
            averaged = local && p.steps % S == 0;
        }
        if (averaged) {
            // The sawtooth: its top just before the averaging, 0 right after.
            const auto d = p.trainer->divergences();
            for (std::uint32_t r = 0; r < p.replicas; ++r)
                workers.stepped(r, epoch, p.steps, p.samples, latest[r], float(d[r]));
            p.trainer->averageParameters();
            std::fill(p.divergence.begin(), p.divergence.end(), 0.0f);
        }
        for (std::uint32_t r = 0; r < p.replicas; ++r)
            workers.stepped(r, epoch, p.steps, p.samples, latest[r], p.divergence[r]);
    }
    return updates;
}

void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (c.workers % c.replicasPerGpu != 0)
        issues.push_back(
            {"replicas-per-gpu", std::to_string(c.workers) + " replicas do not split evenly into " +
                                     std::to_string(c.replicasPerGpu) +
                                     " per GPU: make workers a multiple of replicas-per-gpu"});
    if (modelIs(c, ModelSpec::Kind::EmbeddingBag)) // the MLP and the CNN train here
        issues.push_back({"model", "data-parallel on cuda trains mlp models and cnn:mnist (the "
                                   "embedding bag runs on the GPU in mode gpu-hogwild)"});
    checkDeviceModel(c, modes::dataParallel, issues);
    checkDeviceOptimizer(c, modes::dataParallel, issues);
}

} // namespace

StrategyEntry gpuDataParallelStrategy() {
    StrategyTraits t;
    t.name = modes::dataParallel; // its CUDA variant
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
