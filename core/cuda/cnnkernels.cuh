#pragma once
// The CNN's element-wise kernels (cnnreplicas.cu), each the device's copy of
// one loop of backend/cpu/netkernel.cpp. Their per-element work is
// cnnmath.h's (and util/dropoutdraws.h's), which tests/tst_devicecnn runs on
// the host against the CPU kernel; here is only the walk over the elements.
// Replicas are packed one after the other by the step's n rows: a tensor laid
// out per sample ([i][...]) is one tensor of replicas x n samples; a
// convolution's output is laid out [channel][i][...] within each replica.
#include "cuda/cnnmath.h"
#include "cuda/devicemath.h"
#include "cuda/kernels.cuh"
#include "util/dropoutdraws.h"
#include "util/xoshiro.h"

#include <cstdint>

namespace hwl::cuda {

/// out[j][c * k * k + ky * k + kx] = in[i][c][oy + ky][ox + kx] for output
/// position j = (i * o + oy) * o + ox of `images` images of `channels`
/// channels, o = side - k + 1 (im2col).
static __global__ void im2colKernel(const float* in, std::int64_t images, int channels, int side,
                                    int k, float* out) {
    const int o = side - k + 1;
    const std::int64_t total = images * o * o * channels * k * k;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x)
        out[e] = in[devicemath::im2colSource(e, channels, side, k)];
}

/// The reverse of im2col, gathered: in[i][c][y][x] = the sum of the patch
/// entries that copied it, in the order the CPU adds them.
static __global__ void col2imKernel(const float* cols, std::int64_t images, int channels, int side,
                                    int k, float* in) {
    const std::int64_t total = images * channels * side * side;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x)
        in[e] = devicemath::col2imGather(cols, e, channels, side, k);
}

/// z[r][c][j] += bias_r[c] for a convolution's output (channels x cols per
/// replica).
static __global__ void channelBiasKernel(float* z, int channels, std::int64_t cols, int replicas,
                                         const float* params, std::int64_t paramStride,
                                         std::int64_t biasOffset) {
    const std::int64_t total = std::int64_t(replicas) * channels * cols;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x)
        z[e] += params[devicemath::channelBiasIndex(e, channels, cols, paramStride, biasOffset)];
}

/// The bias gradient of a convolution: grads_r[c] = the sum of dz[r][c][:],
/// one block of kSumThreads per (replica, channel): each thread adds a
/// stride of the row, then the block adds the threads' sums as a tree.
constexpr int kSumThreads = devicemath::kChannelSumThreads;
static __global__ void channelSumKernel(const float* dz, int channels, std::int64_t cols,
                                        float* grads, std::int64_t paramStride,
                                        std::int64_t biasOffset) {
    __shared__ float part[kSumThreads];
    const std::int64_t e = blockIdx.x; // r * channels + c
    part[threadIdx.x] = devicemath::stridedPart(dz + e * cols, cols, int(threadIdx.x), kSumThreads);
    __syncthreads();
    for (int half = kSumThreads / 2; half > 0; half /= 2) {
        devicemath::treeLevel(part, half, int(threadIdx.x));
        __syncthreads();
    }
    if (threadIdx.x == 0)
        grads[(e / channels) * paramStride + biasOffset + e % channels] = part[0];
}

/// out[r][i][c][py][px] = ReLU(scale * the 2x2 max of z[r][c][i]) (scale per
/// [r][i][c], Dropout2d's, or none); pick holds the chosen input's index in
/// the replica's z (the first maximum, as max_pool2d).
static __global__ void poolReluKernel(const float* z, int channels, int n, int side, int replicas,
                                      const float* scale, float* out, std::int32_t* pick) {
    const std::int64_t area = std::int64_t(side) * side;
    const std::int64_t total = std::int64_t(replicas) * n * channels * (side / 2) * (side / 2);
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const devicemath::PoolWindow w = devicemath::poolWindow(e, channels, n, side);
        const float* zr = z + w.replica * channels * n * area;
        const std::int64_t best = devicemath::firstMax2x2(zr, w.corner, side);
        out[e] = devicemath::reluScaled(zr[best], scale, w.replica * n * channels + w.plane);
        pick[e] = std::int32_t(best);
    }
}

/// poolReluKernel's backward: dz (zeroed) at each chosen input gets its
/// output's gradient (times its scale) where the output was positive.
static __global__ void poolReluBackwardKernel(const float* dout, const float* out,
                                              const std::int32_t* pick, int channels, int n,
                                              int side, int replicas, const float* scale,
                                              float* dz) {
    const std::int64_t area = std::int64_t(side) * side;
    const std::int64_t total = std::int64_t(replicas) * n * channels * (side / 2) * (side / 2);
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        if (!(out[e] > 0.0f))
            continue; // dz is zeroed: an output that did not pass gives nothing
        const devicemath::PoolWindow w = devicemath::poolWindow(e, channels, n, side);
        dz[w.replica * channels * n * area + pick[e]] = devicemath::reluScaledGradient(
            dout[e], out[e], scale, w.replica * n * channels + w.plane);
    }
}

/// Each replica's dropout factors for its step, drawn in the CPU kernel's
/// order (util/dropoutdraws.h's drawStep: the rows in groups of `group`, in
/// each group first Dropout2d's channels of each row, then dropout's hidden
/// units of each row) from the stream seeds[step % kLossHistory][r], into
/// scale2 (n x channels) and scale3 (n x hidden) of each replica.
static __global__ void dropoutKernel(const unsigned long long* seeds, const long long* step,
                                     int replicas, int n, std::int64_t group, int channels,
                                     int hidden, double p, float* scale2, float* scale3) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= replicas)
        return;
    std::uint64_t state[4];
    xoshiro::seed(state, seeds[(*step % kLossHistory) * replicas + r]);
    const double probability[2] = {p, p};
    const std::int64_t width[2] = {channels, hidden};
    float* const out[2] = {scale2 + r * std::int64_t(n) * channels,
                           scale3 + r * std::int64_t(n) * hidden};
    dropout::drawStep(state, probability, 2, width, n, group, out);
}

/// fc1: h += bias (each replica's), then h1 = ReLU(h * scale) (dropout's
/// factors, or none).
static __global__ void biasReluScaledKernel(float* h, const float* params, std::int64_t paramStride,
                                            std::int64_t biasOffset, int n, int width, int replicas,
                                            const float* scale, float* h1) {
    const std::int64_t total = std::int64_t(replicas) * n * width;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = e / (std::int64_t(n) * width);
        const float v = h[e] + params[r * paramStride + biasOffset + e % width];
        h[e] = v;
        h1[e] = devicemath::reluScaled(v, scale, e);
    }
}

/// dh = h1 > 0 ? dh * scale : 0 (ReLU's and dropout's backward).
static __global__ void reluScaledBackwardKernel(float* dh, const float* h1, const float* scale,
                                                std::int64_t count) {
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
         e += std::int64_t(gridDim.x) * blockDim.x)
        dh[e] = devicemath::reluScaledGradient(dh[e], h1[e], scale, e);
}

} // namespace hwl::cuda
