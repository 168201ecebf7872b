// Data-parallel replicas on GPUs (cuda.h, ReplicaTrainer). Per GPU: R
// replicas' parameters, momentum and gradients, one after the other; a step
// is gather -> per layer a strided-batched GEMM over the replicas, bias and
// activation -> softmax cross-entropy -> backward GEMMs -> the replicas'
// gradients summed in replica order -> (NCCL sum across GPUs) -> every
// replica's SGD step. It is recorded once per batch size and update kind as
// a CUDA graph and replayed; the step number lives on the device, so a
// replay needs nothing from the host.
#include "cuda/check.h"
#include "cuda/cuda.h"
#include "cuda/kernels.cuh"

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>
#include <utility>

namespace hwl::cuda {

namespace {

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
        check(cudaMalloc(&p, std::size_t(std::max<std::int64_t>(count, 1)) * sizeof(T)),
              "cudaMalloc");
        n = count;
        bytes += count * std::int64_t(sizeof(T));
    }
};

struct Gpu {
    int device = 0;
    int first = 0; ///< its first replica's global index
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    ncclComm_t comm = nullptr;
    Buffer<float> params, velocity, grads, gradSum, data, x, rowLoss, losses, delta, deltaPrev;
    Buffer<float> workspace;
    std::vector<Buffer<float>> pre, post;
    Buffer<std::int32_t> labels, y, rows;
    Buffer<double> paramSum, distance;
    Buffer<long long> step;
    long long* hostStep = nullptr; ///< pinned: the step the next replays start from
    std::map<std::pair<int, bool>, cudaGraphExec_t> graphs;
    std::int64_t bytes = 0;

    ~Gpu() {
        cudaSetDevice(device);
        for (auto& [key, exec] : graphs)
            cudaGraphExecDestroy(exec);
        if (blas)
            cublasDestroy(blas);
        if (hostStep)
            cudaFreeHost(hostStep);
        if (stream)
            cudaStreamDestroy(stream);
    }
};

class Replicas final : public ReplicaTrainer {
public:
    Replicas(const ReplicaSettings& s, const HostData& train);
    void setParameters(const float* host) override;
    void setEpochRows(const std::vector<std::vector<std::int32_t>>& rows) override;
    void enqueueSteps(std::int64_t first, std::int64_t count, bool own) override;
    std::vector<float> finishSteps() override;
    void averageParameters() override;
    std::vector<double> divergences() override;
    void copyParameters(int replica, float* host) override;
    const float* deviceParameters() const override { return gpus_[0]->params.p; }
    ~Replicas() override {
        // The communicators of one clique finish together (one thread, one group).
        ncclGroupStart();
        for (auto& g : gpus_)
            if (g->comm)
                ncclCommFinalize(g->comm);
        ncclGroupEnd();
        for (auto& g : gpus_)
            if (g->comm)
                ncclCommDestroy(g->comm);
    }
    std::int64_t deviceBytes() const override {
        std::int64_t b = 0;
        for (const auto& g : gpus_)
            b += g->bytes;
        return b;
    }

private:
    void setUp(Gpu& g, const HostData& train);
    void recordStep(Gpu& g, int n, bool own);
    void replay(Gpu& g, std::int64_t first, std::int64_t count, bool own);
    cudaGraphExec_t capture(Gpu& g, int n, bool own);
    void forward(Gpu& g, int n);
    void backward(Gpu& g, int n);
    /// fn(gpu) on every GPU at once (one thread each when there are several:
    /// NCCL ranks of one process must not wait on each other from one thread).
    template <class Fn>
    void onEach(Fn&& fn);
    void sumParameters();

    ReplicaSettings s_;
    int R_;
    std::int64_t P_;
    std::int64_t rowsPerReplica_ = 0;
    std::int64_t lastStep_ = 0, lastCount_ = 0;
    bool pending_ = false; ///< steps enqueued, not yet finished
    std::vector<std::unique_ptr<Gpu>> gpus_;
};

template <class Fn>
void Replicas::onEach(Fn&& fn) {
    if (gpus_.size() == 1) {
        check(cudaSetDevice(gpus_[0]->device), "cudaSetDevice");
        fn(*gpus_[0]);
        return;
    }
    std::vector<std::thread> threads;
    std::vector<std::string> errors(gpus_.size());
    for (std::size_t i = 0; i < gpus_.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                check(cudaSetDevice(gpus_[i]->device), "cudaSetDevice");
                fn(*gpus_[i]);
            } catch (const std::exception& e) {
                errors[i] = "GPU " + std::to_string(gpus_[i]->device) + ": " + e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (!e.empty()) {
            // Peers may wait in a collective for the GPU that failed: abort
            // every communicator, so that nothing waits for it any more.
            for (auto& g : gpus_)
                if (g->comm) {
                    ncclCommAbort(g->comm);
                    g->comm = nullptr;
                }
            throw std::runtime_error(e);
        }
}

Replicas::Replicas(const ReplicaSettings& s, const HostData& train)
    : s_(s), R_(s.replicasPerGpu), P_(s.mlp.total) {
    if (!train.dense)
        throw std::runtime_error("GPU data-parallel trains dense rows only");
    std::vector<ncclComm_t> comms(std::size_t(s.gpus), nullptr);
    if (s.gpus > 1) {
        std::vector<int> devices(std::size_t(s.gpus));
        for (int i = 0; i < s.gpus; ++i)
            devices[std::size_t(i)] = i;
        check(ncclCommInitAll(comms.data(), s.gpus, devices.data()), "ncclCommInitAll");
    }
    for (int i = 0; i < s.gpus; ++i) {
        auto g = std::make_unique<Gpu>();
        g->device = i;
        g->first = i * R_;
        g->comm = comms[std::size_t(i)];
        gpus_.push_back(std::move(g));
    }
    onEach([&](Gpu& g) { setUp(g, train); });
    // NCCL connects at its first collective, which must not happen inside a
    // capture: one eager all-reduce of the gradient size, once every GPU is
    // set up (a GPU that failed before would leave its peers waiting).
    if (s.gpus > 1)
        onEach([&](Gpu& g) {
            check(cudaMemsetAsync(g.gradSum.p, 0, std::size_t(P_) * sizeof(float), g.stream),
                  "cudaMemset");
            check(ncclAllReduce(g.gradSum.p, g.gradSum.p, std::size_t(P_), ncclFloat, ncclSum,
                                g.comm, g.stream),
                  "ncclAllReduce (warm-up)");
            check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
        });
}

void Replicas::setUp(Gpu& g, const HostData& train) {
    check(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasCreate(&g.blas), "cublasCreate");
    check(cublasSetStream(g.blas, g.stream), "cublasSetStream");
    // A workspace of its own, so that cuBLAS allocates nothing while a step
    // is captured into a graph.
    g.workspace.allocate(8 << 20, g.bytes);
    check(cublasSetWorkspace(g.blas, g.workspace.p, std::size_t(g.workspace.n) * sizeof(float)),
          "cublasSetWorkspace");
    check(cudaMallocHost(&g.hostStep, sizeof(long long)), "cudaMallocHost");
    const std::int64_t perReplica = std::int64_t(R_) * s_.batch;
    std::int64_t widest = 0;
    for (const auto& l : s_.mlp.layers)
        widest = std::max({widest, l.in, l.out});
    g.params.allocate(R_ * P_, g.bytes);
    g.velocity.allocate(R_ * P_, g.bytes);
    g.grads.allocate(R_ * P_, g.bytes);
    g.gradSum.allocate(P_, g.bytes);
    g.paramSum.allocate(P_, g.bytes);
    g.distance.allocate(std::int64_t(s_.gpus) * R_, g.bytes);
    g.x.allocate(perReplica * s_.mlp.layers.front().in, g.bytes);
    g.delta.allocate(perReplica * widest, g.bytes);
    g.deltaPrev.allocate(perReplica * widest, g.bytes);
    g.pre.resize(s_.mlp.layers.size());
    g.post.resize(s_.mlp.layers.size());
    for (std::size_t l = 0; l < s_.mlp.layers.size(); ++l) {
        g.pre[l].allocate(perReplica * s_.mlp.layers[l].out, g.bytes);
        if (l + 1 < s_.mlp.layers.size())
            g.post[l].allocate(perReplica * s_.mlp.layers[l].out, g.bytes);
    }
    g.rowLoss.allocate(perReplica, g.bytes);
    g.losses.allocate(std::int64_t(kLossHistory) * R_, g.bytes);
    g.y.allocate(perReplica, g.bytes);
    g.step.allocate(1, g.bytes);
    // The training set, once.
    g.data.allocate(train.rows * train.dim, g.bytes);
    g.labels.allocate(train.rows, g.bytes);
    copyOn(g.stream, g.data.p, train.dense, std::size_t(train.rows * train.dim) * sizeof(float),
           cudaMemcpyHostToDevice, "cudaMemcpy (training data)");
    copyOn(g.stream, g.labels.p, train.labels, std::size_t(train.rows) * sizeof(std::int32_t),
           cudaMemcpyHostToDevice, "cudaMemcpy (labels)");
}

void Replicas::setParameters(const float* host) {
    onEach([&](Gpu& g) {
        for (int r = 0; r < R_; ++r)
            check(cudaMemcpyAsync(g.params.p + r * P_, host, std::size_t(P_) * sizeof(float),
                                  cudaMemcpyHostToDevice, g.stream),
                  "cudaMemcpy (parameters)");
        check(cudaMemsetAsync(g.velocity.p, 0, std::size_t(R_ * P_) * sizeof(float), g.stream),
              "cudaMemset");
        check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    });
}

void Replicas::setEpochRows(const std::vector<std::vector<std::int32_t>>& rows) {
    const auto length = std::int64_t(rows.at(0).size());
    const bool changed = length != rowsPerReplica_;
    rowsPerReplica_ = length;
    onEach([&](Gpu& g) {
        if (g.rows.n < R_ * rowsPerReplica_ || changed) {
            // The graphs hold the rows' address and length: record them again.
            for (auto& [key, exec] : g.graphs)
                cudaGraphExecDestroy(exec);
            g.graphs.clear();
            if (g.rows.n < R_ * rowsPerReplica_)
                g.rows.allocate(R_ * rowsPerReplica_, g.bytes);
        }
        for (int r = 0; r < R_; ++r)
            check(cudaMemcpyAsync(g.rows.p + r * rowsPerReplica_,
                                  rows.at(std::size_t(g.first + r)).data(),
                                  std::size_t(rowsPerReplica_) * sizeof(std::int32_t),
                                  cudaMemcpyHostToDevice, g.stream),
                  "cudaMemcpy (epoch rows)");
        check(cudaStreamSynchronize(g.stream), "cudaMemcpy (epoch rows)");
    });
}

void Replicas::forward(Gpu& g, int n) {
    const float one = 1, zero = 0;
    const auto& layers = s_.mlp.layers;
    const float* input = g.x.p;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto& L = layers[l];
        check(cublasSgemmStridedBatched(g.blas, CUBLAS_OP_T, CUBLAS_OP_N, int(L.out), n, int(L.in),
                                        &one, g.params.p + L.weight, int(L.in), P_, input,
                                        int(L.in), n * L.in, &zero, g.pre[l].p, int(L.out),
                                        n * L.out, R_),
              "cublasSgemmStridedBatched (forward)");
        const bool last = l + 1 == layers.size();
        biasActivationKernel<<<gridFor(R_ * n * L.out), kThreads, 0, g.stream>>>(
            g.pre[l].p, g.params.p, P_, L.bias, n, L.out, R_, s_.mlp.activation,
            last ? nullptr : g.post[l].p);
        input = last ? nullptr : g.post[l].p;
    }
}

void Replicas::backward(Gpu& g, int n) {
    const float one = 1, zero = 0;
    const auto& layers = s_.mlp.layers;
    for (std::size_t l = layers.size(); l-- > 0;) {
        const auto& L = layers[l];
        const float* input = l == 0 ? g.x.p : g.post[l - 1].p;
        check(cublasSgemmStridedBatched(g.blas, CUBLAS_OP_N, CUBLAS_OP_T, int(L.in), int(L.out), n,
                                        &one, input, int(L.in), n * L.in, g.delta.p, int(L.out),
                                        n * L.out, &zero, g.grads.p + L.weight, int(L.in), P_, R_),
              "cublasSgemmStridedBatched (weight gradient)");
        biasGradientKernel<<<gridFor(R_ * L.out), kThreads, 0, g.stream>>>(g.delta.p, n, L.out, R_,
                                                                           g.grads.p, P_, L.bias);
        if (l == 0)
            break;
        check(cublasSgemmStridedBatched(g.blas, CUBLAS_OP_N, CUBLAS_OP_N, int(L.in), n, int(L.out),
                                        &one, g.params.p + L.weight, int(L.in), P_, g.delta.p,
                                        int(L.out), n * L.out, &zero, g.deltaPrev.p, int(L.in),
                                        n * L.in, R_),
              "cublasSgemmStridedBatched (input gradient)");
        activationBackwardKernel<<<gridFor(R_ * n * L.in), kThreads, 0, g.stream>>>(
            g.deltaPrev.p, g.pre[l - 1].p, g.post[l - 1].p, R_ * n * L.in, s_.mlp.activation);
        std::swap(g.delta, g.deltaPrev);
    }
}

void Replicas::recordStep(Gpu& g, int n, bool own) {
    const int rows = R_ * n;
    const auto& layers = s_.mlp.layers;
    gatherKernel<<<gridFor(rows * layers.front().in), kThreads, 0, g.stream>>>(
        g.data.p, g.labels.p, layers.front().in, g.rows.p, rowsPerReplica_, g.step.p, s_.batch, n,
        R_, g.x.p, g.y.p);
    forward(g, n);
    const int classes = int(layers.back().out);
    softmaxKernel<<<(rows + 127) / 128, 128, 0, g.stream>>>(g.pre.back().p, g.y.p, rows, classes, n,
                                                            g.delta.p, g.rowLoss.p);
    replicaLossKernel<<<unsigned(R_ + 255) / 256, 256, 0, g.stream>>>(g.rowLoss.p, n, R_, g.step.p,
                                                                      g.losses.p);
    backward(g, n);
    const Sgd& sgd = s_.sgd;
    if (own) {
        sgdKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(g.params.p, g.velocity.p, g.grads.p,
                                                               P_, P_, R_, 1.0f, sgd.lr,
                                                               sgd.momentum, sgd.weightDecay);
    } else {
        reduceReplicasKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(g.grads.p, P_, R_,
                                                                     g.gradSum.p);
        if (g.comm)
            check(ncclAllReduce(g.gradSum.p, g.gradSum.p, std::size_t(P_), ncclFloat, ncclSum,
                                g.comm, g.stream),
                  "ncclAllReduce (gradients)");
        const float scale = 1.0f / float(R_ * s_.gpus);
        sgdKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(
            g.params.p, g.velocity.p, g.gradSum.p, 0, P_, R_, scale, sgd.lr, sgd.momentum,
            sgd.weightDecay);
    }
    advanceKernel<<<1, 1, 0, g.stream>>>(g.step.p);
    check(cudaGetLastError(), "a step's kernel launch");
}

cudaGraphExec_t Replicas::capture(Gpu& g, int n, bool own) {
    check(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
        recordStep(g, n, own);
    } catch (...) { // leave the stream out of capture mode
        cudaStreamEndCapture(g.stream, &graph);
        if (graph)
            cudaGraphDestroy(graph);
        throw;
    }
    check(cudaStreamEndCapture(g.stream, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(e, "cudaGraphInstantiate");
    return exec;
}

void Replicas::replay(Gpu& g, std::int64_t first, std::int64_t count, bool own) {
    *g.hostStep = first;
    check(
        cudaMemcpyAsync(g.step.p, g.hostStep, sizeof(long long), cudaMemcpyHostToDevice, g.stream),
        "cudaMemcpy (step)");
    const std::int64_t steps = (rowsPerReplica_ + s_.batch - 1) / s_.batch;
    const bool eager = s_.eager;
    for (std::int64_t k = first; k < first + count; ++k) {
        const int n = int(k + 1 < steps ? s_.batch : rowsPerReplica_ - (steps - 1) * s_.batch);
        if (eager) {
            recordStep(g, n, own);
            continue;
        }
        auto it = g.graphs.find({n, own});
        if (it == g.graphs.end())
            it = g.graphs.emplace(std::make_pair(n, own), capture(g, n, own)).first;
        check(cudaGraphLaunch(it->second, g.stream), "cudaGraphLaunch");
    }
}

void Replicas::enqueueSteps(std::int64_t first, std::int64_t count, bool own) {
    if (count > kLossHistory)
        throw std::logic_error("at most 64 steps are enqueued at a time");
    if (pending_)
        throw std::logic_error("enqueueSteps twice without finishSteps");
    pending_ = true;
    lastStep_ = first;
    lastCount_ = count;
    onEach([&](Gpu& g) { replay(g, first, count, own); });
}

std::vector<float> Replicas::finishSteps() {
    pending_ = false;
    const int total = R_ * s_.gpus;
    std::vector<float> out(std::size_t(lastCount_ * total));
    onEach([&](Gpu& g) {
        std::vector<float> history(std::size_t(kLossHistory * R_));
        check(cudaMemcpyAsync(history.data(), g.losses.p, history.size() * sizeof(float),
                              cudaMemcpyDeviceToHost, g.stream),
              "cudaMemcpy (losses)");
        check(cudaStreamSynchronize(g.stream), "a training step");
        for (std::int64_t k = 0; k < lastCount_; ++k)
            for (int r = 0; r < R_; ++r)
                out[std::size_t(k * total + g.first + r)] =
                    history[std::size_t(((lastStep_ + k) % kLossHistory) * R_ + r)];
    });
    return out;
}

void Replicas::sumParameters() {
    onEach([&](Gpu& g) {
        sumParametersKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(g.params.p, P_, R_,
                                                                    g.paramSum.p);
        if (g.comm)
            check(ncclAllReduce(g.paramSum.p, g.paramSum.p, std::size_t(P_), ncclDouble, ncclSum,
                                g.comm, g.stream),
                  "ncclAllReduce (parameters)");
        check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    });
}

void Replicas::averageParameters() {
    sumParameters();
    const double count = double(R_) * s_.gpus;
    onEach([&](Gpu& g) {
        setToMeanKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(g.params.p, P_, R_,
                                                                     g.paramSum.p, count);
        check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    });
}

std::vector<double> Replicas::divergences() {
    sumParameters();
    const double count = double(R_) * s_.gpus;
    std::vector<double> out(std::size_t(R_ * s_.gpus));
    onEach([&](Gpu& g) {
        check(cudaMemsetAsync(g.distance.p, 0, std::size_t(R_) * sizeof(double), g.stream),
              "cudaMemset");
        const dim3 grid(std::min(gridFor(P_), 1024u), unsigned(R_)); // y: the replica
        distanceKernel<<<grid, 256, 0, g.stream>>>(g.params.p, P_, g.paramSum.p, count,
                                                   g.distance.p);
        std::vector<double> part(static_cast<std::size_t>(R_));
        check(cudaMemcpyAsync(part.data(), g.distance.p, part.size() * sizeof(double),
                              cudaMemcpyDeviceToHost, g.stream),
              "cudaMemcpy (distances)");
        check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
        for (int r = 0; r < R_; ++r)
            out[std::size_t(g.first + r)] = std::sqrt(part[std::size_t(r)]);
    });
    return out;
}

void Replicas::copyParameters(int replica, float* host) {
    Gpu& g = *gpus_.at(std::size_t(replica / R_));
    check(cudaSetDevice(g.device), "cudaSetDevice");
    copyOn(g.stream, host, g.params.p + std::int64_t(replica % R_) * P_,
           std::size_t(P_) * sizeof(float), cudaMemcpyDeviceToHost,
           "cudaMemcpy (parameters to the host)");
}

} // namespace

double timeReplicaReduce(std::int64_t params, int replicas, int repeats) {
    check(cudaSetDevice(0), "cudaSetDevice");
    std::int64_t bytes = 0;
    Buffer<float> grads, sum;
    grads.allocate(params * replicas, bytes);
    sum.allocate(params, bytes);
    check(cudaMemset(grads.p, 0, std::size_t(params * replicas) * sizeof(float)), "cudaMemset");
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    reduceReplicasKernel<<<gridFor(params), kThreads>>>(grads.p, params, replicas,
                                                        sum.p); // warm-up
    cudaEventRecord(start);
    for (int i = 0; i < repeats; ++i)
        reduceReplicasKernel<<<gridFor(params), kThreads>>>(grads.p, params, replicas, sum.p);
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "the reduce benchmark");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return double(ms) * 1e-3 / repeats;
}

std::unique_ptr<ReplicaTrainer> ReplicaTrainer::create(const ReplicaSettings& settings,
                                                       const HostData& train) {
    if (!initialisedHere()) // the one place that initialises CUDA
        initialise();
    return std::make_unique<Replicas>(settings, train);
}

} // namespace hwl::cuda
