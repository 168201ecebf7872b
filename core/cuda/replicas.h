#pragma once
// Data-parallel replicas on GPUs (cuda.h, ReplicaTrainer), private to
// core/cuda: replicas.cu trains them; steprunner.cu runs one replica's
// gradient for the CUDA backend's StepKernel with the same kernels.
#include "cuda/check.h"
#include "cuda/cuda.h"
#include "cuda/products.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace hwl::cuda::module {

/// Device memory that frees itself and counts what it holds.
template <class T>
struct Buffer {
    T* p = nullptr;
    std::int64_t n = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept : p(std::exchange(o.p, nullptr)), n(std::exchange(o.n, 0)) {}
    Buffer& operator=(Buffer&& o) noexcept {
        std::swap(p, o.p);
        std::swap(n, o.n);
        return *this;
    }
    ~Buffer() {
        if (p)
            cudaFree(p);
    }
    void allocate(std::int64_t count, std::int64_t& bytes) {
        if (p) {
            cudaFree(p);
            bytes -= n * std::int64_t(sizeof(T));
            p = nullptr;
        }
        check(cudaMalloc(&p, std::size_t(count > 1 ? count : 1) * sizeof(T)), "cudaMalloc");
        n = count;
        bytes += count * std::int64_t(sizeof(T));
    }
};

/// The CNN's activations and their gradients for every replica of a GPU,
/// each replica's packed after the other's by the step's n rows (as the
/// MLP's): after backend/cpu/netkernel.cpp's steps.
struct CnnBuffers {
    Buffer<float> p1, z1, a1, p2, z2, a2, h, h1, logits; ///< forward
    Buffer<float> scale2, scale3;                        ///< the dropouts' factors
    Buffer<float> delta, dh, da2, dz2, dp2, da1, dz1;    ///< backward
    Buffer<std::int32_t> pick1, pick2;                   ///< each pool's chosen input
    /// The dropout streams' seeds of step k's replicas at [k % kLossHistory][r],
    /// on the device and pinned on the host (written before each replay).
    Buffer<unsigned long long> seeds;
    unsigned long long* hostSeeds = nullptr;
    ~CnnBuffers() {
        if (hostSeeds)
            cudaFreeHost(hostSeeds);
    }
};

/// One GPU's replicas: parameters, momentum and gradients with stride P,
/// activations with stride batch x width.
struct Gpu {
    int device = 0;
    int first = 0; ///< its first replica's global index
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    ncclComm_t comm = nullptr; ///< with more than one GPU
    Buffer<float> params, velocity, grads, gradMean, data, x, rowLoss, losses, delta, deltaPrev;
    Buffer<float> accumulated;       ///< --accumulate: the group's gradients so far
    std::unique_ptr<CnnBuffers> cnn; ///< the CNN's (null for the MLP)
    Buffer<float> workspace;
    std::vector<Buffer<float>> pre, post;
    Buffer<std::int32_t> labels, y, rows;
    Buffer<double> sum; ///< the replicas' double sums (parameters; gradients across GPUs)
    Buffer<double> distance;
    Buffer<long long> step;
    long long* hostStep = nullptr; ///< pinned: the step the next replays start from
    /// The learning rate of step k at [k % kLossHistory], on the device and
    /// pinned on the host (a schedule's rates, written before each replay).
    Buffer<float> lrs;
    float* hostLrs = nullptr;
    /// (rows, own gradients, phase: Replicas::phaseOf) -> the step's graph
    std::map<std::tuple<int, bool, int>, cudaGraphExec_t> graphs;
    std::int64_t bytes = 0;

    void destroyGraphs() {
        for (auto& [key, exec] : graphs)
            cudaGraphExecDestroy(exec);
        graphs.clear();
    }
    ~Gpu() {
        cudaSetDevice(device);
        destroyGraphs();
        if (blas)
            cublasDestroy(blas);
        if (hostStep)
            cudaFreeHost(hostStep);
        if (hostLrs)
            cudaFreeHost(hostLrs);
        if (stream)
            cudaStreamDestroy(stream);
    }
};

class Replicas final : public ReplicaTrainer {
public:
    Replicas(const ReplicaSettings& s, const HostData& train);
    ~Replicas() override;
    void setParameters(const float* host) override;
    void setEpochRows(const std::vector<std::vector<std::int32_t>>& rows, int epoch) override;
    std::int64_t rowsPerReplica() const override { return rowsPerReplica_; }
    void enqueueSteps(std::int64_t first, std::int64_t count, bool own, const float* lrs) override;
    std::vector<float> finishSteps() override;
    void averageParameters() override;
    std::vector<double> divergences() override;
    void copyParameters(int replica, float* host) override;
    const float* deviceParameters() const override { return gpus_[0]->params.p; }
    std::int64_t deviceBytes() const override;

    /// StepRunner's step (one GPU, one replica, eager; steprunner.cu): the
    /// mean loss of rows[0..n) (n <= the batch) at host `params`, and its
    /// gradient d(mean loss)/d(params) into host `grad`. No update.
    float gradientAt(const float* params, const std::int32_t* rows, int n, float* grad);

private:
    /// Thrown by drain() on the threads of the other GPUs when one failed.
    struct PeerFailed {};

    void setUp(Gpu& g, const HostData& train);
    void setUpMlp(Gpu& g);
    /// Floats per training row the gather copies (the MLP's input width, or
    /// the CNN's image).
    std::int64_t inputWidth() const;
    void warmUp(Gpu& g);
    /// gather, forward, loss, backward: every replica's own gradient.
    void recordGradients(Gpu& g, int n);
    /// Micro-batch k's part in its update: 0 the first of a group (its
    /// gradients kept), -1 a middle one (added), c >= 1 the last of a group
    /// of c (the mean of the c applied; 1: a step without accumulation).
    int phaseOf(std::int64_t k) const;
    void recordStep(Gpu& g, int n, bool own, int phase);
    void recordMean(Gpu& g);
    void replay(Gpu& g, std::int64_t first, std::int64_t count, bool own, const float* lrs);
    cudaGraphExec_t capture(Gpu& g, int n, bool own, int phase);
    void forward(Gpu& g, int n);
    void backward(Gpu& g, int n);
    /// One of the step's replica-batched products (products.h) on g's
    /// replicas: C_r = op(A_r) op(B_r); `what` names it in an error.
    void product(Gpu& g, const devicemath::BatchedProduct& p, const float* A, const float* B,
                 float* C, const char* what) const;
    /// The CNN (cnnreplicas.cu): its buffers, forward and backward passes
    /// (after the gather, before the softmax; the step's dropout factors
    /// drawn first), and the dropout seeds of steps [first, first + count).
    void setUpCnn(Gpu& g);
    void forwardCnn(Gpu& g, int n);
    void backwardCnn(Gpu& g, int n);
    void writeNoiseSeeds(Gpu& g, std::int64_t first, std::int64_t count);
    /// fn(gpu) on every GPU at once (one thread each when there are several:
    /// NCCL ranks of one process must not wait on each other from one thread).
    template <class Fn>
    void onEach(Fn&& fn);
    /// Waits for g's stream. With several GPUs it polls, and leaves
    /// (PeerFailed) when another GPU's thread failed or NCCL reports an error,
    /// rather than wait forever in a collective for a peer that will not come.
    void drain(Gpu& g, const char* what);
    /// After a failure on one GPU (every thread has left): graphs first, then
    /// every communicator aborted; the trainer refuses further work.
    void abortAll(const std::string& why);
    void sumParameters();

    ReplicaSettings s_;
    int R_;
    std::int64_t P_;
    const Nccl* nccl_ = nullptr; ///< loaded with more than one GPU
    std::int64_t rowsPerReplica_ = 0;
    int epoch_ = 1; ///< the epoch setEpochRows() was given (the dropout draws')
    /// The epoch's micro-batches and updates, for rowsPerReplica_ rows.
    EpochSteps epochSteps() const { return {rowsPerReplica_, s_.batch, s_.accumulate}; }
    std::int64_t lastStep_ = 0, lastCount_ = 0;
    bool pending_ = false;            ///< steps enqueued, not yet finished
    std::atomic<bool> failed_{false}; ///< a GPU's thread failed in the current onEach
    std::string broken_;              ///< why the communicators were aborted
    std::vector<std::unique_ptr<Gpu>> gpus_;
};

} // namespace hwl::cuda::module
