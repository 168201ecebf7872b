// One worker's step on device 0 for the CUDA backend's StepKernel (cuda.h,
// StepRunner): the replica trainer with one replica, launched eagerly, so
// that its gradient comes from the SAME kernels as a data-parallel step
// (gather, GEMMs, bias and activation, softmax, backward), which the
// backends' tests compare with the CPU's double reference. The update is
// the host's. Also the benchmark of the replicas' device reduce.
#include "cuda/kernels.cuh"
#include "cuda/module.h"
#include "cuda/replicas.h"

#include <stdexcept>

namespace hwl::cuda::module {

float Replicas::gradientAt(const float* params, const std::int32_t* rows, int n, float* grad) {
    if (gpus_.size() != 1 || R_ != 1)
        throw std::logic_error("gradientAt: one GPU, one replica");
    if (n < 1 || n > s_.batch)
        throw std::invalid_argument("StepRunner: " + std::to_string(n) +
                                    " rows, where it takes 1 to " + std::to_string(s_.batch));
    Gpu& g = *gpus_[0];
    check(cudaSetDevice(g.device), "cudaSetDevice");
    if (g.rows.n < s_.batch)
        g.rows.allocate(s_.batch, g.bytes);
    rowsPerReplica_ = n;
    *g.hostStep = 0; // the rows from the first; the loss into history slot 0
    check(cudaMemcpyAsync(g.params.p, params, std::size_t(P_) * sizeof(float),
                          cudaMemcpyHostToDevice, g.stream),
          "cudaMemcpy (parameters)");
    check(cudaMemcpyAsync(g.rows.p, rows, std::size_t(n) * sizeof(std::int32_t),
                          cudaMemcpyHostToDevice, g.stream),
          "cudaMemcpy (rows)");
    check(
        cudaMemcpyAsync(g.step.p, g.hostStep, sizeof(long long), cudaMemcpyHostToDevice, g.stream),
        "cudaMemcpy (step)");
    recordGradients(g, n);
    check(cudaGetLastError(), "a step's kernel launch");
    float loss = 0;
    check(cudaMemcpyAsync(grad, g.grads.p, std::size_t(P_) * sizeof(float), cudaMemcpyDeviceToHost,
                          g.stream),
          "cudaMemcpy (gradient)");
    check(cudaMemcpyAsync(&loss, g.losses.p, sizeof(float), cudaMemcpyDeviceToHost, g.stream),
          "cudaMemcpy (loss)");
    check(cudaStreamSynchronize(g.stream), "a step on the device");
    return loss;
}

namespace {

class DeviceStepRunner final : public StepRunner {
public:
    DeviceStepRunner(const MlpShape& mlp, const HostData& train, int maxRows)
        : replicas_(settings(mlp, maxRows), train) {}
    float lossAndGradient(const float* params, const std::int32_t* rows, int n,
                          float* grad) override {
        return replicas_.gradientAt(params, rows, n, grad);
    }

private:
    static ReplicaSettings settings(const MlpShape& mlp, int maxRows) {
        ReplicaSettings s;
        s.mlp = mlp;
        s.gpus = 1;
        s.replicasPerGpu = 1;
        s.batch = maxRows;
        s.eager = true; // one step at a time, rows of any count: no graph
        return s;
    }
    Replicas replicas_;
};

} // namespace

std::unique_ptr<StepRunner> makeStepRunner(const MlpShape& mlp, const HostData& train,
                                           int maxRows) {
    if (maxRows < 1)
        throw std::invalid_argument("StepRunner: maxRows must be at least 1");
    return std::make_unique<DeviceStepRunner>(mlp, train, maxRows);
}

double timeReplicaReduce(std::int64_t params, int replicas, int repeats) {
    check(cudaSetDevice(0), "cudaSetDevice");
    std::int64_t bytes = 0;
    Buffer<float> grads, mean;
    grads.allocate(params * replicas, bytes);
    mean.allocate(params, bytes);
    check(cudaMemset(grads.p, 0, std::size_t(params * replicas) * sizeof(float)), "cudaMemset");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    reduceReplicasKernel<<<gridFor(params), kThreads>>>(grads.p, params, replicas,
                                                        mean.p); // warm-up
    cudaEventRecord(start);
    for (int i = 0; i < repeats; ++i)
        reduceReplicasKernel<<<gridFor(params), kThreads>>>(grads.p, params, replicas, mean.p);
    cudaEventRecord(stop);
    const cudaError_t e = cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    check(e, "the reduce benchmark");
    return double(ms) * 1e-3 / repeats;
}

} // namespace hwl::cuda::module
