#pragma once
// The CNN's element-wise kernels (cnnreplicas.cu), each the device's copy of
// one loop of backend/cpu/cnnkernel.cpp, in the same order of arithmetic.
// Replicas are packed one after the other by the step's n rows: a tensor laid
// out per sample ([i][...]) is one tensor of replicas x n samples; a
// convolution's output is laid out [channel][i][...] within each replica.
#include "cuda/devicemath.h"
#include "cuda/kernels.cuh"
#include "util/xoshiro.h"

#include <cstdint>

namespace hwl::cuda {

/// out[j][c * k * k + ky * k + kx] = in[i][c][oy + ky][ox + kx] for output
/// position j = (i * o + oy) * o + ox of `images` images of `channels`
/// channels, o = side - k + 1 (im2col).
static __global__ void im2colKernel(const float* in, std::int64_t images, int channels, int side,
                                    int k, float* out) {
    const int o = side - k + 1, width = channels * k * k;
    const std::int64_t total = images * o * o * width;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t row = e / width;
        const int col = int(e % width);
        const std::int64_t i = row / (o * o);
        const int pos = int(row % (o * o)), oy = pos / o, ox = pos % o;
        const int c = col / (k * k), ky = (col % (k * k)) / k, kx = col % k;
        out[e] = in[((i * channels + c) * side + oy + ky) * side + ox + kx];
    }
}

/// The reverse of im2col, gathered: in[i][c][y][x] = the sum of the patch
/// entries that copied it, in the order the CPU adds them (oy, then ox).
static __global__ void col2imKernel(const float* cols, std::int64_t images, int channels, int side,
                                    int k, float* in) {
    const int o = side - k + 1, width = channels * k * k;
    const std::int64_t total = images * channels * side * side;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const int x = int(e % side), y = int((e / side) % side);
        const int c = int((e / (std::int64_t(side) * side)) % channels);
        const std::int64_t i = e / (std::int64_t(channels) * side * side);
        float sum = 0;
        for (int oy = y - k + 1 > 0 ? y - k + 1 : 0; oy <= y && oy < o; ++oy)
            for (int ox = x - k + 1 > 0 ? x - k + 1 : 0; ox <= x && ox < o; ++ox)
                sum += cols[((i * o + oy) * o + ox) * width + (c * k + y - oy) * k + x - ox];
        in[e] = sum;
    }
}

/// z[r][c][j] += bias_r[c] for a convolution's output (channels x cols per
/// replica).
static __global__ void channelBiasKernel(float* z, int channels, std::int64_t cols, int replicas,
                                         const float* params, std::int64_t paramStride,
                                         std::int64_t biasOffset) {
    const std::int64_t total = std::int64_t(replicas) * channels * cols;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = e / (channels * cols);
        const int c = int((e / cols) % channels);
        z[e] += params[r * paramStride + biasOffset + c];
    }
}

/// The bias gradient of a convolution: grads_r[c] = the sum of dz[r][c][:],
/// one block of kSumThreads per (replica, channel): each thread adds a
/// stride of the row, then the block adds the threads' sums as a tree.
constexpr int kSumThreads = 256;
static __global__ void channelSumKernel(const float* dz, int channels, std::int64_t cols,
                                        float* grads, std::int64_t paramStride,
                                        std::int64_t biasOffset) {
    __shared__ float part[kSumThreads];
    const std::int64_t e = blockIdx.x; // r * channels + c
    const float* row = dz + e * cols;
    float sum = 0;
    for (std::int64_t j = threadIdx.x; j < cols; j += kSumThreads)
        sum += row[j];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kSumThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half)
            part[threadIdx.x] += part[threadIdx.x + half];
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
    const int half = side / 2;
    const std::int64_t plane = std::int64_t(side) * side;
    const std::int64_t perReplica = std::int64_t(n) * channels * half * half;
    const std::int64_t total = replicas * perReplica;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = e / perReplica, j = e % perReplica;
        const int px = int(j % half), py = int((j / half) % half);
        const std::int64_t ic = j / (half * half); // i * channels + c
        const int c = int(ic % channels), i = int(ic / channels);
        const float* zr = z + r * channels * n * plane;
        const std::int64_t corner = (std::int64_t(c) * n + i) * plane + 2 * py * side + 2 * px;
        std::int64_t best = corner; // then right, below, below right, as the CPU looks
        if (zr[corner + 1] > zr[best])
            best = corner + 1;
        if (zr[corner + side] > zr[best])
            best = corner + side;
        if (zr[corner + side + 1] > zr[best])
            best = corner + side + 1;
        const float v = scale ? zr[best] * scale[r * n * channels + ic] : zr[best];
        out[e] = v > 0.0f ? v : 0.0f;
        pick[e] = std::int32_t(best);
    }
}

/// poolReluKernel's backward: dz (zeroed) at each chosen input gets its
/// output's gradient (times its scale) where the output was positive.
static __global__ void poolReluBackwardKernel(const float* dout, const float* out,
                                              const std::int32_t* pick, int channels, int n,
                                              int side, int replicas, const float* scale,
                                              float* dz) {
    const int half = side / 2;
    const std::int64_t area = std::int64_t(half) * half;
    const std::int64_t perReplica = std::int64_t(n) * channels * area;
    const std::int64_t total = replicas * perReplica;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        if (!(out[e] > 0.0f))
            continue;
        const std::int64_t r = e / perReplica, j = e % perReplica;
        dz[r * channels * n * std::int64_t(side) * side + pick[e]] =
            scale ? dout[e] * scale[r * n * channels + j / area] : dout[e];
    }
}

/// Each replica's dropout factors for its step, in the CPU's order: first
/// Dropout2d's n x channels, then dropout's n x hidden, from the stream
/// seeds[step % kLossHistory][r] (0 with probability p, else 1 / (1 - p)).
static __global__ void dropoutKernel(const unsigned long long* seeds, const long long* step,
                                     int replicas, int n, int channels, int hidden, double p,
                                     float* scale2, float* scale3) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= replicas)
        return;
    std::uint64_t state[4];
    xoshiro::seed(state, seeds[(*step % kLossHistory) * replicas + r]);
    const float keep = 1.0f / float(1 - p);
    for (std::int64_t j = 0; j < std::int64_t(n) * channels; ++j)
        scale2[r * std::int64_t(n) * channels + j] = xoshiro::uniform(state) < p ? 0.0f : keep;
    for (std::int64_t j = 0; j < std::int64_t(n) * hidden; ++j)
        scale3[r * std::int64_t(n) * hidden + j] = xoshiro::uniform(state) < p ? 0.0f : keep;
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
        const float s = scale ? v * scale[e] : v;
        h1[e] = s > 0.0f ? s : 0.0f;
    }
}

/// dh = h1 > 0 ? dh * scale : 0 (ReLU's and dropout's backward).
static __global__ void reluScaledBackwardKernel(float* dh, const float* h1, const float* scale,
                                                std::int64_t count) {
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
         e += std::int64_t(gridDim.x) * blockDim.x)
        dh[e] = h1[e] > 0.0f ? (scale ? dh[e] * scale[e] : dh[e]) : 0.0f;
}

} // namespace hwl::cuda
