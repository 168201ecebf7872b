#include "strategy/devicestrategy.h"

#include "backend/cuda/cudabackend.h"
#include "backend/devicetraining.h"
#include "launch/devices.h"
#include "model/embeddingbag.h"
#include "model/mlp.h"
#include "util/errors.h"

#include <cstdio>
#include <stdexcept>

#include <sys/syscall.h>
#include <unistd.h>

namespace hwl {

namespace {
/// The device link's two segment names, in WorkerEnvironment::collective.
std::pair<std::string, std::string> linkNames(const std::string& link) {
    const auto comma = link.find(',');
    if (comma == std::string::npos)
        throw RunError("the device link \"" + link + "\" is malformed");
    return {link.substr(0, comma), link.substr(comma + 1)};
}
} // namespace

DeviceWorkers::DeviceWorkers(const WorkerEnvironment& env)
    : telemetry_(env.telemetry), keepGoing_(env.telemetry, 0),
      lastSample_(env.telemetry.workerCount(), -1.0), lr_(float(env.config.lr)) {
    const auto [test, evaluations] = linkNames(env.collective);
    if (test != "-")
        test_ = SharedDataset::open(test);
    evaluations_ = SharedSegment::open(evaluations);
    for (std::uint32_t r = 0; r < count(); ++r) {
        auto& w = telemetry_.worker(r);
        w.pid.store(getpid(), std::memory_order_relaxed);
        w.threadId.store(std::uint64_t(syscall(SYS_gettid)), std::memory_order_relaxed);
        storeState(w.state, WorkerState::Running);
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
    s.lr = lr_;
    w.ring.push(s);
}

DeviceEvaluation* DeviceWorkers::evaluationSlot(int epoch) const {
    if (epoch < 1 || std::size_t(epoch) * sizeof(DeviceEvaluation) > evaluations_.size())
        return nullptr;
    return static_cast<DeviceEvaluation*>(evaluations_.data()) + (epoch - 1);
}

void DeviceWorkers::evaluated(int epoch, double lossSum, std::int64_t correct, std::int64_t count,
                              double seconds) {
    DeviceEvaluation* slot = evaluationSlot(epoch);
    if (!slot)
        return;
    slot->lossSum = lossSum;
    slot->correct = correct;
    slot->count = count;
    slot->seconds = seconds;
    slot->ready.store(DeviceEvaluation::Done, std::memory_order_release);
}

void DeviceWorkers::waitedForRows(int epoch, double seconds, int ahead) {
    if (DeviceEvaluation* slot = evaluationSlot(epoch)) {
        slot->rowWaitSeconds = seconds;
        slot->dealtAhead = ahead;
    }
}

void DeviceWorkers::evaluationFailed(int epoch, const std::string& why) {
    DeviceEvaluation* slot = evaluationSlot(epoch);
    if (!slot)
        return;
    std::snprintf(slot->why, sizeof slot->why, "%s", why.c_str());
    slot->ready.store(DeviceEvaluation::Failed, std::memory_order_release);
}

bool DeviceWorkers::endEpoch(int epoch, const std::vector<float>& epochLoss,
                             const std::vector<float>& divergence) {
    const std::uint32_t gate = gates::endOf(std::uint32_t(epoch));
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
        s.lr = lr_;
        w.lastDivergence.store(divergence[k], std::memory_order_relaxed);
        w.ring.push(s);
        w.lastEpochLoss.store(epochLoss[k], std::memory_order_relaxed);
        w.epoch.store(std::uint32_t(epoch), std::memory_order_release);
        w.gate.store(gate, std::memory_order_release);
    }
    auto& header = telemetry_.header();
    header.arrivals.fetch_add(1, std::memory_order_acq_rel);
    futexWakeAll(header.arrivals);
    if (header.epochGate &&
        !keepGoing_.waitUntil(header.released, [gate](std::uint32_t r) { return r >= gate; }))
        return false;
    return telemetry_.command() != RunCommand::Stop;
}

bool DeviceWorkers::keepGoing() {
    if (telemetry_.command() == RunCommand::Pause)
        for (std::uint32_t r = 1; r < count(); ++r)
            storeState(telemetry_.worker(r).state, WorkerState::Paused);
    const bool go = keepGoing_();
    for (std::uint32_t r = 1; r < count(); ++r)
        if (loadState(telemetry_.worker(r).state) == WorkerState::Paused)
            storeState(telemetry_.worker(r).state, WorkerState::Running);
    return go;
}

void DeviceWorkers::leave(bool finished) {
    const auto now = Telemetry::nowNs();
    for (std::uint32_t r = 0; r < count(); ++r) {
        auto& w = telemetry_.worker(r);
        if (loadState(w.state) != WorkerState::Failed)
            storeState(w.state, finished ? WorkerState::Finished : WorkerState::Stopped);
        w.finishNs.store(now, std::memory_order_release);
    }
}

void DeviceStrategy::prepare(RunResources& run, const float* initial) {
    const std::size_t linkBytes = SharedDataset::bytesFor(run.data.test) +
                                  std::size_t(config_.epochs) * sizeof(DeviceEvaluation);
    host_.prepareParameters(run, initial, {0, linkBytes});
    if (run.data.test.rows > 0)
        sharedTest_ = SharedDataset::create(run.data.test);
    evaluations_ = SharedSegment::create("evaluations",
                                         std::size_t(config_.epochs) * sizeof(DeviceEvaluation));
    auto* e = static_cast<DeviceEvaluation*>(evaluations_.data());
    for (int k = 0; k < config_.epochs; ++k)
        new (e + k) DeviceEvaluation;
    host_.placeData(run);
}

std::string DeviceStrategy::linkName() const {
    return (sharedTest_.name().empty() ? std::string("-") : sharedTest_.name()) + "," +
           evaluations_.name();
}

std::optional<EvalResult> DeviceStrategy::evaluation(std::uint32_t epoch, double& seconds) const {
    if (!evaluations_.data() || epoch < 1 || epoch > std::uint32_t(config_.epochs))
        return std::nullopt;
    const auto& slot = static_cast<const DeviceEvaluation*>(evaluations_.data())[epoch - 1];
    if (slot.ready.load(std::memory_order_acquire) != DeviceEvaluation::Done)
        return std::nullopt; // not evaluated there: the run evaluates on the CPU
    EvalResult r;
    r.lossSum = slot.lossSum;
    r.correct = slot.correct;
    r.count = slot.count;
    seconds = slot.seconds;
    return r;
}

void DeviceStrategy::explainEvaluation(RunSummary& summary) const {
    if (!evaluations_.data())
        return;
    const auto* slots = static_cast<const DeviceEvaluation*>(evaluations_.data());
    int onDevice = 0;
    for (int k = 0; k < config_.epochs; ++k) {
        const auto ready = slots[k].ready.load(std::memory_order_acquire);
        if (ready == DeviceEvaluation::Failed) {
            summary.remarks.push_back("the test set was evaluated on the CPU from epoch " +
                                      std::to_string(k + 1) + ": the device could not (" +
                                      slots[k].why + ")");
            return;
        }
        onDevice += ready == DeviceEvaluation::Done ? 1 : 0;
    }
    if (onDevice > 0)
        summary.remarks.push_back("the test set was evaluated on the device (" +
                                  std::to_string(onDevice) + " epoch" + (onDevice == 1 ? "" : "s") +
                                  ")");
}

void DeviceStrategy::explainRowWaits(RunSummary& summary) const {
    if (!evaluations_.data())
        return;
    // Read once the device process has left: its plain writes are all there.
    const auto* slots = static_cast<const DeviceEvaluation*>(evaluations_.data());
    double later = 0;
    int epochs = 0, ahead = 0;
    for (int k = 0; k < config_.epochs && slots[k].dealtAhead > 0; ++k) {
        later += k > 0 ? slots[k].rowWaitSeconds : 0.0;
        ahead = slots[k].dealtAhead;
        ++epochs;
    }
    if (epochs < 2)
        return;
    char text[200];
    std::snprintf(text, sizeof text,
                  "the host dealt the epochs' rows %d at a time; the device waited %.3f s for "
                  "them between epochs (%d epochs)",
                  ahead, later, epochs);
    summary.remarks.push_back(text);
}

void DeviceStrategy::finish() {
    host_.finish();
    sharedTest_.unlink();
    evaluations_.unlink();
}

WorkerSetup DeviceStrategy::setupWorker(const WorkerEnvironment&, std::uint32_t) const {
    throw std::logic_error("the GPU modes train in their device process (trainWorker)");
}

const Backend& DeviceStrategy::backend(BackendRole role) const {
    // Where CUDA cannot be had, the CPU's, which has no device side:
    // trainWorker then fails the run with CUDA's reason.
    const Backend* cuda = role == BackendRole::Worker ? cudaBackend() : nullptr;
    return cuda ? *cuda : cpuBackend();
}

void DeviceStrategy::trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const {
    if (rank != 0)
        return; // relayed: the device process drives it
    DeviceWorkers workers(env);
    bool finished = false;
    try {
        const DeviceTraining* device = env.backend.deviceTraining();
        if (!device) { // backend() gave the CPU's: CUDA could not be had, and says why
            std::string why;
            cudaBackend(&why);
            throw RunError(why.empty() ? "no CUDA device" : why);
        }
        finished = train(env, *device, workers);
    } catch (const std::exception& e) {
        workers.fail("the device process (pid " + std::to_string(getpid()) +
                     ") failed: " + e.what());
    }
    workers.leave(finished);
}

struct DeviceTestEvaluation::Impl {
    std::unique_ptr<cuda::Evaluator> evaluator;
};

DeviceTestEvaluation::DeviceTestEvaluation(const DeviceTraining& device, const Model& model,
                                           DeviceWorkers& workers)
    : impl_(std::make_unique<Impl>()), workers_(workers) {
    const DatasetView test = workers.test();
    const bool bag = dynamic_cast<const EmbeddingBag*>(&model) != nullptr;
    if (test.rows == 0 || (!bag && test.isSparse()))
        return; // nothing to evaluate, or the MLP on sparse rows: the CPU's
    try {
        impl_->evaluator = device.evaluator(model, test);
    } catch (const std::exception& e) { // e.g. no room for the test set beside the model
        workers.evaluationFailed(1, e.what());
    }
}

DeviceTestEvaluation::~DeviceTestEvaluation() = default;

void DeviceTestEvaluation::evaluate(const float* deviceParams, int epoch) {
    if (!impl_->evaluator)
        return;
    const auto start = Telemetry::nowNs();
    try {
        const cuda::EvalTotals e = impl_->evaluator->evaluate(deviceParams);
        workers_.evaluated(epoch, e.lossSum, e.correct, e.count,
                           double(Telemetry::nowNs() - start) * 1e-9);
    } catch (const std::exception& e) {
        workers_.evaluationFailed(epoch, e.what());
        impl_->evaluator.reset();
    }
}

std::vector<std::int32_t> rowsOf(const EpochPlan& plan, int epoch, std::uint32_t rank) {
    std::vector<std::int64_t> rows;
    plan.rows(epoch, rank, rows);
    return {rows.begin(), rows.end()};
}

std::vector<std::vector<std::int32_t>> replicaRows(const EpochPlan& plan, int epoch,
                                                   std::uint32_t replicas) {
    std::vector<std::vector<std::int64_t>> wide;
    plan.ranksRows(epoch, 0, replicas, wide);
    std::vector<std::vector<std::int32_t>> rows(replicas);
    for (std::uint32_t r = 0; r < replicas; ++r)
        rows[r].assign(wide[r].begin(), wide[r].end());
    return rows;
}

bool modelIs(const ExperimentConfig& config, ModelSpec::Kind kind) {
    try {
        return config.modelSpec().kind == kind;
    } catch (const std::exception&) {
        return false;
    }
}

int gpusFor(const ExperimentConfig& config) {
    return std::max(1, config.workers / std::max(1, config.replicasPerGpu));
}

void checkDeviceModel(const ExperimentConfig& config, const std::string& mode,
                      std::vector<ConfigIssue>& issues) {
    ModelSpec spec;
    try {
        spec = config.modelSpec();
    } catch (const std::exception&) {
        return; // the model field's own issue says what is wrong
    }
    if (spec.kind != ModelSpec::Kind::Net)
        return;
    std::string why;
    if (const std::string mlp = spec.mlpEquivalent(); !mlp.empty())
        why = "this network is " + mlp + ": write it so";
    else if (spec.input == TensorShape{1, 28, 28} && spec.net == mnistLayers())
        why = "this network is mnist_hogwild's: write cnn:mnist";
    else
        for (std::size_t i = 0; i < spec.net.size() && why.empty(); ++i) {
            const Layer::Op op = spec.net[i].op;
            if (op != Layer::Op::Fc && op != Layer::Op::Relu && op != Layer::Op::Tanh &&
                op != Layer::Op::Sigmoid)
                why = "its layer " + std::to_string(i + 1) + " (" + toString(spec.net[i]) +
                      ") is not one of theirs; run it in a CPU mode";
        }
    if (why.empty())
        why = "run it in a CPU mode";
    issues.push_back({"model", mode +
                                   " on the GPU trains mlp: networks and cnn:mnist, not a "
                                   "net: layer list: " +
                                   why});
}

void checkDeviceOptimizer(const ExperimentConfig& config, const std::string& mode,
                          std::vector<ConfigIssue>& issues) {
    if (config.optimizer != OptimizerKind::Sgd)
        issues.push_back({"optimizer", mode + " on the GPU takes --optimizer sgd, not " +
                                           toString(config.optimizer) +
                                           ": its device kernels apply SGD only (the CPU modes "
                                           "take every optimizer)"});
    else if (config.nesterov)
        issues.push_back({"nesterov", mode + " on the GPU takes SGD without --nesterov: its "
                                             "device kernels apply plain momentum only"});
}

} // namespace hwl
