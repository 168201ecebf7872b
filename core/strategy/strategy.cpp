#include "strategy/strategy.h"

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

LrSchedule lrScheduleOf(const ExperimentConfig& config) {
    LrSchedule s = parseLrSchedule(config.lrSchedule);
    s.base = config.lr;
    s.epochs = config.epochs;
    s.warmupSteps = config.warmupSteps;
    return s;
}

SgdSettings sgdSettings(const ExperimentConfig& config) {
    return {float(config.lr), float(config.momentum), float(config.weightDecay)};
}

} // namespace hwl
