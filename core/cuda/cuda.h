#pragma once
// The CUDA backend (the optional module libhwl_cuda.so, built when nvcc is
// found, loaded at run time): plain C++ types only, so nothing outside
// core/cuda includes a CUDA header. The engine defines the functions and
// factories below in core/cuda/loader.cpp: each loads the module on first use
// (cuda/api.h, the one table the module exports) and calls through it, so a
// process that never calls them maps no CUDA library. Where the module cannot
// load (not built, a CUDA library missing), initialise() reports it as "no
// device" and the factories throw std::runtime_error with the loader's words.
//
// Who may call what: initialise() is the ONE place a process initialises
// CUDA, and only processes that never fork afterwards call anything here
// (the spawned device probe, the GPU modes' device process, the
// CUDA-before-fork pitfall on purpose). The window's process and any parent
// that forks workers only ask initialisedHere().
//
// Threading: a trainer is used by one thread (the device process's driver
// thread); it runs its own threads, one per GPU, inside its calls.
#include "cuda/gpudevice.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hwl::cuda {

struct DeviceReport {
    std::vector<GpuDevice> devices;
    std::string error; ///< why there is no device ("cudaGetDeviceCount returned 35, ...")
    int driverVersion = 0, runtimeVersion = 0, ncclVersion = 0; ///< as CUDA and NCCL encode them
};

/// Initialises CUDA in this process and lists its devices (every failure is
/// "no device", with CUDA's code and words in `error`).
DeviceReport initialise();
/// Whether this process has called initialise().
bool initialisedHere();
/// What a process forked after initialise() meets when it uses CUDA:
/// cudaFree(0)'s words in the child ("cudaFree(0) returned 3,
/// initialization error"), run on a helper thread and given up after
/// `timeoutMs` (then "no answer within ... ms: the call hangs").
std::string tryCudaInForkedChild(int timeoutMs);

/// A one-rank NCCL communicator on device 0 all-reduces a small buffer:
/// empty when it worked, else NCCL's or CUDA's words.
std::string ncclOneRankCheck();
/// Loads NCCL (the first time; it is otherwise loaded only for a run on more
/// than one GPU) and says which: "NCCL 2.28.9 (/path/libnccl.so.2)", or
/// "NCCL not found: ..." with every place searched.
std::string ncclStatus();
/// Where the CUDA module was loaded from, or why it could not be (does not
/// initialise CUDA).
std::string moduleStatus();

/// The benchmark of the replicas' device reduce: seconds per mean of
/// `replicas` gradient buffers of `params` floats on device 0 (the
/// reduceReplicasKernel of a one-GPU data-parallel step: a double sum in
/// replica order, the CPU collectives' rule), averaged over `repeats`.
double timeReplicaReduce(std::int64_t params, int replicas, int repeats);

/// A model the device trains, as the engine's ParamLayout places it.
struct MlpShape {
    struct Layer {
        std::int64_t in, out, weight, bias; ///< widths and offsets in the flat buffer
    };
    std::vector<Layer> layers;
    int activation = 0; ///< devicemath::ActivationCode
    std::int64_t total = 0;
};
/// PyTorch's mnist_hogwild network (model/net.h, cnn:mnist) as the device trains it:
/// conv1, max-pool 2, ReLU, conv2, Dropout2d, max-pool 2, ReLU, fc1, ReLU,
/// dropout, fc2; the offsets of its eight tensors in the flat buffer.
struct CnnShape {
    std::int64_t side = 28, kernel = 5, conv1 = 10, conv2 = 20, hidden = 50, classes = 10;
    std::int64_t conv1Weight = 0, conv1Bias = 0, conv2Weight = 0, conv2Bias = 0;
    std::int64_t fc1Weight = 0, fc1Bias = 0, fc2Weight = 0, fc2Bias = 0, total = 0;
    double dropout = 0;     ///< both dropouts' probability (0: none)
    std::uint64_t seed = 0; ///< the run's seed: the dropout draws' (model/modelspec.h)
    /// Rows the CPU kernel takes through the network at once (NetKernel::group(),
    /// 0: all): a step's dropout draws go group by group (util/dropoutdraws.h).
    std::int64_t dropoutGroup = 0;
    std::int64_t side1() const { return side - kernel + 1; }            ///< conv1's output side
    std::int64_t pooled1() const { return side1() / 2; }                ///< after the first pool
    std::int64_t side2() const { return pooled1() - kernel + 1; }       ///< conv2's output side
    std::int64_t pooled2() const { return side2() / 2; }                ///< after the second pool
    std::int64_t flat() const { return conv2 * pooled2() * pooled2(); } ///< fc1's input
};
struct BagShape {
    std::int64_t vocab = 0, dim = 0, classes = 0;
    std::int64_t table = 0, weight = 0, bias = 0, total = 0;
};

/// A training set as the host holds it (dense rows or CSR bags).
struct HostData {
    std::int64_t rows = 0, dim = 0;
    int classes = 0;
    const float* dense = nullptr;
    const std::int64_t* offsets = nullptr;
    const std::int32_t* indices = nullptr;
    const float* values = nullptr;
    const std::int32_t* labels = nullptr;
};

struct Sgd {
    float lr = 0.01f, momentum = 0.0f, weightDecay = 0.0f;
};

/// One replica's epoch in steps: its `rows` in micro-batches of `batch` (the
/// last one may be short), `accumulate` of them to an update (the last group
/// may be short), as a CPU worker's loop takes them. The one arithmetic of
/// the replica trainer and of the mode that drives it.
struct EpochSteps {
    std::int64_t rows = 0, batch = 1, accumulate = 1;
    std::int64_t microBatches() const { return (rows + batch - 1) / batch; }
    /// Rows of micro-batch k.
    std::int64_t rowsOf(std::int64_t k) const {
        return k + 1 < microBatches() ? batch : rows - (microBatches() - 1) * batch;
    }
    /// Micro-batches in the update that micro-batch k belongs to.
    std::int64_t groupOf(std::int64_t k) const {
        return std::min(accumulate, microBatches() - k / accumulate * accumulate);
    }
    /// Whether micro-batch k completes its update.
    bool endsUpdate(std::int64_t k) const { return k % accumulate == groupOf(k) - 1; }
};

/// The length every replica's epoch rows share: throws std::invalid_argument
/// naming the first replica whose length differs, or a count of vectors other
/// than `replicas` (the device keeps one block of replicas x length rows).
inline std::int64_t commonRowCount(const std::vector<std::vector<std::int32_t>>& rows,
                                   std::size_t replicas) {
    if (rows.size() != replicas || rows.empty())
        throw std::invalid_argument("epoch rows: " + std::to_string(rows.size()) +
                                    " replicas' rows given, the trainer has " +
                                    std::to_string(replicas));
    for (std::size_t r = 1; r < rows.size(); ++r)
        if (rows[r].size() != rows[0].size())
            throw std::invalid_argument(
                "epoch rows: replica " + std::to_string(r) + " has " +
                std::to_string(rows[r].size()) + " rows, replica 0 has " +
                std::to_string(rows[0].size()) +
                ": every replica takes the same number of steps, so they must be equal");
    return std::int64_t(rows[0].size());
}

/// Data-parallel replicas on GPUs: `replicasPerGpu` replicas on each of
/// `gpus` devices (0 .. gpus-1), all in lockstep: their forward and backward
/// passes run as strided-batched cuBLAS GEMMs over the replicas, their
/// gradients are averaged by the CPU collectives' rule (collective/rankmean.h:
/// a double sum in replica order, then divided by N; across GPUs NCCL adds
/// the GPUs' double sums, one rank per GPU), and every replica applies
/// the same SGD step, so they stay bit-identical. A step is captured once in
/// CUDA graphs and replayed.
struct ReplicaSettings {
    MlpShape mlp;
    /// The CNN instead of the MLP (`cnn` then describes it; `mlp` is unused).
    bool cnnModel = false;
    CnnShape cnn;
    int gpus = 1, replicasPerGpu = 1;
    int batch = 32; ///< per replica
    /// Micro-batches per update (--accumulate): the steps the trainer
    /// counts are micro-batches, and every `accumulate`-th (or an epoch's
    /// last) applies the mean of its group's gradients, as the CPU's.
    int accumulate = 1;
    Sgd sgd;
    bool eager = false; ///< launch every kernel each step instead of replaying graphs (tests)
};

class ReplicaTrainer {
public:
    virtual ~ReplicaTrainer() = default;
    /// Uploads the data once and captures the step. Throws std::runtime_error
    /// with CUDA's, cuBLAS's or NCCL's words.
    static std::unique_ptr<ReplicaTrainer> create(const ReplicaSettings& settings,
                                                  const HostData& train);
    /// Every replica's parameters (momentum buffers zeroed).
    virtual void setParameters(const float* host) = 0;
    /// The next epoch's rows: rows[r] for global replica r, all of one length;
    /// `epoch` (from 1) names the dropout draws of its batches, as a CPU
    /// worker's (the CNN's).
    virtual void setEpochRows(const std::vector<std::vector<std::int32_t>>& rows,
                              int epoch = 1) = 0;
    /// The length of each replica's rows in the epoch set last (0 before).
    virtual std::int64_t rowsPerReplica() const = 0;
    /// Enqueues steps [first, first + count) of the epoch (each replica's
    /// batch: its rows [step * batch, ...), the last one possibly short).
    /// `ownGradients`: each replica steps on its own gradient (local SGD)
    /// instead of the replicas' mean. `lrs`: each of the `count` steps' learning
    /// rate (a schedule's), or null for the settings' lr.
    virtual void enqueueSteps(std::int64_t first, std::int64_t count, bool ownGradients,
                              const float* lrs = nullptr) = 0;
    /// Waits for what was enqueued; the mean loss of each replica's batch at
    /// each of those steps, step-major (count x replicas).
    virtual std::vector<float> finishSteps() = 0;
    /// Averages the replicas' parameters (not their momentum buffers).
    virtual void averageParameters() = 0;
    /// Each replica's L2 distance from the replicas' mean (in double: exactly
    /// 0 for bit-identical replicas).
    virtual std::vector<double> divergences() = 0;
    /// Replica `replica`'s parameters into host memory.
    virtual void copyParameters(int replica, float* host) = 0;
    /// Replica 0's parameters where they live, on device 0 (for an Evaluator).
    virtual const float* deviceParameters() const = 0;
    /// Device memory this trainer holds, all GPUs together.
    virtual std::int64_t deviceBytes() const = 0;
};

/// Evaluation on the device: loss (in double) and accuracy of parameters
/// that live on device 0 over a test set uploaded once, in chunks of rows,
/// the rows' losses added in row order (the CPU's figure to float rounding).
struct EvalTotals {
    double lossSum = 0;
    std::int64_t correct = 0, count = 0;
};
class Evaluator {
public:
    virtual ~Evaluator() = default;
    /// `bag` null: the MLP `mlp`; else the embedding bag `*bag`.
    static std::unique_ptr<Evaluator> create(const MlpShape& mlp, const BagShape* bag,
                                             const HostData& test);
    /// Over every test row, with `deviceParams` (the model's flat buffer on
    /// device 0, which nothing writes meanwhile).
    virtual EvalTotals evaluate(const float* deviceParams) = 0;
    /// The same with parameters in host memory (uploaded first).
    virtual EvalTotals evaluateHost(const float* hostParams) = 0;
};

/// One worker's step on device 0, for the CUDA backend's StepKernel: the
/// MLP's mean loss and its gradient over some training rows at parameters
/// the host holds (uploaded each call, the gradient downloaded), the same
/// kernels as the replicas' step. The SGD update is the host's (optim/sgd.h).
class StepRunner {
public:
    virtual ~StepRunner() = default;
    /// `maxRows`: the most rows one call passes.
    static std::unique_ptr<StepRunner> create(const MlpShape& mlp, const HostData& train,
                                              int maxRows);
    /// Mean loss of rows[0..n) at `params` (mlp.total floats); the gradient
    /// of that mean into `grad` (mlp.total floats), both on the host.
    virtual float lossAndGradient(const float* params, const std::int32_t* rows, int n,
                                  float* grad) = 0;
};

/// GPU Hogwild: `blocks` thread blocks each train on their own samples and
/// update ONE parameter copy in global memory without locks. Racy updates
/// load and store with relaxed cuda::atomic_ref (a store is an exchange, so
/// the value it replaced tells whether another block wrote meanwhile: that
/// write is lost, and counted); atomic updates use atomicAdd.
struct HogwildSettings {
    bool bag = false; ///< the embedding bag, else the MLP
    MlpShape mlp;
    BagShape bagShape;
    int blocks = 1024, groups = 2, batch = 32;
    bool atomic = false;
    Sgd sgd;
};

/// What one group of blocks has done so far (read while the kernel runs).
struct GroupCounters {
    std::uint64_t steps = 0, samples = 0;
    std::uint64_t writes = 0; ///< parameter updates attempted (expected writes)
    std::uint64_t lost = 0;   ///< writes another block overwrote before anyone read them
    double lossSum = 0;       ///< sum of batch losses over `steps`
};

class HogwildTrainer {
public:
    virtual ~HogwildTrainer() = default;
    static std::unique_ptr<HogwildTrainer> create(const HogwildSettings& settings,
                                                  const HostData& train);
    virtual void setParameters(const float* host) = 0;
    /// Starts one epoch over `order` (block b takes its share, contiguous),
    /// from where a paused launch left off when `resume`.
    virtual void launchEpoch(const std::vector<std::int32_t>& order, bool resume) = 0;
    /// The rate of the epochs launched from now on (a schedule's, epoch by
    /// epoch; the settings' lr at first).
    virtual void setLearningRate(float lr) = 0;
    /// Asks the running kernel to stop after its blocks' current steps.
    virtual void requestStop() = 0;
    /// Whether the kernel is done (finished its epoch, or stopped).
    virtual bool done() = 0;
    /// Whether the last launch covered its whole epoch (false: stopped early).
    virtual bool epochComplete() = 0;
    virtual std::vector<GroupCounters> counters() const = 0;
    virtual void copyParameters(float* host) = 0;
    /// The one parameter copy, on device 0 (for an Evaluator, between launches).
    virtual const float* deviceParameters() const = 0;
    virtual std::int64_t deviceBytes() const = 0;
};

} // namespace hwl::cuda
