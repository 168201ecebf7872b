#include "strategy/devicestrategy.h"

#include "run/devices.h"
#include "strategy/registry.h"
#include "util/errors.h"

#include <stdexcept>

#include <sys/syscall.h>
#include <unistd.h>

namespace hwl {

DeviceWorkers::DeviceWorkers(const WorkerEnvironment& env)
    : telemetry_(env.telemetry), keepGoing_(env.telemetry, 0),
      lastSample_(env.telemetry.workerCount(), -1.0) {
    for (std::uint32_t r = 0; r < count(); ++r) {
        auto& w = telemetry_.worker(r);
        w.pid.store(getpid(), std::memory_order_relaxed);
        w.threadId.store(std::uint64_t(syscall(SYS_gettid)), std::memory_order_relaxed);
        w.state.store(std::uint32_t(WorkerState::Running), std::memory_order_release);
    }
}

void DeviceWorkers::stepped(std::uint32_t r, int epoch, std::uint64_t steps, std::uint64_t samples,
                            float loss, float divergence) {
    auto& w = telemetry_.worker(r);
    if (w.steps.load(std::memory_order_relaxed) == 0 && steps > 0)
        w.startupNs.store(Telemetry::nowNs() - w.launchNs.load(std::memory_order_relaxed));
    w.steps.store(steps, std::memory_order_relaxed);
    w.samples.store(samples, std::memory_order_relaxed);
    w.lastLoss.store(loss, std::memory_order_relaxed);
    w.lastDivergence.store(divergence, std::memory_order_relaxed);
    const double now = telemetry_.elapsed();
    if (now - lastSample_[r] < 0.002)
        return;
    lastSample_[r] = now;
    Sample s;
    s.kind = Sample::Step;
    s.worker = std::int32_t(r);
    s.epoch = std::uint32_t(epoch);
    s.step = steps;
    s.samples = samples;
    s.time = now;
    s.loss = loss;
    s.divergence = divergence;
    w.ring.push(s);
}

bool DeviceWorkers::endEpoch(int epoch, const std::vector<float>& epochLoss,
                             const std::vector<float>& divergence) {
    // Rank 0 last: the coordinator's gate looks at it (the others are relayed).
    for (std::uint32_t k = count(); k-- > 0;) {
        auto& w = telemetry_.worker(k);
        Sample s;
        s.kind = Sample::EpochEnd;
        s.worker = std::int32_t(k);
        s.epoch = std::uint32_t(epoch);
        s.step = w.steps.load(std::memory_order_relaxed);
        s.samples = w.samples.load(std::memory_order_relaxed);
        s.time = telemetry_.elapsed();
        s.loss = epochLoss[k];
        s.divergence = divergence[k];
        w.lastDivergence.store(divergence[k], std::memory_order_relaxed);
        w.ring.push(s);
        w.lastEpochLoss.store(epochLoss[k], std::memory_order_relaxed);
        w.epoch.store(std::uint32_t(epoch), std::memory_order_release);
    }
    auto& header = telemetry_.header();
    header.arrivals.fetch_add(1, std::memory_order_acq_rel);
    futexWakeAll(header.arrivals);
    if (header.epochGate && !keepGoing_.waitUntil(header.released, [epoch](std::uint32_t r) {
            return r >= std::uint32_t(epoch);
        }))
        return false;
    return telemetry_.command() != RunCommand::Stop;
}

bool DeviceWorkers::keepGoing() {
    if (telemetry_.command() == RunCommand::Pause)
        for (std::uint32_t r = 1; r < count(); ++r)
            telemetry_.worker(r).state.store(std::uint32_t(WorkerState::Paused));
    const bool go = keepGoing_();
    for (std::uint32_t r = 1; r < count(); ++r)
        if (telemetry_.worker(r).state.load() == std::uint32_t(WorkerState::Paused))
            telemetry_.worker(r).state.store(std::uint32_t(WorkerState::Running));
    return go;
}

void DeviceWorkers::leave(bool finished) {
    const auto now = Telemetry::nowNs();
    for (std::uint32_t r = 0; r < count(); ++r) {
        auto& w = telemetry_.worker(r);
        if (w.state.load(std::memory_order_acquire) != std::uint32_t(WorkerState::Failed))
            w.state.store(std::uint32_t(finished ? WorkerState::Finished : WorkerState::Stopped),
                          std::memory_order_release);
        w.finishNs.store(now, std::memory_order_release);
    }
}

WorkerSetup DeviceStrategy::setupWorker(const WorkerEnvironment&, std::uint32_t) const {
    throw std::logic_error("the GPU modes train in their device process (trainWorker)");
}

void DeviceStrategy::trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const {
    if (rank != 0)
        return; // relayed: the device process drives it
    DeviceWorkers workers(env);
    bool finished = false;
    try {
        finished = train(env, workers);
    } catch (const std::exception& e) {
        workers.fail("the device process (pid " + std::to_string(getpid()) +
                     ") failed: " + e.what());
    }
    workers.leave(finished);
}

#ifdef HWL_HAVE_CUDA
cuda::HostData hostData(const DatasetView& v) {
    return {v.rows, v.dim, v.numClasses, v.dense, v.offsets, v.indices, v.values, v.labels};
}

cuda::Sgd deviceSgd(const ExperimentConfig& c) {
    return {float(c.lr), float(c.momentum), float(c.weightDecay)};
}

std::vector<std::int32_t> rowsOf(const EpochPlan& plan, int epoch, std::uint32_t rank) {
    std::vector<std::int64_t> rows;
    plan.rows(epoch, rank, rows);
    return {rows.begin(), rows.end()};
}
#endif

std::string deviceShortfall(const ExperimentConfig& config) {
    const StrategyTraits* t = findStrategy(config);
    if (!t || !t->cuda || !t->unavailable.empty())
        return {};
    const DeviceList list = listDevices();
    if (list.devices.empty())
        return list.unavailable;
    const int gpus = t->takes(StrategySetting::GpuReplicas)
                         ? std::max(1, config.workers / std::max(1, config.replicasPerGpu))
                         : 1;
    if (int(list.devices.size()) < gpus)
        return std::to_string(config.workers) + " replicas at " +
               std::to_string(config.replicasPerGpu) + " per GPU need " + std::to_string(gpus) +
               " GPUs, and this machine has " + std::to_string(list.devices.size()) +
               ": raise --replicas-per-gpu or lower --workers";
    return {};
}

} // namespace hwl
