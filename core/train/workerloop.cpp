#include "train/workerloop.h"

#include "util/random.h"

#include <cmath>
#include <numeric>

#include <sys/syscall.h>
#include <unistd.h>

namespace hwl {

namespace {
constexpr double kSampleEverySeconds = 0.002; // at most 500 step samples/s per worker

// Waits at the epoch gate until the coordinator released `epoch` or a stop.
// A pause while waiting shows as Paused (the coordinator wakes the gate on
// every command change).
void waitForRelease(Telemetry& t, WorkerStatus& status, std::uint32_t epoch) {
    auto& released = t.header().released;
    while (true) {
        const auto r = released.load(std::memory_order_acquire);
        const RunCommand command = t.command();
        if (r >= epoch || command == RunCommand::Stop)
            break;
        status.state.store(std::uint32_t(command == RunCommand::Pause ? WorkerState::Paused
                                                                      : WorkerState::Running),
                           std::memory_order_release);
        futexWait(released, r, 100);
    }
    status.state.store(std::uint32_t(WorkerState::Running), std::memory_order_release);
}

// Blocks while the run is paused; returns false when asked to stop.
bool honourPause(Telemetry& t, WorkerStatus& status) {
    auto& command = t.header().command;
    if (command.load(std::memory_order_relaxed) == std::uint32_t(RunCommand::Run))
        return true;
    while (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Pause)) {
        status.state.store(std::uint32_t(WorkerState::Paused), std::memory_order_release);
        futexWait(command, std::uint32_t(RunCommand::Pause), 200);
    }
    if (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Stop))
        return false;
    status.state.store(std::uint32_t(WorkerState::Running), std::memory_order_release);
    return true;
}
} // namespace

void epochRows(std::int64_t rows, int epoch, std::uint32_t rank, std::uint32_t workers,
               DataSplit split, bool shuffle, std::uint64_t seed, std::vector<std::int64_t>& out) {
    out.resize(std::size_t(rows));
    std::iota(out.begin(), out.end(), std::int64_t(0));
    if (shuffle) {
        // Shard: one shared permutation per epoch. Replicate: one per worker.
        Rng rng(
            Rng::derive(seed, std::uint64_t(epoch), split == DataSplit::Replicate ? rank + 1 : 0));
        for (std::int64_t i = rows - 1; i > 0; --i)
            std::swap(out[std::size_t(i)], out[rng.below(std::uint64_t(i + 1))]);
    }
    if (split == DataSplit::Shard) {
        const std::int64_t begin = rows * rank / workers, end = rows * (rank + 1) / workers;
        out.erase(out.begin() + end, out.end());
        out.erase(out.begin(), out.begin() + begin);
    }
}

WorkerPlan makeWorkerPlan(const ExperimentConfig& config, const Model& model, float* params,
                          const DatasetView& train, Telemetry& telemetry) {
    WorkerPlan plan;
    plan.model = &model;
    plan.params = params;
    plan.train = train;
    plan.telemetry = &telemetry;
    plan.workers = std::uint32_t(config.workers);
    plan.epochs = config.epochs;
    plan.batch = config.batch;
    plan.split = config.split;
    plan.shuffle = config.shuffle;
    plan.seed = config.seed;
    plan.sgd = {float(config.lr), float(config.momentum), float(config.weightDecay)};
    plan.measureStaleness = config.workers > 1 && config.share;
    plan.replica = !config.share;
    return plan;
}

std::uint64_t stalenessInterval(std::int64_t parameterCount) {
    return std::max<std::uint64_t>(32, std::uint64_t(parameterCount / 8192));
}

void runWorker(const WorkerPlan& plan) {
    Telemetry& t = *plan.telemetry;
    WorkerStatus& status = t.worker(plan.rank);
    // However the loop is left: the end of this worker's training window.
    struct StampFinish {
        WorkerStatus& status;
        ~StampFinish() { status.finishNs.store(Telemetry::nowNs(), std::memory_order_release); }
    } stampFinish{status};
    status.pid.store(getpid(), std::memory_order_relaxed);
    status.threadId.store(std::uint64_t(syscall(SYS_gettid)), std::memory_order_relaxed);
    try {
        const Model& model = *plan.model;
        const std::int64_t total = model.layout().total();
        Workspace<float> ws;
        AlignedVector<float> velocity(plan.sgd.momentum > 0 ? std::size_t(total) : 0, 0.0f);
        AlignedVector<float> before;
        const std::uint64_t staleEvery = stalenessInterval(total);
        std::vector<std::int64_t> order;
        std::uint64_t steps = 0, samples = 0;
        double lastSampleTime = -1;
        float lastDivergence = 0;
        auto sample = [&](Sample::Kind kind, int epoch, double time, float loss) {
            Sample s;
            s.kind = kind;
            s.worker = std::int32_t(plan.rank);
            s.epoch = std::uint32_t(epoch);
            s.step = steps;
            s.samples = samples;
            s.time = time;
            s.loss = loss;
            s.divergence = lastDivergence;
            return s;
        };
        status.state.store(std::uint32_t(WorkerState::Running), std::memory_order_release);

        for (int epoch = 1; epoch <= plan.epochs; ++epoch) {
            epochRows(plan.train.rows, epoch, plan.rank, plan.workers, plan.split, plan.shuffle,
                      plan.seed, order);
            double lossSum = 0;
            std::uint64_t batches = 0;
            for (std::size_t start = 0; start < order.size(); start += std::size_t(plan.batch)) {
                if (!honourPause(t, status)) {
                    status.state.store(std::uint32_t(WorkerState::Stopped));
                    return;
                }
                const auto n =
                    std::int64_t(std::min(order.size() - start, std::size_t(plan.batch)));
                const bool measure = plan.measureStaleness && steps % staleEvery == 0;
                if (measure) {
                    before.resize(std::size_t(total));
                    hogwild::snapshot(plan.params, total, before.data());
                }
                const float loss =
                    model.lossAndGradient(plan.params, plan.train, order.data() + start, n, ws);
                if (!std::isfinite(loss)) {
                    t.failWorker(plan.rank, "training diverged: the loss became " +
                                                std::to_string(loss) + " at step " +
                                                std::to_string(steps + 1) + " of worker " +
                                                std::to_string(plan.rank) + "; lower --lr");
                    return;
                }
                if (measure)
                    lastDivergence = float(hogwild::staleness(plan.params, before.data(), ws.grad));
                else if (plan.replica)
                    lastDivergence = status.replicaDistance.load(std::memory_order_relaxed);
                if (plan.updateLock) {
                    std::lock_guard lock(*plan.updateLock);
                    hogwild::applyUpdate(plan.params, ws.grad, velocity.data(), plan.sgd, plan.rank,
                                         plan.workers);
                } else {
                    hogwild::applyUpdate(plan.params, ws.grad, velocity.data(), plan.sgd, plan.rank,
                                         plan.workers);
                }
                ++steps;
                samples += std::uint64_t(n);
                lossSum += loss;
                ++batches;
                if (steps == 1)
                    status.startupNs.store(Telemetry::nowNs() -
                                           status.launchNs.load(std::memory_order_relaxed));
                status.steps.store(steps, std::memory_order_relaxed);
                status.samples.store(samples, std::memory_order_relaxed);
                status.lastLoss.store(loss, std::memory_order_relaxed);
                const double now = t.elapsed();
                if (now - lastSampleTime >= kSampleEverySeconds) {
                    lastSampleTime = now;
                    status.lastDivergence.store(lastDivergence, std::memory_order_relaxed);
                    status.ring.push(sample(Sample::Step, epoch, now, loss));
                }
            }
            const float epochLoss = batches ? float(lossSum / double(batches)) : 0.0f;
            status.ring.push(sample(Sample::EpochEnd, epoch, t.elapsed(), epochLoss));
            status.lastEpochLoss.store(epochLoss, std::memory_order_relaxed);
            status.epoch.store(std::uint32_t(epoch), std::memory_order_release);
            t.header().arrivals.fetch_add(1, std::memory_order_acq_rel);
            futexWakeAll(t.header().arrivals);
            if (t.header().epochGate)
                waitForRelease(t, status, std::uint32_t(epoch));
            if (t.command() == RunCommand::Stop) {
                status.state.store(std::uint32_t(WorkerState::Stopped));
                return;
            }
        }
        status.state.store(std::uint32_t(WorkerState::Finished), std::memory_order_release);
    } catch (const std::exception& e) {
        t.failWorker(plan.rank,
                     std::string("worker ") + std::to_string(plan.rank) + " failed: " + e.what());
    }
}

} // namespace hwl
