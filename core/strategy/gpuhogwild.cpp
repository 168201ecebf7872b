// GPU Hogwild (--mode gpu-hogwild): `blocks` CUDA thread blocks each train
// on their own share of every epoch and update ONE parameter copy in device
// memory without locks; --update racy loses updates (each write replaced
// unseen is counted once, per group of blocks), --update atomic uses
// atomicAdd and loses none. The
// run's `workers` are groups of blocks (block b is in group b mod workers):
// the device process reads their counters from mapped memory while the
// kernel runs and is the single producer of their telemetry.
#include "backend/cuda/deviceshapes.h"
#include "backend/devicetraining.h"
#include "model/embeddingbag.h"
#include "strategy/builtin.h"
#include "strategy/devicestrategy.h"
#include "train/epochplan.h"
#include "util/errors.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace hwl {

namespace {

cuda::HogwildSettings settingsFor(const ExperimentConfig& c, const Model& model) {
    cuda::HogwildSettings s;
    if (dynamic_cast<const EmbeddingBag*>(&model)) {
        s.bag = true;
        s.bagShape = bagShape(model);
    } else {
        s.mlp = mlpShape(model);
    }
    s.blocks = c.blocks;
    s.groups = c.workers;
    s.batch = c.batch;
    s.atomic = c.update == UpdateKind::Atomic;
    s.sgd = deviceSgd(optimizerOf(c).spec.sgd);
    return s;
}

class GpuHogwild final : public DeviceStrategy {
public:
    using DeviceStrategy::DeviceStrategy;

    std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const override {
        // One order per epoch; the kernel splits it among the blocks.
        return std::make_shared<SliceEpochPlan>(trainRows, 1u, DataSplit::Shard, config_.shuffle,
                                                config_.seed);
    }
    void explain(RunSummary& summary) const override;

protected:
    bool train(const WorkerEnvironment& env, const DeviceTraining& device,
               DeviceWorkers& workers) const override;

private:
    /// Publishes the groups' counters; true while the kernel runs.
    static void publish(DeviceWorkers& workers, const cuda::HogwildTrainer& trainer, int epoch,
                        std::vector<std::uint64_t>& lastSteps, std::vector<double>& lastLoss);
};

void GpuHogwild::publish(DeviceWorkers& workers, const cuda::HogwildTrainer& trainer, int epoch,
                         std::vector<std::uint64_t>& lastSteps, std::vector<double>& lastLoss) {
    const auto counters = trainer.counters();
    for (std::uint32_t g = 0; g < counters.size(); ++g) {
        const auto& c = counters[g];
        auto& w = workers.telemetry().worker(g);
        w.updateWrites.store(c.writes, std::memory_order_relaxed);
        w.lostUpdates.store(c.lost, std::memory_order_relaxed);
        if (c.steps == lastSteps[g])
            continue;
        const float loss = float((c.lossSum - lastLoss[g]) / double(c.steps - lastSteps[g]));
        lastSteps[g] = c.steps;
        lastLoss[g] = c.lossSum;
        workers.stepped(g, epoch, c.steps, c.samples, loss, 0.0f);
    }
}

bool GpuHogwild::train(const WorkerEnvironment& env, const DeviceTraining& device,
                       DeviceWorkers& workers) const {
    const cuda::HogwildSettings settings = settingsFor(config_, env.model);
    if (!settings.bag && !env.train.dense)
        throw RunError("gpu-hogwild trains the MLP on dense rows; for sparse rows use "
                       "--model embedding-bag:V-D-C");
    auto trainer = device.hogwild(settings, env.train);
    trainer->setParameters(env.params);
    DeviceTestEvaluation evaluation(device, env.model, workers);
    for (std::uint32_t g = 0; g < workers.count(); ++g)
        workers.describe(g, "cuda:0, " + std::to_string(trainer->deviceBytes() >> 20) + " MiB");
    const auto plan = epochPlan(env.train.rows);
    std::vector<std::uint64_t> lastSteps(workers.count(), 0), epochSteps(workers.count(), 0);
    std::vector<double> lastLoss(workers.count(), 0.0), epochLossAt(workers.count(), 0.0);
    const LrSchedule schedule = optimizerOf(config_).schedule; // epoch by epoch: no warm-up here
    for (int epoch = 1; epoch <= config_.epochs; ++epoch) {
        const auto lr = float(schedule.rate(epoch, 0));
        trainer->setLearningRate(lr);
        workers.setRate(lr);
        trainer->launchEpoch(rowsOf(*plan, epoch, 0), false);
        bool stopped = false;
        while (!trainer->done()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            publish(workers, *trainer, epoch, lastSteps, lastLoss);
            if (workers.telemetry().command() == RunCommand::Run)
                continue;
            // Pause or stop: the blocks return after their current step.
            trainer->requestStop();
            while (!trainer->done())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (!workers.keepGoing()) {
                stopped = true;
                break;
            }
            trainer->launchEpoch({}, true); // resumed: each block from where it stopped
        }
        publish(workers, *trainer, epoch, lastSteps, lastLoss);
        trainer->copyParameters(env.params);
        if (stopped)
            return false;
        evaluation.evaluate(trainer->deviceParameters(), epoch);
        std::vector<float> epochLoss(workers.count()), divergence(workers.count(), 0.0f);
        for (std::uint32_t g = 0; g < workers.count(); ++g) {
            const auto n = lastSteps[g] - epochSteps[g];
            epochLoss[g] = n ? float((lastLoss[g] - epochLossAt[g]) / double(n)) : 0.0f;
            if (!std::isfinite(epochLoss[g]))
                throw RunError("training diverged: group " + std::to_string(g) + "'s loss became " +
                               std::to_string(epochLoss[g]) + "; lower the learning rate (--lr)");
            epochSteps[g] = lastSteps[g];
            epochLossAt[g] = lastLoss[g];
        }
        if (!workers.endEpoch(epoch, epochLoss, divergence))
            return false;
    }
    return true;
}

void GpuHogwild::explain(RunSummary& summary) const {
    explainEvaluation(summary);
    summary.remarks.push_back(
        std::string("gpu-hogwild: ") + std::to_string(config_.blocks) +
        " blocks updated one parameter copy without locks (" + toString(config_.update) +
        " updates); lost updates per group are in the worker table and the summary: a racy "
        "store that replaced another block's write (read by nobody) lost it; conflicts "
        "depend on how often blocks write the same parameters at once (a small "
        "vocabulary of the embedding bag, or the dense MLP's every weight, conflict most)");
}

void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    if (c.warmupSteps != 0)
        issues.push_back({"warmup-steps", "gpu-hogwild's blocks run each epoch at one rate: use "
                                          "--warmup-steps 0 (a step or cosine --lr-schedule "
                                          "changes the rate between epochs; the CPU modes and "
                                          "data-parallel on cuda warm up step by step)"});
    if (c.accumulate != 1)
        issues.push_back({"accumulate",
                          "gpu-hogwild updates after every batch on the GPU: use "
                          "--accumulate 1 (the CPU modes and data-parallel on cuda accumulate)"});
    checkDeviceModel(c, modes::gpuHogwild, issues);
    checkDeviceOptimizer(c, modes::gpuHogwild, issues);
    if (c.optimizer == OptimizerKind::Sgd && c.momentum != 0)
        issues.push_back({"momentum", "gpu-hogwild takes plain SGD (--momentum 0): each of "
                                      "thousands of blocks would need its own momentum buffer"});
    if (modelIs(c, ModelSpec::Kind::Cnn))
        issues.push_back({"model", "model cnn:mnist trains on the CPU or in data-parallel on "
                                   "cuda: gpu-hogwild's blocks know the mlp and the embedding "
                                   "bag"});
    if (c.workers > c.blocks)
        issues.push_back({"workers", "gpu-hogwild shows its blocks in " +
                                         std::to_string(c.workers) + " groups but runs only " +
                                         std::to_string(c.blocks) +
                                         " blocks: use at most as many workers as --blocks"});
}

} // namespace

StrategyEntry gpuHogwildStrategy() {
    StrategyTraits t;
    t.name = modes::gpuHogwild;
    t.cuda = true;
    t.label = "GPU Hogwild (CUDA blocks)";
    t.help = "thousands of CUDA blocks update one copy without locks (race demo; lost updates "
             "counted; workers = groups of blocks)";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::StartMethod) |
                 unsigned(StrategySetting::GpuBlocks);
    t.processes = true;
    t.divergence = DivergenceKind::None;
    t.workerNoun = "block group";
    return {t, factoryOf<GpuHogwild>(), &validate};
}

} // namespace hwl
