// The GPU modes on a CUDA device (CTest label "gpu"), without Qt: the device
// bundle carries this binary to a GPU machine that has none (plaintest.h).
// Where there is no device (or no CUDA backend) every case reports SKIP with
// the reason, and CTest shows the test as skipped, never passed. With a
// device: runs through the engine first (their device process is a child: on
// a GPU in exclusive-process compute mode this process must not hold a
// context yet), then the module's trainers in this process: the device step
// equals the CPU step; CUDA graph replay equals eager launches; replicas stay
// bit-identical; the device's evaluation equals the CPU's; the CUDA backend
// matches the double CPU reference (backendcheck.h); NCCL with one rank
// works; fork is refused once this process initialised CUDA.
#include "backend/backend.h"
#include "backend/cuda/cudabackend.h"
#include "backend/cuda/deviceshapes.h"
#include "cuda/cuda.h"
#include "data/datasources.h"
#include "io/metricslog.h"
#include "launch/devices.h"
#include "model/mlp.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "strategy/devicestrategy.h"
#include "util/errors.h"

#include "backendcheck.h"
#include "enginetestutil.h"
#include "plaintest.h"
#include "strategy/validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace hwl;
using namespace hwl::test;
using plaintest::text;

namespace {

/// A run every device case can take on ONE GPU (gpusFor(c) == 1).
ExperimentConfig gpuConfig(const char* mode) {
    ExperimentConfig c;
    c.mode = mode;
    c.dataset = "teacher:4096x20:4:16";
    c.model = "mlp:20-32-4";
    c.epochs = 2;
    c.batch = 16;
    c.lr = 0.05;
    c.startMethod = StartMethod::Spawn;
    c.workers = 2;
    return c;
}

/// Data-parallel on cuda, both replicas on one GPU.
ExperimentConfig twoReplicasOnOneGpu() {
    ExperimentConfig c = gpuConfig("data-parallel");
    c.device = Device::Cuda;
    c.replicasPerGpu = 2;
    return c;
}

/// Data-parallel on cuda, 4 replicas on one GPU.
ExperimentConfig fourReplicasOnOneGpu() {
    ExperimentConfig c = twoReplicasOnOneGpu();
    c.workers = 4;
    c.replicasPerGpu = 4;
    return c;
}

/// gpu-hogwild with few weights: blocks write the same ones at once.
ExperimentConfig crowdedGpuHogwild() {
    ExperimentConfig c = gpuConfig("gpu-hogwild");
    c.momentum = 0;
    c.model = "mlp:20-8-4";
    c.blocks = 2048;
    c.workers = 4;
    return c;
}

/// Process Hogwild forked after the parent initialised CUDA (the pitfall).
ExperimentConfig forkAfterCuda() {
    ExperimentConfig c = gpuConfig("processes");
    c.startMethod = StartMethod::Fork;
    c.cudaBeforeFork = true;
    return c;
}

struct Fixture {
    std::unique_ptr<Model> model = makeModel(parseModelSpec("mlp:20-32-16-4"));
    Dataset data = makeTeacher(512, 20, 4, 8, 3);
    std::vector<float> params;
    Fixture() {
        params.resize(std::size_t(model->layout().total()));
        model->initialize(params.data(), 7);
    }
    cuda::ReplicaSettings settings(int replicas, bool eager) const {
        cuda::ReplicaSettings s;
        s.mlp = mlpShape(*model);
        s.replicasPerGpu = replicas;
        s.batch = 16;
        s.sgd = {0.05f, 0.9f, 0.001f};
        s.eager = eager;
        return s;
    }
    cuda::HostData host() const { return hostData(data.view()); }
    /// Replica r's rows: positions r, r + R, ... of the file order.
    static std::vector<std::vector<std::int32_t>> strided(int replicas, int rows) {
        std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(replicas));
        for (int i = 0; i < rows; ++i)
            out[std::size_t(i % replicas)].push_back(i);
        return out;
    }
};

// ---- through the engine (device process in a child)

/// `c` (data-parallel on cuda) trained on the GPU, and the serial run on
/// the CPU that its replicas together amount to: batch `serialBatch`, no
/// accumulation, the rest as `c`.
struct GpuAndSerial {
    std::vector<float> gpu, serial;
    ExperimentConfig serialConfig;
};
GpuAndSerial trainGpuAndSerial(ExperimentConfig c, int serialBatch) {
    GpuAndSerial out;
    const auto gpu = runToEnd(c);
    PT_CHECK2(gpu->summary().state == RunState::Finished, gpu->summary().failure);
    out.gpu = gpu->parameters();
    c.mode = "serial";
    c.device = Device::Cpu;
    c.workers = 1;
    c.replicasPerGpu = 1;
    c.batch = serialBatch;
    c.accumulate = 1;
    out.serial = runToEnd(c)->parameters();
    out.serialConfig = c;
    return out;
}

void dataParallelEqualsSerialWithTheBigBatch() {
    ExperimentConfig c = fourReplicasOnOneGpu();
    c.shuffle = false;
    c.testFraction = 0;
    const GpuAndSerial r = trainGpuAndSerial(c, 64);
    PT_CHECK2(maxAbsDiff(r.gpu, r.serial) < 1e-4, maxAbsDiff(r.gpu, r.serial));
}

// Under a schedule (cosine with warm-up) the replicas take each step's own
// rate: 4 replicas of batch 16 end where serial batch 64 under the same
// schedule does, and not where a constant rate does.
void dataParallelFollowsTheSchedule() {
    ExperimentConfig c = fourReplicasOnOneGpu();
    c.shuffle = false;
    c.testFraction = 0;
    c.epochs = 3;
    c.lrSchedule = "cosine";
    c.warmupSteps = 20;
    GpuAndSerial r = trainGpuAndSerial(c, 64);
    PT_CHECK2(maxAbsDiff(r.gpu, r.serial) < 1e-4, maxAbsDiff(r.gpu, r.serial));
    r.serialConfig.lrSchedule = "constant";
    r.serialConfig.warmupSteps = 0;
    const auto constant = runToEnd(r.serialConfig)->parameters();
    PT_CHECK2(maxAbsDiff(r.gpu, constant) > 1e-3, maxAbsDiff(r.gpu, constant));
}

// --accumulate 2 on 2 replicas of batch 8: one update per two micro-batches,
// the mean of their gradients, as serial batch 32 takes (the epoch's 4096
// rows end in a whole group, so every update has both).
ExperimentConfig accumulatingReplicas() {
    ExperimentConfig c = twoReplicasOnOneGpu();
    c.shuffle = false;
    c.testFraction = 0;
    c.batch = 8;
    c.accumulate = 2;
    return c;
}

void dataParallelAccumulates() {
    const GpuAndSerial r = trainGpuAndSerial(accumulatingReplicas(), 32);
    PT_CHECK2(maxAbsDiff(r.gpu, r.serial) < 1e-4, maxAbsDiff(r.gpu, r.serial));
    // Groups of 3: an epoch's 256 micro-batches end in a group of one (a
    // plain step), and the 64-step replays cut groups in two; serial batch 48
    // ends its epoch on the same 16 rows.
    ExperimentConfig three = accumulatingReplicas();
    three.accumulate = 3;
    const GpuAndSerial t = trainGpuAndSerial(three, 48);
    PT_CHECK2(maxAbsDiff(t.gpu, t.serial) < 1e-4, maxAbsDiff(t.gpu, t.serial));
}

/// A gpu-hogwild run of `epochs` under `schedule`: each epoch's rate and
/// mean loss, as its worker 0 reported them at the epoch's end.
std::pair<std::vector<float>, std::vector<float>> hogwildEpochs(const char* schedule, int epochs) {
    ExperimentConfig c = crowdedGpuHogwild();
    c.epochs = epochs;
    c.lrSchedule = schedule;
    c.shuffle = false; // every block the same rows each epoch: at one set of
                       // parameters, the same epoch loss
    MetricsLog log;
    const auto run = runToEnd(c, [&log](Run& r) { log.drain(r.telemetry()); });
    PT_CHECK2(run->summary().state == RunState::Finished, run->summary().failure);
    std::pair<std::vector<float>, std::vector<float>> out;
    log.forEach([&](const Sample& s) {
        if (s.kind == Sample::EpochEnd && s.worker == 0) {
            out.first.push_back(s.lr);
            out.second.push_back(s.loss);
        }
    });
    return out;
}

// gpu-hogwild under a step schedule: each epoch's kernel runs at that
// epoch's rate, and the epochs report it (step:1:0.5: 0.05, 0.025, 0.0125).
// The kernel takes it: with the rate all but 0 after the first epoch
// (step:1:1e-6) the next two epochs' losses are the same, where at a
// constant rate they fall.
void gpuHogwildFollowsAnEpochSchedule() {
    const auto halving = hogwildEpochs("step:1:0.5", 3).first;
    PT_CHECK2(
        (halving == std::vector<float>{0.05f, 0.025f, 0.0125f}),
        text(halving.size(), " epoch ends, the first at ", halving.empty() ? 0.0f : halving[0]));
    const auto still = hogwildEpochs("step:1:0.000001", 3).second;
    const auto constant = hogwildEpochs("constant", 3).second;
    PT_CHECK2(still.size() == 3 && constant.size() == 3,
              text(still.size(), " and ", constant.size()));
    const double flat = std::abs(still[2] - still[1]), falling = constant[1] - constant[2];
    PT_CHECK2(flat < 1e-4 * still[1] && falling > 100 * flat,
              text("losses of epochs 2 and 3: ", still[1], ", ", still[2], " (nearly no rate), ",
                   constant[1], ", ", constant[2], " (constant)"));
}

/// The CNN (cnn:mnist) on R replicas of batch 16, each `rows` rows an
/// epoch, with dropout: data-parallel on cuda, and then on the CPU.
ExperimentConfig cnnReplicas(int replicas, int rows, int epochs) {
    ExperimentConfig c = gpuConfig("data-parallel");
    c.device = Device::Cuda;
    c.model = "cnn:mnist";
    c.dataset = text("teacher:", replicas * rows, "x784:10");
    c.workers = replicas;
    c.replicasPerGpu = replicas;
    c.epochs = epochs;
    c.testFraction = 0;
    c.momentum = 0.5;
    return c;
}

/// How far the CNN trained on the GPU's replicas ends from the CPU's
/// data-parallel replicas (the same rows and the same dropout draws: the
/// seed, the epoch, the batch's place, the rank), tensor by tensor: the
/// largest of the tensors' 90th-percentile differences, and the largest
/// difference of all. A max-pool window whose two largest inputs differ by
/// less than the GEMMs' rounding may choose the other on the GPU and move a
/// few weights; a wrong index or another dropout draw moves most of a
/// tensor. `cpuDropout` stands in for the CPU run's dropout (the control).
struct CnnGap {
    double typical = 0, largest = 0;
};
CnnGap cnnGpuVersusCpu(ExperimentConfig c, double cpuDropout = -1) {
    const auto gpu = runToEnd(c);
    PT_CHECK2(gpu->summary().state == RunState::Finished, gpu->summary().failure);
    const auto model = makeModel(c.modelSpec());
    c.device = Device::Cpu;
    c.replicasPerGpu = 1;
    if (cpuDropout >= 0)
        c.dropout = cpuDropout;
    const auto cpu = runToEnd(c);
    PT_CHECK2(cpu->summary().state == RunState::Finished, cpu->summary().failure);
    const auto a = gpu->parameters(), b = cpu->parameters();
    CnnGap gap;
    for (const ParamTensor& t : model->layout().tensors()) {
        std::vector<double> d;
        for (std::int64_t j = t.offset; j < t.offset + t.size; ++j)
            d.push_back(std::abs(double(a[std::size_t(j)]) - double(b[std::size_t(j)])));
        std::sort(d.begin(), d.end());
        gap.typical = std::max(gap.typical, d[std::size_t(0.9 * double(d.size() - 1))]);
        gap.largest = std::max(gap.largest, d.back());
    }
    return gap;
}

// One step of R = 1, 3 and 8 replicas: every tensor's gradient (convolutions
// as im2col GEMMs, max-pool's choices, both dropouts' draws) lands where the
// CPU's does; the control (the CPU without dropout) is far from both bounds.
void cnnStepEqualsCpu() {
    constexpr double typical = 1e-5, largest = 5e-3;
    for (int replicas : {1, 3, 8}) {
        const CnnGap g = cnnGpuVersusCpu(cnnReplicas(replicas, 16, 1));
        PT_CHECK2(g.typical < typical && g.largest < largest,
                  text("R = ", replicas, ": ", g.typical, ", at most ", g.largest));
    }
    const CnnGap control = cnnGpuVersusCpu(cnnReplicas(3, 16, 1), 0.0);
    PT_CHECK2(control.typical > 10 * typical,
              text("the CPU without dropout ends only ", control.typical, " away"));
}

// Two epochs of 10 steps on 3 replicas stay with the CPU's.
void cnnTrainsAsTheCpu() {
    const CnnGap g = cnnGpuVersusCpu(cnnReplicas(3, 160, 2));
    PT_CHECK2(g.typical < 1e-4 && g.largest < 2e-2, text(g.typical, ", at most ", g.largest));
}

// A run's test figures come from the device, and equal the CPU's evaluation
// of the parameters it exports.
void runEvaluatesOnTheDevice() {
    ExperimentConfig c = twoReplicasOnOneGpu();
    c.testFraction = 0.25;
    const auto run = runToEnd(c);
    const RunSummary s = run->summary();
    PT_CHECK2(s.state == RunState::Finished, s.failure);
    PT_CHECK(std::any_of(s.remarks.begin(), s.remarks.end(), [](const std::string& r) {
        return r.find("evaluated on the device") != std::string::npos;
    }));
    const DatasetSplit data = loadDataset(c.datasetSpec(), c.testFraction, c.seed);
    const auto model = makeModel(c.modelSpec());
    const auto params = run->parameters();
    const EvalResult cpu = cpuBackend().evaluate(*model, params.data(), data.test.view());
    PT_CHECK2(std::abs(s.testLoss - cpu.meanLoss()) <= 1e-5,
              text(s.testLoss, " vs ", cpu.meanLoss()));
}

void gpuHogwildLosesUpdatesOnlyWhenRacy() {
    ExperimentConfig c = crowdedGpuHogwild();
    for (UpdateKind kind : {UpdateKind::Racy, UpdateKind::Atomic}) {
        c.update = kind;
        auto run = runToEnd(c);
        PT_CHECK2(run->summary().state == RunState::Finished, run->summary().failure);
        std::uint64_t writes = 0, lost = 0;
        for (const auto& w : run->telemetry().workers()) {
            writes += w.updateWrites;
            lost += w.lostUpdates;
        }
        PT_CHECK(writes > 0);
        if (kind == UpdateKind::Racy)
            PT_CHECK2(lost > 0, "racy updates lost none");
        else
            PT_CHECK2(lost == 0, text(lost, " atomic updates lost"));
    }
}

// ---- the module's trainers in this process

void deviceStepEqualsCpuStep() {
    Fixture f;
    auto gpu = cuda::ReplicaTrainer::create(f.settings(1, true), f.host());
    gpu->setParameters(f.params.data());
    gpu->setEpochRows(Fixture::strided(1, 16));
    gpu->enqueueSteps(0, 1, false);
    const float gpuLoss = gpu->finishSteps().at(0);
    std::vector<float> after(f.params.size());
    gpu->copyParameters(0, after.data());

    auto cpu = cpuBackend().makeKernel(*f.model, f.data.view(), {0.05f, 0.9f, 0.001f}, 0, 1);
    std::vector<std::int64_t> rows(16);
    std::iota(rows.begin(), rows.end(), 0);
    std::vector<float> cpuParams = f.params;
    const float cpuLoss = cpu->lossAndGradient(cpuParams.data(), rows.data(), 16);
    cpu->update(cpuParams.data(), UpdateAccess::Private);
    PT_CHECK2(std::abs(gpuLoss - cpuLoss) <= 1e-5f * std::max(1.0f, cpuLoss),
              text(gpuLoss, " vs ", cpuLoss));
    PT_CHECK2(maxAbsDiff(after, cpuParams) < 1e-5, maxAbsDiff(after, cpuParams));
}

void graphReplayEqualsEager() {
    Fixture f;
    std::vector<std::vector<float>> results;
    for (bool eager : {true, false}) {
        auto t = cuda::ReplicaTrainer::create(f.settings(2, eager), f.host());
        t->setParameters(f.params.data());
        t->setEpochRows(Fixture::strided(2, 500)); // 250 rows each: a short last batch
        t->enqueueSteps(0, 16, false);
        t->finishSteps();
        std::vector<float> p(f.params.size());
        t->copyParameters(1, p.data());
        results.push_back(p);
    }
    PT_CHECK2(results[1] == results[0], maxAbsDiff(results[1], results[0]));
}

// R = 3 and 4: the replicas' mean follows the CPU's rule (rankmean.h) for
// any R, so replicas stay bit-identical at distance exactly 0.
void replicasStayBitIdentical() {
    Fixture f;
    for (int replicas : {3, 4}) {
        auto t = cuda::ReplicaTrainer::create(f.settings(replicas, false), f.host());
        t->setParameters(f.params.data());
        t->setEpochRows(Fixture::strided(replicas, replicas * 128)); // every replica 128 rows
        t->enqueueSteps(0, 8, false);
        t->finishSteps();
        std::vector<float> first(f.params.size()), other(f.params.size());
        t->copyParameters(0, first.data());
        PT_CHECK(first != f.params);
        for (int r = 1; r < replicas; ++r) {
            t->copyParameters(r, other.data());
            PT_CHECK2(other == first, text("R ", replicas, ": replica ", r, " differs"));
        }
        for (double d : t->divergences())
            PT_CHECK2(d == 0.0, text("R ", replicas, ": divergence ", d));
    }
}

// The device's evaluation against the CPU's, over several chunks of 4096
// rows (the last one short): the MLP and the embedding bag.
void deviceEvaluationEqualsCpu(bool bag) {
    const auto m = makeModel(parseModelSpec(bag ? "embedding-bag:300-8-4" : "mlp:20-32-16-4"));
    const Dataset test = bag ? makeSparseBow(9000, 300, 4, 10, 8) : makeTeacher(9000, 20, 4, 8, 3);
    std::vector<float> params(static_cast<std::size_t>(m->layout().total()));
    m->initialize(params.data(), 7);
    const cuda::BagShape shape = bag ? bagShape(*m) : cuda::BagShape{};
    const auto evaluator = cuda::Evaluator::create(bag ? cuda::MlpShape{} : mlpShape(*m),
                                                   bag ? &shape : nullptr, hostData(test.view()));
    const cuda::EvalTotals got = evaluator->evaluateHost(params.data());
    const EvalResult want = cpuBackend().evaluate(*m, params.data(), test.view());
    PT_CHECK2(got.count == want.count, text(got.count, " vs ", want.count));
    PT_CHECK2(std::abs(got.lossSum - want.lossSum) <= 1e-5 * std::max(1.0, want.lossSum),
              text(got.lossSum, " vs ", want.lossSum));
    PT_CHECK(std::abs(double(got.correct - want.correct)) <= 2); // near ties may differ
}

// The CUDA backend on the Backend seam, case by case, against the double
// CPU reference (the same check tst_backends runs for every backend).
void cudaBackendAgainstTheReference(const std::string& name) {
    std::string why;
    const Backend* cuda = cudaBackend(&why);
    if (!cuda)
        PT_SKIP(why);
    try {
        const std::string differs = checkAgainstReference(*cuda, name);
        PT_CHECK2(differs.empty(), differs);
    } catch (const InputError& e) {
        PT_SKIP(e.what()); // a model the backend's step kernel does not train, by design
    }
}

/// NCCL is needed only by runs on more than one GPU: where it is not found
/// (the toolkit's folders, the loader's path, the nvidia-nccl wheels) the
/// case is skipped with the places searched; where it is, it says which
/// library it loaded and sums over one rank.
void ncclWithOneRank() {
    const std::string which = cuda::ncclStatus();
    if (which.rfind("NCCL not", 0) == 0)
        PT_SKIP(which);
    std::printf("NCCL loaded: %s\n", which.c_str());
    const std::string why = cuda::ncclOneRankCheck();
    PT_CHECK2(why.empty(), why + " (" + which + ")");
}

void forkIsRefusedAfterCudaInit() {
    Run run(forkAfterCuda());
    try {
        run.prepare();
    } catch (const InputError& e) {
        PT_CHECK2(std::string(e.what()).find("already initialised CUDA") != std::string::npos,
                  e.what());
        return;
    }
    PT_CHECK2(false, "fork after CUDA was not refused");
}

/// Host check, before any skip: every run case's experiment is valid (in a
/// build with the GPU modes) and fits the one GPU the device machine has; a
/// case that breaks either would fail there, where nobody can look, not here.
std::string invalidRunConfigs() {
    std::string out;
    ExperimentConfig scheduled = fourReplicasOnOneGpu(), stepped = crowdedGpuHogwild();
    scheduled.lrSchedule = "cosine";
    scheduled.warmupSteps = 20;
    stepped.lrSchedule = "step:1:0.5";
    for (const ExperimentConfig& c :
         {twoReplicasOnOneGpu(), fourReplicasOnOneGpu(), scheduled, accumulatingReplicas(),
          cnnReplicas(8, 16, 1), cnnReplicas(3, 160, 2), crowdedGpuHogwild(), stepped,
          forkAfterCuda()}) {
        if (c.device == Device::Cuda && gpusFor(c) != 1) // data-parallel's GPU count
            out += text(c.mode, ": ", c.workers, " workers at ", c.replicasPerGpu, " per GPU need ",
                        gpusFor(c), " GPUs; ");
        if (!cudaBuilt())
            continue; // the GPU modes are listed as not built, and refused
        try {
            validateExperimentOrThrow(c);
        } catch (const std::exception& e) {
            out += text(c.mode, ": ", e.what(), "; ");
        }
    }
    return out;
}

void initTestCase() {
    const DeviceList list = listDevices();
    if (list.devices.empty())
        PT_SKIP("no CUDA device to test on: " + list.unavailable);
    std::printf("%s", describeDevices(list).c_str());
}

} // namespace

int main(int argc, char** argv) {
    if (int code = 0; runWorkerRoleIfRequested(argc, argv, code))
        return code;
    if (const std::string why = invalidRunConfigs(); !why.empty()) {
        std::printf("FAIL!  : TestGpu::runConfigsAreValidOnOneGpu() %s\n", why.c_str());
        return 1;
    }
    std::printf("PASS   : TestGpu::runConfigsAreValidOnOneGpu()\n");
    std::vector<plaintest::Case> cases = {
        {"dataParallelEqualsSerialWithTheBigBatch", dataParallelEqualsSerialWithTheBigBatch},
        {"runEvaluatesOnTheDevice", runEvaluatesOnTheDevice},
        {"dataParallelFollowsTheSchedule", dataParallelFollowsTheSchedule},
        {"dataParallelAccumulates", dataParallelAccumulates},
        {"gpuHogwildFollowsAnEpochSchedule", gpuHogwildFollowsAnEpochSchedule},
        {"cnnStepEqualsCpu", cnnStepEqualsCpu},
        {"cnnTrainsAsTheCpu", cnnTrainsAsTheCpu},
        {"gpuHogwildLosesUpdatesOnlyWhenRacy", gpuHogwildLosesUpdatesOnlyWhenRacy},
        {"deviceStepEqualsCpuStep", deviceStepEqualsCpuStep},
        {"graphReplayEqualsEager", graphReplayEqualsEager},
        {"replicasStayBitIdentical", replicasStayBitIdentical},
        {"deviceEvaluationEqualsCpu(mlp)", [] { deviceEvaluationEqualsCpu(false); }},
        {"deviceEvaluationEqualsCpu(embedding bag)", [] { deviceEvaluationEqualsCpu(true); }},
    };
    for (const std::string& name : referenceCases())
        cases.push_back({"cudaBackendAgainstTheReference(" + name + ")",
                         [name] { cudaBackendAgainstTheReference(name); }});
    cases.push_back({"ncclWithOneRank", ncclWithOneRank});
    cases.push_back({"forkIsRefusedAfterCudaInit", forkIsRefusedAfterCudaInit}); // last: it forks
    return plaintest::run("TestGpu", initTestCase, cases, argc, argv);
}
