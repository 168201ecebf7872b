#pragma once
// The per-element work of the CNN's kernels on the GPU (cnnkernels.cuh), as
// __host__ __device__ functions: the kernels call them on the device, and
// tests/tst_devicecnn composes a whole replica-batched step of them on the
// host and holds it against backend/cpu/netkernel.cpp. Layouts, as in
// cnnkernels.cuh: replicas one after the other; a convolution's patches one
// row per output position j = (i * o + oy) * o + ox, one column per weight
// position (c, ky, kx); its output [channel][i][y][x] within a replica; every
// other tensor [i][...] (a sample's values together). Dropout's draws are
// util/dropoutdraws.h's. Plain C++ without nvcc.
#include "util/hostdevice.h"

#include <cstdint>

namespace hwl::devicemath {

/// Threads that add one channel's bias gradient (channelSumKernel's block):
/// the order of its float additions (devicemath::stridedPart, treeLevel).
constexpr int kChannelSumThreads = 256;

/// im2col: the input element that patch element e copies, for images of
/// `channels` planes side x side ([i][c][y][x]) and a k x k kernel.
HWL_HD std::int64_t im2colSource(std::int64_t e, int channels, int side, int k) {
    const int o = side - k + 1, width = channels * k * k;
    const std::int64_t row = e / width;
    const int col = int(e % width);
    const std::int64_t i = row / (o * o);
    const int at = int(row % (o * o)), oy = at / o, ox = at % o;
    const int c = col / (k * k), ky = (col % (k * k)) / k, kx = col % k;
    return ((i * channels + c) * side + oy + ky) * side + ox + kx;
}

/// col2im, gathered: input element e's gradient, the sum of the patch
/// entries that copied it, added from 0 in the CPU's order
/// (netops::col2imRowsAdd: by ky, then kx), so the bits are the CPU's.
template <class T>
HWL_HD T col2imGather(const T* cols, std::int64_t e, int channels, int side, int k) {
    const int o = side - k + 1, width = channels * k * k;
    const int x = int(e % side), y = int((e / side) % side);
    const int c = int((e / (std::int64_t(side) * side)) % channels);
    const std::int64_t i = e / (std::int64_t(channels) * side * side);
    T sum = 0;
    for (int ky = y - o + 1 > 0 ? y - o + 1 : 0; ky < k && ky <= y; ++ky)
        for (int kx = x - o + 1 > 0 ? x - o + 1 : 0; kx < k && kx <= x; ++kx)
            sum += cols[((i * o + y - ky) * o + x - kx) * width + (c * k + ky) * k + kx];
    return sum;
}

/// The bias of element e of replicas' convolution outputs (`channels` x
/// `cols` a replica): its index in the replicas' parameters.
HWL_HD std::int64_t channelBiasIndex(std::int64_t e, int channels, std::int64_t cols,
                                     std::int64_t paramStride, std::int64_t biasOffset) {
    return e / (channels * cols) * paramStride + biasOffset + (e / cols) % channels;
}

/// Where output e of a 2x2, stride-2 max-pool over replicas' convolution
/// outputs ([c][i][side][side] a replica, n samples) reads: its replica, its
/// plane i * channels + c (the index of its Dropout2d factor in the
/// replica's), and its window's top-left corner in the replica's input. The
/// output is [i][c][side / 2][side / 2] a replica.
struct PoolWindow {
    std::int64_t replica, plane, corner;
};
HWL_HD PoolWindow poolWindow(std::int64_t e, int channels, int n, int side) {
    const int half = side / 2;
    const std::int64_t area = std::int64_t(side) * side;
    const std::int64_t perReplica = std::int64_t(n) * channels * half * half;
    const std::int64_t r = e / perReplica, j = e % perReplica;
    const int px = int(j % half), py = int((j / half) % half);
    const std::int64_t plane = j / (half * half); // i * channels + c
    const int c = int(plane % channels), i = int(plane / channels);
    return {r, plane, (std::int64_t(c) * n + i) * area + 2 * py * side + 2 * px};
}

/// The first maximum in row order of the 2x2 window at `corner` of planes
/// `side` wide: PyTorch's max_pool2d choice, and netops::maxPool2Row's.
template <class T>
HWL_HD std::int64_t firstMax2x2(const T* z, std::int64_t corner, int side) {
    std::int64_t best = corner; // then right, below, below right
    if (z[corner + 1] > z[best])
        best = corner + 1;
    if (z[corner + side] > z[best])
        best = corner + side;
    if (z[corner + side + 1] > z[best])
        best = corner + side + 1;
    return best;
}

/// ReLU(v times its dropout factor scale[at]; v alone without factors): the
/// pool's Dropout2d and ReLU, and fc1's ReLU and dropout (relu(v) * s equals
/// relu(v * s) for s >= 0, bit for bit).
template <class T>
HWL_HD T reluScaled(T v, const T* scale, std::int64_t at) {
    const T s = scale ? v * scale[at] : v;
    return s > T(0) ? s : T(0);
}

/// reluScaled's backward: the gradient g of its output `post` times the
/// factor where the output passed, else 0.
template <class T>
HWL_HD T reluScaledGradient(T g, T post, const T* scale, std::int64_t at) {
    return post > T(0) ? (scale ? g * scale[at] : g) : T(0);
}

} // namespace hwl::devicemath
