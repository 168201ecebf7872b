#include "strategy/strategy.h"

#include "config/optimizerconfig.h"
#include "train/epochplan.h"

namespace hwl {

std::shared_ptr<const EpochPlan> Strategy::epochPlan(std::int64_t trainRows) const {
    return std::make_shared<SliceEpochPlan>(trainRows, std::uint32_t(config_.workers),
                                            config_.split, config_.shuffle, config_.seed);
}

const Backend& Strategy::backend(BackendRole) const {
    return cpuBackend();
}

float Strategy::finalDivergence(const Telemetry& telemetry, std::uint32_t rank) const {
    return telemetry.worker(rank).lastDivergence.load();
}

void Strategy::trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const {
    WorkerSetup setup = setupWorker(env, rank);
    setup.resume = env.resume;
    runWorker(setup);
}

OptimizerSettings optimizerOf(const ExperimentConfig& config) {
    OptimizerSettings o;
    o.schedule = parseLrSchedule(config.lrSchedule);
    o.schedule.base = config.lr;
    o.schedule.epochs = config.epochs;
    o.schedule.warmupSteps = config.warmupSteps;
    o.spec = optimizerSpecOf(config);
    o.spec.sgd.lr = float(o.schedule.base);
    return o;
}

} // namespace hwl
