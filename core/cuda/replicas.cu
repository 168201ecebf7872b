// Data-parallel replicas on GPUs (replicas.h, cuda.h's ReplicaTrainer). Per
// GPU: R replicas' parameters, momentum and gradients, one after the other; a
// step is gather -> per layer a strided-batched GEMM over the replicas, bias
// and activation -> softmax cross-entropy -> backward GEMMs -> the replicas'
// mean gradient by the CPU collectives' rule (a double sum in replica order,
// then / N; across GPUs the per-GPU double sums are added by NCCL) -> every
// replica's SGD step. It is recorded once per batch size and update kind as
// a CUDA graph and replayed; the step number lives on the device, so a
// replay needs nothing from the host.
#include "cuda/replicas.h"

#include "cuda/kernels.cuh"
#include "cuda/module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace hwl::cuda::module {

template <class Fn>
void Replicas::onEach(Fn&& fn) {
    if (!broken_.empty())
        throw std::runtime_error("the GPU replicas were stopped by an earlier failure: " + broken_);
    if (gpus_.size() == 1) {
        check(cudaSetDevice(gpus_[0]->device), "cudaSetDevice");
        fn(*gpus_[0]);
        return;
    }
    failed_.store(false);
    std::vector<std::thread> threads;
    std::vector<std::string> errors(gpus_.size());
    for (std::size_t i = 0; i < gpus_.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                check(cudaSetDevice(gpus_[i]->device), "cudaSetDevice");
                fn(*gpus_[i]);
            } catch (const PeerFailed&) { // the failed GPU's error is the one to report
            } catch (const std::exception& e) {
                errors[i] = "GPU " + std::to_string(gpus_[i]->device) + ": " + e.what();
                failed_.store(true); // the others leave their waits (drain)
            }
        });
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (!e.empty()) {
            abortAll(e);
            throw std::runtime_error(e);
        }
}

void Replicas::drain(Gpu& g, const char* what) {
    if (!g.comm) {
        check(cudaStreamSynchronize(g.stream), what);
        return;
    }
    for (int polls = 0;; ++polls) {
        const cudaError_t e = cudaStreamQuery(g.stream);
        if (e == cudaSuccess)
            return;
        if (e != cudaErrorNotReady)
            check(e, what);
        ncclResult_t async = ncclSuccess;
        check(nccl_->commGetAsyncError(g.comm, &async), "ncclCommGetAsyncError");
        check(async, what);
        if (failed_.load())
            throw PeerFailed{};
        if (polls < 2000)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

void Replicas::abortAll(const std::string& why) {
    broken_ = why;
    // A graph that captured ncclAllReduce holds its communicator, and
    // ncclCommAbort (NCCL >= 2.26) waits until no graph does: destroy them
    // first (one still running is freed when it ends, which the abort lets
    // it do), then abort every communicator.
    for (auto& g : gpus_) {
        cudaSetDevice(g->device);
        g->destroyGraphs();
    }
    for (auto& g : gpus_)
        if (g->comm) {
            cudaSetDevice(g->device);
            nccl_->commAbort(g->comm);
            g->comm = nullptr;
        }
}

Replicas::~Replicas() {
    // Streams finished and graphs destroyed BEFORE the communicators: a graph
    // that captured ncclAllReduce holds its communicator, and
    // ncclCommFinalize/Destroy (NCCL >= 2.26) wait until no graph does, so
    // the other order never returns (the process would not exit).
    for (auto& g : gpus_) {
        cudaSetDevice(g->device);
        if (g->stream)
            cudaStreamSynchronize(g->stream);
        g->destroyGraphs();
    }
    if (!nccl_)
        return;
    // The communicators of one clique finish together (one thread, one group).
    nccl_->groupStart();
    for (auto& g : gpus_)
        if (g->comm)
            nccl_->commFinalize(g->comm);
    nccl_->groupEnd();
    for (auto& g : gpus_)
        if (g->comm) {
            nccl_->commDestroy(g->comm);
            g->comm = nullptr;
        }
}

std::int64_t Replicas::deviceBytes() const {
    std::int64_t b = 0;
    for (const auto& g : gpus_)
        b += g->bytes;
    return b;
}

Replicas::Replicas(const ReplicaSettings& s, const HostData& train)
    : s_(s), R_(s.replicasPerGpu), P_(s.cnnModel ? s.cnn.total : s.mlp.total) {
    if (!train.dense)
        throw std::runtime_error("GPU data-parallel trains dense rows only");
    std::vector<ncclComm_t> comms(std::size_t(s.gpus), nullptr);
    if (s.gpus > 1) { // NCCL is loaded now, the first time a run uses several GPUs
        nccl_ = &nccl();
        std::vector<int> devices(std::size_t(s.gpus));
        for (int i = 0; i < s.gpus; ++i)
            devices[std::size_t(i)] = i;
        check(nccl_->commInitAll(comms.data(), s.gpus, devices.data()), "ncclCommInitAll");
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
        onEach([&](Gpu& g) { warmUp(g); });
}

void Replicas::warmUp(Gpu& g) {
    check(cudaMemsetAsync(g.sum.p, 0, std::size_t(P_) * sizeof(double), g.stream), "cudaMemset");
    check(
        nccl_->allReduce(g.sum.p, g.sum.p, std::size_t(P_), ncclDouble, ncclSum, g.comm, g.stream),
        "ncclAllReduce (warm-up)");
    drain(g, "ncclAllReduce (warm-up)");
}

std::int64_t Replicas::inputWidth() const {
    return s_.cnnModel ? s_.cnn.side * s_.cnn.side : s_.mlp.layers.front().in;
}

void Replicas::setUpMlp(Gpu& g) {
    const std::int64_t perReplica = std::int64_t(R_) * s_.batch;
    std::int64_t widest = 0;
    for (const auto& l : s_.mlp.layers)
        widest = std::max({widest, l.in, l.out});
    g.delta.allocate(perReplica * widest, g.bytes);
    g.deltaPrev.allocate(perReplica * widest, g.bytes);
    g.pre.resize(s_.mlp.layers.size());
    g.post.resize(s_.mlp.layers.size());
    for (std::size_t l = 0; l < s_.mlp.layers.size(); ++l) {
        g.pre[l].allocate(perReplica * s_.mlp.layers[l].out, g.bytes);
        if (l + 1 < s_.mlp.layers.size())
            g.post[l].allocate(perReplica * s_.mlp.layers[l].out, g.bytes);
    }
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
    check(cudaMallocHost(&g.hostLrs, kLossHistory * sizeof(float)), "cudaMallocHost");
    g.lrs.allocate(kLossHistory, g.bytes);
    if (s_.accumulate > 1)
        g.accumulated.allocate(R_ * P_, g.bytes);
    const std::int64_t perReplica = std::int64_t(R_) * s_.batch;
    g.params.allocate(R_ * P_, g.bytes);
    g.velocity.allocate(R_ * P_, g.bytes);
    g.grads.allocate(R_ * P_, g.bytes);
    g.gradMean.allocate(P_, g.bytes);
    g.sum.allocate(P_, g.bytes);
    g.distance.allocate(std::int64_t(s_.gpus) * R_, g.bytes);
    g.x.allocate(perReplica * inputWidth(), g.bytes);
    if (s_.cnnModel)
        setUpCnn(g);
    else
        setUpMlp(g);
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
        drain(g, "cudaMemcpy (parameters)");
    });
}

void Replicas::setEpochRows(const std::vector<std::vector<std::int32_t>>& rows, int epoch) {
    epoch_ = epoch;
    const std::int64_t length = commonRowCount(rows, std::size_t(R_) * std::size_t(s_.gpus));
    const bool changed = length != rowsPerReplica_;
    rowsPerReplica_ = length;
    onEach([&](Gpu& g) {
        if (g.rows.n < R_ * rowsPerReplica_ || changed) {
            // The graphs hold the rows' address and length: record them again.
            g.destroyGraphs();
            if (g.rows.n < R_ * rowsPerReplica_)
                g.rows.allocate(R_ * rowsPerReplica_, g.bytes);
        }
        for (int r = 0; r < R_; ++r)
            check(cudaMemcpyAsync(g.rows.p + r * rowsPerReplica_,
                                  rows.at(std::size_t(g.first + r)).data(),
                                  std::size_t(rowsPerReplica_) * sizeof(std::int32_t),
                                  cudaMemcpyHostToDevice, g.stream),
                  "cudaMemcpy (epoch rows)");
        drain(g, "cudaMemcpy (epoch rows)");
    });
}

void Replicas::product(Gpu& g, const devicemath::BatchedProduct& p, const float* A, const float* B,
                       float* C, const char* what) const {
    const devicemath::CublasCall c = devicemath::cublasCallOf(p);
    const float one = 1, zero = 0;
    if (const cublasStatus_t e = cublasSgemmStridedBatched(
            g.blas, c.transFirst ? CUBLAS_OP_T : CUBLAS_OP_N,
            c.transSecond ? CUBLAS_OP_T : CUBLAS_OP_N, int(c.rows), int(c.cols), int(c.depth), &one,
            B, int(c.ldFirst), p.strideB, A, int(c.ldSecond), p.strideA, &zero, C, int(c.ldc),
            p.strideC, R_);
        e != CUBLAS_STATUS_SUCCESS)
        check(e, (std::string("cublasSgemmStridedBatched (") + what + ")").c_str());
}

void Replicas::forward(Gpu& g, int n) {
    const auto& layers = s_.mlp.layers;
    const float* input = g.x.p;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto& L = layers[l];
        const auto m = devicemath::mlpLayerProducts(L.in, L.out, n, P_);
        product(g, m.forward, input, g.params.p + L.weight, g.pre[l].p, "forward");
        const bool last = l + 1 == layers.size();
        biasActivationKernel<<<gridFor(R_ * n * L.out), kThreads, 0, g.stream>>>(
            g.pre[l].p, g.params.p, P_, L.bias, n, L.out, R_, s_.mlp.activation,
            last ? nullptr : g.post[l].p);
        input = last ? nullptr : g.post[l].p;
    }
}

void Replicas::backward(Gpu& g, int n) {
    const auto& layers = s_.mlp.layers;
    for (std::size_t l = layers.size(); l-- > 0;) {
        const auto& L = layers[l];
        const auto m = devicemath::mlpLayerProducts(L.in, L.out, n, P_);
        const float* input = l == 0 ? g.x.p : g.post[l - 1].p;
        product(g, m.weightGradient, g.delta.p, input, g.grads.p + L.weight, "weight gradient");
        biasGradientKernel<<<gridFor(R_ * L.out), kThreads, 0, g.stream>>>(g.delta.p, n, L.out, R_,
                                                                           g.grads.p, P_, L.bias);
        if (l == 0)
            break;
        product(g, m.inputGradient, g.delta.p, g.params.p + L.weight, g.deltaPrev.p,
                "input gradient");
        activationBackwardKernel<<<gridFor(R_ * n * L.in), kThreads, 0, g.stream>>>(
            g.deltaPrev.p, g.pre[l - 1].p, g.post[l - 1].p, R_ * n * L.in, s_.mlp.activation);
        std::swap(g.delta, g.deltaPrev);
    }
}

void Replicas::recordGradients(Gpu& g, int n) {
    const int rows = R_ * n;
    const std::int64_t dim = inputWidth();
    gatherKernel<<<gridFor(rows * dim), kThreads, 0, g.stream>>>(
        g.data.p, g.labels.p, dim, g.rows.p, rowsPerReplica_, g.step.p, s_.batch, n, R_, g.x.p,
        g.y.p);
    if (g.cnn)
        forwardCnn(g, n);
    else
        forward(g, n);
    const int classes = int(g.cnn ? s_.cnn.classes : s_.mlp.layers.back().out);
    float* logits = g.cnn ? g.cnn->logits.p : g.pre.back().p;
    float* delta = g.cnn ? g.cnn->delta.p : g.delta.p;
    // delta = d(mean loss of the replica's n rows)/d(logits): each replica's
    // gradient is that of its batch's mean loss, as the CPU's.
    softmaxKernel<<<(rows + 127) / 128, 128, 0, g.stream>>>(logits, g.y.p, rows, classes, n, delta,
                                                            g.rowLoss.p);
    replicaLossKernel<<<unsigned(R_ + 255) / 256, 256, 0, g.stream>>>(g.rowLoss.p, n, R_, g.step.p,
                                                                      g.losses.p);
    if (g.cnn)
        backwardCnn(g, n);
    else
        backward(g, n);
}

void Replicas::recordMean(Gpu& g) {
    if (!g.comm) { // the mean of this GPU's replicas, in one pass
        reduceReplicasKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(g.grads.p, P_, R_,
                                                                     g.gradMean.p);
        return;
    }
    // Several GPUs: each adds its replicas in double in order, NCCL adds the
    // GPUs' double sums (in its own order: the same bits as the CPU's rank
    // order as long as those double additions are exact, which they are
    // unless the gradients span more than ~2^28 in magnitude), then the mean
    // by the CPU's rule.
    sumReplicasKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(g.grads.p, P_, R_, g.sum.p);
    check(
        nccl_->allReduce(g.sum.p, g.sum.p, std::size_t(P_), ncclDouble, ncclSum, g.comm, g.stream),
        "ncclAllReduce (gradients)");
    meanOfSumKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(
        g.sum.p, P_, std::uint32_t(R_ * s_.gpus), g.gradMean.p);
}

int Replicas::phaseOf(std::int64_t k) const {
    const EpochSteps e = epochSteps();
    if (e.endsUpdate(k))
        return int(e.groupOf(k));
    return k % e.accumulate == 0 ? 0 : -1;
}

void Replicas::recordStep(Gpu& g, int n, bool own, int phase) {
    recordGradients(g, n);
    if (phase != 1)
        accumulateKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(g.accumulated.p, g.grads.p,
                                                                      R_ * P_, phase);
    if (phase <= 0) { // the update is not complete: no step yet
        advanceKernel<<<1, 1, 0, g.stream>>>(g.step.p);
        check(cudaGetLastError(), "a micro-batch's kernel launch");
        return;
    }
    const Sgd& sgd = s_.sgd;
    if (!own)
        recordMean(g);
    // own: replica r steps on grads[r]; else every replica on the one mean.
    sgdKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(
        g.params.p, g.velocity.p, own ? g.grads.p : g.gradMean.p, own ? P_ : 0, P_, R_, g.lrs.p,
        g.step.p, sgd.momentum, sgd.weightDecay);
    advanceKernel<<<1, 1, 0, g.stream>>>(g.step.p);
    check(cudaGetLastError(), "a step's kernel launch");
}

cudaGraphExec_t Replicas::capture(Gpu& g, int n, bool own, int phase) {
    check(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
        recordStep(g, n, own, phase);
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

void Replicas::replay(Gpu& g, std::int64_t first, std::int64_t count, bool own, const float* lrs) {
    *g.hostStep = first;
    check(
        cudaMemcpyAsync(g.step.p, g.hostStep, sizeof(long long), cudaMemcpyHostToDevice, g.stream),
        "cudaMemcpy (step)");
    // The steps' rates where the step kernel reads them (count <= kLossHistory:
    // no two of these steps share a slot; the last copy has ended, as the
    // last steps were drained before this call).
    for (std::int64_t k = 0; k < count; ++k)
        g.hostLrs[(first + k) % kLossHistory] = lrs ? lrs[k] : s_.sgd.lr;
    check(cudaMemcpyAsync(g.lrs.p, g.hostLrs, kLossHistory * sizeof(float), cudaMemcpyHostToDevice,
                          g.stream),
          "cudaMemcpy (learning rates)");
    writeNoiseSeeds(g, first, count);
    const EpochSteps epoch = epochSteps();
    const bool eager = s_.eager;
    for (std::int64_t k = first; k < first + count; ++k) {
        const int n = int(epoch.rowsOf(k));
        const int phase = phaseOf(k);
        if (eager) {
            recordStep(g, n, own, phase);
            continue;
        }
        const auto key = std::make_tuple(n, own, phase);
        auto it = g.graphs.find(key);
        if (it == g.graphs.end())
            it = g.graphs.emplace(key, capture(g, n, own, phase)).first;
        check(cudaGraphLaunch(it->second, g.stream), "cudaGraphLaunch");
    }
}

void Replicas::enqueueSteps(std::int64_t first, std::int64_t count, bool own, const float* lrs) {
    if (count > kLossHistory)
        throw std::logic_error("at most 64 steps are enqueued at a time");
    if (pending_)
        throw std::logic_error("enqueueSteps twice without finishSteps");
    pending_ = true;
    lastStep_ = first;
    lastCount_ = count;
    onEach([&](Gpu& g) { replay(g, first, count, own, lrs); });
}

std::vector<float> Replicas::finishSteps() {
    pending_ = false;
    const int total = R_ * s_.gpus;
    std::vector<float> out(std::size_t(lastCount_ * total));
    onEach([&](Gpu& g) {
        std::vector<float> history(std::size_t(kLossHistory * R_));
        drain(g, "a training step"); // before the copy: a pageable one would wait unpolled
        check(cudaMemcpyAsync(history.data(), g.losses.p, history.size() * sizeof(float),
                              cudaMemcpyDeviceToHost, g.stream),
              "cudaMemcpy (losses)");
        check(cudaStreamSynchronize(g.stream), "cudaMemcpy (losses)");
        for (std::int64_t k = 0; k < lastCount_; ++k)
            for (int r = 0; r < R_; ++r)
                out[std::size_t(k * total + g.first + r)] =
                    history[std::size_t(((lastStep_ + k) % kLossHistory) * R_ + r)];
    });
    return out;
}

void Replicas::sumParameters() {
    onEach([&](Gpu& g) {
        sumReplicasKernel<<<gridFor(P_), kThreads, 0, g.stream>>>(g.params.p, P_, R_, g.sum.p);
        if (g.comm)
            check(nccl_->allReduce(g.sum.p, g.sum.p, std::size_t(P_), ncclDouble, ncclSum, g.comm,
                                   g.stream),
                  "ncclAllReduce (parameters)");
        drain(g, "the replicas' parameter sum");
    });
}

void Replicas::averageParameters() {
    sumParameters();
    const auto count = std::uint32_t(R_ * s_.gpus);
    onEach([&](Gpu& g) {
        setToMeanKernel<<<gridFor(R_ * P_), kThreads, 0, g.stream>>>(g.params.p, P_, R_, g.sum.p,
                                                                     count);
        drain(g, "the replicas' parameter average");
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
        distanceKernel<<<grid, 256, 0, g.stream>>>(g.params.p, P_, g.sum.p, count, g.distance.p);
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

std::unique_ptr<ReplicaTrainer> makeReplicaTrainer(const ReplicaSettings& settings,
                                                   const HostData& train) {
    return std::make_unique<Replicas>(settings, train);
}

} // namespace hwl::cuda::module
