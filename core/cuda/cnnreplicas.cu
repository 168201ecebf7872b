// The CNN on the data-parallel replicas (replicas.h): PyTorch's
// mnist_hogwild network, as backend/cpu/netkernel.cpp computes it, for every
// replica of a GPU at once. Each convolution is im2col plus one
// strided-batched cuBLAS GEMM over the replicas (their weights P apart, their
// patches one after the other: products.h's cnnProducts); max-pool keeps its
// choice for the backward pass; Dropout2d and dropout draw what a CPU worker
// of the same rank draws for the same batch, in the CPU's order
// (util/dropoutdraws.h). The gather before and the softmax, the mean and the
// SGD step after are the MLP's (replicas.cu). tests/tst_devicecnn runs this
// sequence on the host with the same per-element functions and products.
#include "cuda/cnnkernels.cuh"
#include "cuda/products.h"
#include "cuda/replicas.h"

namespace hwl::cuda::module {

void Replicas::setUpCnn(Gpu& g) {
    const CnnShape& s = s_.cnn;
    const std::int64_t rows = std::int64_t(R_) * s_.batch; // every replica's batch
    const std::int64_t k2 = s.kernel * s.kernel, o1 = s.side1(), o2 = s.side2();
    const std::int64_t a1 = s.conv1 * s.pooled1() * s.pooled1();
    g.cnn = std::make_unique<CnnBuffers>();
    CnnBuffers& b = *g.cnn;
    b.p1.allocate(rows * o1 * o1 * k2, g.bytes);
    b.z1.allocate(rows * s.conv1 * o1 * o1, g.bytes);
    b.dz1.allocate(rows * s.conv1 * o1 * o1, g.bytes);
    b.a1.allocate(rows * a1, g.bytes);
    b.da1.allocate(rows * a1, g.bytes);
    b.pick1.allocate(rows * a1, g.bytes);
    b.p2.allocate(rows * o2 * o2 * s.conv1 * k2, g.bytes);
    b.dp2.allocate(rows * o2 * o2 * s.conv1 * k2, g.bytes);
    b.z2.allocate(rows * s.conv2 * o2 * o2, g.bytes);
    b.dz2.allocate(rows * s.conv2 * o2 * o2, g.bytes);
    b.a2.allocate(rows * s.flat(), g.bytes);
    b.da2.allocate(rows * s.flat(), g.bytes);
    b.pick2.allocate(rows * s.flat(), g.bytes);
    b.h.allocate(rows * s.hidden, g.bytes);
    b.h1.allocate(rows * s.hidden, g.bytes);
    b.dh.allocate(rows * s.hidden, g.bytes);
    b.logits.allocate(rows * s.classes, g.bytes);
    b.delta.allocate(rows * s.classes, g.bytes);
    b.scale2.allocate(rows * s.conv2, g.bytes);
    b.scale3.allocate(rows * s.hidden, g.bytes);
    b.seeds.allocate(std::int64_t(kLossHistory) * R_, g.bytes);
    check(cudaMallocHost(&b.hostSeeds, std::size_t(kLossHistory) * R_ * sizeof(unsigned long long)),
          "cudaMallocHost");
}

void Replicas::writeNoiseSeeds(Gpu& g, std::int64_t first, std::int64_t count) {
    if (!g.cnn || s_.cnn.dropout <= 0)
        return;
    // As a CPU worker of rank q (util/dropoutdraws.h): the batch's place is
    // its offset in the rank's epoch.
    for (std::int64_t k = first; k < first + count; ++k)
        for (int r = 0; r < R_; ++r) {
            const std::uint64_t place = std::uint64_t(k) * std::uint64_t(s_.batch);
            g.cnn->hostSeeds[(k % kLossHistory) * R_ + r] = dropout::stepSeed(
                s_.cnn.seed, std::uint64_t(epoch_), place, std::uint64_t(g.first + r));
        }
    check(cudaMemcpyAsync(g.cnn->seeds.p, g.cnn->hostSeeds,
                          std::size_t(kLossHistory) * R_ * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, g.stream),
          "cudaMemcpy (dropout seeds)");
}

void Replicas::forwardCnn(Gpu& g, int n) {
    const CnnShape& s = s_.cnn;
    CnnBuffers& b = *g.cnn;
    const devicemath::CnnProducts m = devicemath::cnnProducts(s, n, P_);
    const int k = int(s.kernel), c1 = int(s.conv1), c2 = int(s.conv2);
    const std::int64_t images = std::int64_t(R_) * n, k2 = s.kernel * s.kernel;
    const std::int64_t cols1 = n * s.side1() * s.side1(), cols2 = n * s.side2() * s.side2();
    const float* scale2 = nullptr;
    const float* scale3 = nullptr;
    if (s.dropout > 0) {
        dropoutKernel<<<unsigned(R_ + 63) / 64, 64, 0, g.stream>>>(
            b.seeds.p, g.step.p, R_, n, s.dropoutGroup, c2, int(s.hidden), s.dropout, b.scale2.p,
            b.scale3.p);
        scale2 = b.scale2.p;
        scale3 = b.scale3.p;
    }
    const float* params = g.params.p;
    // conv1, max-pool, ReLU
    im2colKernel<<<gridFor(images * cols1 / n * k2), kThreads, 0, g.stream>>>(
        g.x.p, images, 1, int(s.side), k, b.p1.p);
    product(g, m.conv1, params + s.conv1Weight, b.p1.p, b.z1.p, "conv1");
    channelBiasKernel<<<gridFor(R_ * c1 * cols1), kThreads, 0, g.stream>>>(b.z1.p, c1, cols1, R_,
                                                                           params, P_, s.conv1Bias);
    poolReluKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0, g.stream>>>(
        b.z1.p, c1, n, int(s.side1()), R_, nullptr, b.a1.p, b.pick1.p);
    // conv2, Dropout2d, max-pool, ReLU
    const std::int64_t width2 = c1 * k2;
    im2colKernel<<<gridFor(images * cols2 / n * width2), kThreads, 0, g.stream>>>(
        b.a1.p, images, c1, int(s.pooled1()), k, b.p2.p);
    product(g, m.conv2, params + s.conv2Weight, b.p2.p, b.z2.p, "conv2");
    channelBiasKernel<<<gridFor(R_ * c2 * cols2), kThreads, 0, g.stream>>>(b.z2.p, c2, cols2, R_,
                                                                           params, P_, s.conv2Bias);
    poolReluKernel<<<gridFor(images * s.flat()), kThreads, 0, g.stream>>>(
        b.z2.p, c2, n, int(s.side2()), R_, scale2, b.a2.p, b.pick2.p);
    // fc1, ReLU, dropout, fc2 (rows are samples from here on)
    product(g, m.fc1, b.a2.p, params + s.fc1Weight, b.h.p, "fc1");
    biasReluScaledKernel<<<gridFor(images * s.hidden), kThreads, 0, g.stream>>>(
        b.h.p, params, P_, s.fc1Bias, n, int(s.hidden), R_, scale3, b.h1.p);
    product(g, m.fc2, b.h1.p, params + s.fc2Weight, b.logits.p, "fc2");
    biasActivationKernel<<<gridFor(images * s.classes), kThreads, 0, g.stream>>>(
        b.logits.p, params, P_, s.fc2Bias, n, s.classes, R_, 0, nullptr);
}

void Replicas::backwardCnn(Gpu& g, int n) {
    const CnnShape& s = s_.cnn;
    CnnBuffers& b = *g.cnn;
    const devicemath::CnnProducts m = devicemath::cnnProducts(s, n, P_);
    const int k = int(s.kernel), c1 = int(s.conv1), c2 = int(s.conv2);
    const std::int64_t images = std::int64_t(R_) * n;
    const std::int64_t cols1 = n * s.side1() * s.side1(), cols2 = n * s.side2() * s.side2();
    const bool drop = s.dropout > 0;
    const float* params = g.params.p;
    float* grads = g.grads.p;
    // fc2, then dropout and ReLU
    product(g, m.fc2Weight, b.delta.p, b.h1.p, grads + s.fc2Weight, "fc2 gradient");
    biasGradientKernel<<<gridFor(R_ * s.classes), kThreads, 0, g.stream>>>(
        b.delta.p, n, s.classes, R_, grads, P_, s.fc2Bias);
    product(g, m.fc2Input, b.delta.p, params + s.fc2Weight, b.dh.p, "fc2 input gradient");
    reluScaledBackwardKernel<<<gridFor(images * s.hidden), kThreads, 0, g.stream>>>(
        b.dh.p, b.h1.p, drop ? b.scale3.p : nullptr, images * s.hidden);
    // fc1
    product(g, m.fc1Weight, b.dh.p, b.a2.p, grads + s.fc1Weight, "fc1 gradient");
    biasGradientKernel<<<gridFor(R_ * s.hidden), kThreads, 0, g.stream>>>(b.dh.p, n, s.hidden, R_,
                                                                          grads, P_, s.fc1Bias);
    product(g, m.fc1Input, b.dh.p, params + s.fc1Weight, b.da2.p, "fc1 input gradient");
    // max-pool 2 (with Dropout2d's factors), conv2
    check(cudaMemsetAsync(b.dz2.p, 0, std::size_t(R_ * c2 * cols2) * sizeof(float), g.stream),
          "cudaMemset");
    poolReluBackwardKernel<<<gridFor(images * s.flat()), kThreads, 0, g.stream>>>(
        b.da2.p, b.a2.p, b.pick2.p, c2, n, int(s.side2()), R_, drop ? b.scale2.p : nullptr,
        b.dz2.p);
    product(g, m.conv2Weight, b.dz2.p, b.p2.p, grads + s.conv2Weight, "conv2 gradient");
    channelSumKernel<<<unsigned(R_ * c2), kSumThreads, 0, g.stream>>>(b.dz2.p, c2, cols2, grads, P_,
                                                                      s.conv2Bias);
    product(g, m.conv2Input, b.dz2.p, params + s.conv2Weight, b.dp2.p, "conv2 input gradient");
    col2imKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0, g.stream>>>(
        b.dp2.p, images, c1, int(s.pooled1()), k, b.da1.p);
    // max-pool 1, conv1 (no gradient for the images)
    check(cudaMemsetAsync(b.dz1.p, 0, std::size_t(R_ * c1 * cols1) * sizeof(float), g.stream),
          "cudaMemset");
    poolReluBackwardKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0,
                             g.stream>>>(b.da1.p, b.a1.p, b.pick1.p, c1, n, int(s.side1()), R_,
                                         nullptr, b.dz1.p);
    product(g, m.conv1Weight, b.dz1.p, b.p1.p, grads + s.conv1Weight, "conv1 gradient");
    channelSumKernel<<<unsigned(R_ * c1), kSumThreads, 0, g.stream>>>(b.dz1.p, c1, cols1, grads, P_,
                                                                      s.conv1Bias);
}

} // namespace hwl::cuda::module
