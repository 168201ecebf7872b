#pragma once
// The element-wise kernels of the replica trainer and the evaluator (private
// to core/cuda; static: each .cu that includes them has its own copy).
// Their arithmetic is devicemath.h's; replicas are laid out one after the
// other: parameters, momentum and gradients with stride P (the flat
// buffer's length), activations with stride batch x width.
#include "cuda/devicemath.h"

#include <cstdint>

namespace hwl::cuda {

constexpr int kLossHistory = 64; ///< steps of per-replica losses kept on the device

/// x[r][i][:] = data[rows[r][step * batch + i]][:], and the rows' labels.
static __global__ void gatherKernel(const float* data, const std::int32_t* labels, std::int64_t dim,
                                    const std::int32_t* rows, std::int64_t rowsPerReplica,
                                    const long long* step, int batch, int n, int replicas, float* x,
                                    std::int32_t* y) {
    const std::int64_t total = std::int64_t(replicas) * n * dim;
    const std::int64_t first = *step * batch;
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t d = k % dim;
        const std::int32_t row = devicemath::gatheredRow(k, n, dim, rows, rowsPerReplica, first);
        x[k] = data[std::int64_t(row) * dim + d];
        if (d == 0)
            y[k / dim] = labels[row];
    }
}

/// z += bias (replica r's), then post = act(z) unless this is the last layer.
static __global__ void biasActivationKernel(float* z, const float* params, std::int64_t paramStride,
                                            std::int64_t biasOffset, int n, std::int64_t out,
                                            int replicas, int activation, float* post) {
    const std::int64_t total = std::int64_t(replicas) * n * out;
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = k / (n * out), o = k % out;
        const float v = z[k] + params[r * paramStride + biasOffset + o];
        z[k] = v;
        if (post)
            post[k] = devicemath::activate(activation, v);
    }
}

/// One thread per row: loss into rowLoss, d(mean loss)/d(logits) into delta.
static __global__ void softmaxKernel(const float* z, const std::int32_t* y, int rows, int classes,
                                     int batch, float* delta, float* rowLoss) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const std::int64_t at = std::int64_t(row) * classes;
    rowLoss[row] = devicemath::softmaxRow(z + at, classes, y[row], batch, delta + at);
}

/// Each replica's mean loss, summed in row order, into the history slot of
/// this step.
static __global__ void replicaLossKernel(const float* rowLoss, int n, int replicas,
                                         const long long* step, float* history) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= replicas)
        return;
    float sum = 0;
    for (int i = 0; i < n; ++i)
        sum += rowLoss[r * n + i];
    history[(*step % kLossHistory) * replicas + r] = sum / float(n);
}

/// Bias gradient: the sum over the batch of delta, in row order.
static __global__ void biasGradientKernel(const float* delta, int n, std::int64_t out, int replicas,
                                          float* grads, std::int64_t paramStride,
                                          std::int64_t biasOffset) {
    const std::int64_t total = std::int64_t(replicas) * out;
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = k / out, o = k % out;
        grads[r * paramStride + biasOffset + o] = devicemath::columnSum(delta, n, out, r, o);
    }
}

/// delta *= act'(pre), element-wise.
static __global__ void activationBackwardKernel(float* delta, const float* pre, const float* post,
                                                std::int64_t count, int activation) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        delta[k] = devicemath::backpropagate(activation, delta[k], pre[k], post[k]);
}

/// mean[j] = the mean of grads[0][j], grads[1][j], ... by the CPU
/// collectives' rule (devicemath::meanInOrder: a double sum in replica order,
/// then divided by the count, or multiplied by its inverse when it is a power
/// of two): the one reduce of a one-GPU step, the same bits as
/// hwl::meanInRankOrder for any number of replicas.
static __global__ void reduceReplicasKernel(const float* grads, std::int64_t stride, int replicas,
                                            float* mean) {
    for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < stride;
         j += std::int64_t(gridDim.x) * blockDim.x)
        mean[j] = devicemath::meanInOrder(grads + j, stride, std::uint32_t(replicas));
}

/// mean[j] = the mean of `count` values whose double sum is sum[j]
/// (devicemath::meanOfSum): the replicas' gradients of several GPUs.
static __global__ void meanOfSumKernel(const double* sum, std::int64_t stride, std::uint32_t count,
                                       float* mean) {
    for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < stride;
         j += std::int64_t(gridDim.x) * blockDim.x)
        mean[j] = devicemath::meanOfSum(sum[j], count);
}

/// The SGD step of every replica with gradient grads[gradStride * r]
/// (gradStride 0: the replicas' one mean gradient).
/// The step's learning rate is lrs[step % kLossHistory] (a schedule's rate,
/// written by the host before the step's replay).
static __global__ void sgdKernel(float* params, float* velocity, const float* grads,
                                 std::int64_t gradStride, std::int64_t stride, int replicas,
                                 const float* lrs, const long long* step, float momentum,
                                 float weightDecay) {
    const float lr = lrs[*step % kLossHistory];
    const std::int64_t total = std::int64_t(replicas) * stride;
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = k / stride, j = k % stride;
        devicemath::sgdElement(params[k], grads[r * gradStride + j], velocity[k], lr, momentum,
                               weightDecay);
    }
}

/// --accumulate: kept = grads (the group's first micro-batch), kept += grads
/// (a middle one), or grads = (kept + grads) / count (its last: their mean,
/// as optim/gradientsum.h adds and divides), over every replica.
static __global__ void accumulateKernel(float* kept, float* grads, std::int64_t total, int phase) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        if (phase == 0)
            kept[k] = grads[k];
        else if (phase < 0)
            kept[k] += grads[k];
        else
            grads[k] = (kept[k] + grads[k]) / float(phase);
    }
}

/// The step counter moves on (the last kernel of a step).
static __global__ void advanceKernel(long long* step) {
    ++*step;
}

/// sum[j] = values[0][j] + values[1][j] + ... in double, in replica order
/// (the replicas' parameters, or their gradients when several GPUs add
/// their sums): exact for identical replicas, so their mean is their value.
static __global__ void sumReplicasKernel(const float* values, std::int64_t stride, int replicas,
                                         double* sum) {
    for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < stride;
         j += std::int64_t(gridDim.x) * blockDim.x) {
        double s = double(values[j]); // not 0 + ...: -0.0 stays -0.0, as on the CPU
        for (int r = 1; r < replicas; ++r)
            s += double(values[r * stride + j]);
        sum[j] = s;
    }
}

/// Every replica's parameters = the mean of `count` replicas whose double
/// sums are `sum` (devicemath::meanOfSum, the CPU collectives' rule).
static __global__ void setToMeanKernel(float* params, std::int64_t stride, int replicas,
                                       const double* sum, std::uint32_t count) {
    const std::int64_t total = std::int64_t(replicas) * stride;
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
         k += std::int64_t(gridDim.x) * blockDim.x)
        params[k] = devicemath::meanOfSum(sum[k % stride], count);
}

/// out[r] += squared distance of replica r from the mean (blockIdx.y = r).
static __global__ void distanceKernel(const float* params, std::int64_t stride, const double* sum,
                                      double count, double* out) {
    __shared__ double part[256];
    const int r = blockIdx.y;
    double acc = 0;
    for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < stride;
         j += std::int64_t(gridDim.x) * blockDim.x) {
        const double d = double(params[r * stride + j]) - sum[j] / count;
        acc += d * d;
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (int(threadIdx.x) < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out + r, part[0]);
}

} // namespace hwl::cuda
