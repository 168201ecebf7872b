// The CNN on the data-parallel replicas (replicas.h): PyTorch's
// mnist_hogwild network, as backend/cpu/cnnkernel.cpp computes it, for every
// replica of a GPU at once. Each convolution is im2col plus one
// strided-batched cuBLAS GEMM over the replicas (their weights P apart, their
// patches one after the other); max-pool keeps its choice for the backward
// pass; Dropout2d and dropout draw from the stream a CPU worker of the same
// rank draws from for the same batch (util/xoshiro.h; the seed, the epoch,
// the batch's place in the epoch, the rank). The gather before and the
// softmax, the mean and the SGD step after are the MLP's (replicas.cu).
#include "cuda/cnnkernels.cuh"
#include "cuda/replicas.h"

namespace hwl::cuda::module {

namespace {

/// Row-major C (m x n) = op(A) (m x k) * op(B) (k x n) for `batch`
/// replicas, A, B and C each `stride*` apart; transA: A is stored k x m,
/// transB: B is stored n x k. (cuBLAS is column-major: C^T = op(B)^T op(A)^T.)
void gemm(cublasHandle_t blas, bool transA, bool transB, std::int64_t m, std::int64_t n,
          std::int64_t k, const float* A, std::int64_t strideA, const float* B,
          std::int64_t strideB, float* C, std::int64_t strideC, int batch, const char* what) {
    const float one = 1, zero = 0;
    const int lda = int(transA ? m : k), ldb = int(transB ? k : n);
    check(cublasSgemmStridedBatched(blas, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m), int(k),
                                    &one, B, ldb, strideB, A, lda, strideA, &zero, C, int(n),
                                    strideC, batch),
          what);
}

} // namespace

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
    // As a CPU worker of rank q: Rng(derive(seed, derive(derive(epoch,
    // place), q + 1))), the batch's place its offset in the rank's epoch.
    for (std::int64_t k = first; k < first + count; ++k)
        for (int r = 0; r < R_; ++r) {
            const std::uint64_t place = std::uint64_t(k) * std::uint64_t(s_.batch);
            const std::uint64_t key = xoshiro::derive(xoshiro::derive(std::uint64_t(epoch_), place),
                                                      std::uint64_t(g.first + r) + 1);
            g.cnn->hostSeeds[(k % kLossHistory) * R_ + r] = xoshiro::derive(s_.cnn.seed, key);
        }
    check(cudaMemcpyAsync(g.cnn->seeds.p, g.cnn->hostSeeds,
                          std::size_t(kLossHistory) * R_ * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, g.stream),
          "cudaMemcpy (dropout seeds)");
}

void Replicas::forwardCnn(Gpu& g, int n) {
    const CnnShape& s = s_.cnn;
    CnnBuffers& b = *g.cnn;
    const int k = int(s.kernel), c1 = int(s.conv1), c2 = int(s.conv2);
    const std::int64_t images = std::int64_t(R_) * n, k2 = s.kernel * s.kernel;
    const std::int64_t cols1 = n * s.side1() * s.side1(), cols2 = n * s.side2() * s.side2();
    const float* scale2 = nullptr;
    const float* scale3 = nullptr;
    if (s.dropout > 0) {
        dropoutKernel<<<unsigned(R_ + 63) / 64, 64, 0, g.stream>>>(
            b.seeds.p, g.step.p, R_, n, c2, int(s.hidden), s.dropout, b.scale2.p, b.scale3.p);
        scale2 = b.scale2.p;
        scale3 = b.scale3.p;
    }
    // conv1, max-pool, ReLU
    im2colKernel<<<gridFor(images * cols1 / n * k2), kThreads, 0, g.stream>>>(
        g.x.p, images, 1, int(s.side), k, b.p1.p);
    gemm(g.blas, false, true, c1, cols1, k2, g.params.p + s.conv1Weight, P_, b.p1.p, cols1 * k2,
         b.z1.p, c1 * cols1, R_, "cublasSgemmStridedBatched (conv1)");
    channelBiasKernel<<<gridFor(R_ * c1 * cols1), kThreads, 0, g.stream>>>(
        b.z1.p, c1, cols1, R_, g.params.p, P_, s.conv1Bias);
    poolReluKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0, g.stream>>>(
        b.z1.p, c1, n, int(s.side1()), R_, nullptr, b.a1.p, b.pick1.p);
    // conv2, Dropout2d, max-pool, ReLU
    const std::int64_t width2 = c1 * k2;
    im2colKernel<<<gridFor(images * cols2 / n * width2), kThreads, 0, g.stream>>>(
        b.a1.p, images, c1, int(s.pooled1()), k, b.p2.p);
    gemm(g.blas, false, true, c2, cols2, width2, g.params.p + s.conv2Weight, P_, b.p2.p,
         cols2 * width2, b.z2.p, c2 * cols2, R_, "cublasSgemmStridedBatched (conv2)");
    channelBiasKernel<<<gridFor(R_ * c2 * cols2), kThreads, 0, g.stream>>>(
        b.z2.p, c2, cols2, R_, g.params.p, P_, s.conv2Bias);
    poolReluKernel<<<gridFor(images * s.flat()), kThreads, 0, g.stream>>>(
        b.z2.p, c2, n, int(s.side2()), R_, scale2, b.a2.p, b.pick2.p);
    // fc1, ReLU, dropout, fc2 (rows are samples from here on)
    gemm(g.blas, false, true, n, s.hidden, s.flat(), b.a2.p, n * s.flat(), g.params.p + s.fc1Weight,
         P_, b.h.p, n * s.hidden, R_, "cublasSgemmStridedBatched (fc1)");
    biasReluScaledKernel<<<gridFor(images * s.hidden), kThreads, 0, g.stream>>>(
        b.h.p, g.params.p, P_, s.fc1Bias, n, int(s.hidden), R_, scale3, b.h1.p);
    gemm(g.blas, false, true, n, s.classes, s.hidden, b.h1.p, n * s.hidden,
         g.params.p + s.fc2Weight, P_, b.logits.p, n * s.classes, R_,
         "cublasSgemmStridedBatched (fc2)");
    biasActivationKernel<<<gridFor(images * s.classes), kThreads, 0, g.stream>>>(
        b.logits.p, g.params.p, P_, s.fc2Bias, n, s.classes, R_, 0, nullptr);
}

void Replicas::backwardCnn(Gpu& g, int n) {
    const CnnShape& s = s_.cnn;
    CnnBuffers& b = *g.cnn;
    const int k = int(s.kernel), c1 = int(s.conv1), c2 = int(s.conv2);
    const std::int64_t images = std::int64_t(R_) * n, k2 = s.kernel * s.kernel;
    const std::int64_t cols1 = n * s.side1() * s.side1(), cols2 = n * s.side2() * s.side2();
    const std::int64_t width2 = c1 * k2;
    const bool drop = s.dropout > 0;
    float* grads = g.grads.p;
    // fc2, then dropout and ReLU
    gemm(g.blas, true, false, s.classes, s.hidden, n, b.delta.p, n * s.classes, b.h1.p,
         n * s.hidden, grads + s.fc2Weight, P_, R_, "cublasSgemmStridedBatched (fc2 gradient)");
    biasGradientKernel<<<gridFor(R_ * s.classes), kThreads, 0, g.stream>>>(
        b.delta.p, n, s.classes, R_, grads, P_, s.fc2Bias);
    gemm(g.blas, false, false, n, s.hidden, s.classes, b.delta.p, n * s.classes,
         g.params.p + s.fc2Weight, P_, b.dh.p, n * s.hidden, R_,
         "cublasSgemmStridedBatched (fc2 input gradient)");
    reluScaledBackwardKernel<<<gridFor(images * s.hidden), kThreads, 0, g.stream>>>(
        b.dh.p, b.h1.p, drop ? b.scale3.p : nullptr, images * s.hidden);
    // fc1
    gemm(g.blas, true, false, s.hidden, s.flat(), n, b.dh.p, n * s.hidden, b.a2.p, n * s.flat(),
         grads + s.fc1Weight, P_, R_, "cublasSgemmStridedBatched (fc1 gradient)");
    biasGradientKernel<<<gridFor(R_ * s.hidden), kThreads, 0, g.stream>>>(b.dh.p, n, s.hidden, R_,
                                                                          grads, P_, s.fc1Bias);
    gemm(g.blas, false, false, n, s.flat(), s.hidden, b.dh.p, n * s.hidden,
         g.params.p + s.fc1Weight, P_, b.da2.p, n * s.flat(), R_,
         "cublasSgemmStridedBatched (fc1 input gradient)");
    // max-pool 2 (with Dropout2d's factors), conv2
    check(cudaMemsetAsync(b.dz2.p, 0, std::size_t(R_ * c2 * cols2) * sizeof(float), g.stream),
          "cudaMemset");
    poolReluBackwardKernel<<<gridFor(images * s.flat()), kThreads, 0, g.stream>>>(
        b.da2.p, b.a2.p, b.pick2.p, c2, n, int(s.side2()), R_, drop ? b.scale2.p : nullptr,
        b.dz2.p);
    gemm(g.blas, false, false, c2, width2, cols2, b.dz2.p, c2 * cols2, b.p2.p, cols2 * width2,
         grads + s.conv2Weight, P_, R_, "cublasSgemmStridedBatched (conv2 gradient)");
    channelSumKernel<<<unsigned(R_ * c2), kSumThreads, 0, g.stream>>>(b.dz2.p, c2, cols2, grads, P_,
                                                                      s.conv2Bias);
    gemm(g.blas, true, false, cols2, width2, c2, b.dz2.p, c2 * cols2, g.params.p + s.conv2Weight,
         P_, b.dp2.p, cols2 * width2, R_, "cublasSgemmStridedBatched (conv2 input gradient)");
    col2imKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0, g.stream>>>(
        b.dp2.p, images, c1, int(s.pooled1()), k, b.da1.p);
    // max-pool 1, conv1 (no gradient for the images)
    check(cudaMemsetAsync(b.dz1.p, 0, std::size_t(R_ * c1 * cols1) * sizeof(float), g.stream),
          "cudaMemset");
    poolReluBackwardKernel<<<gridFor(images * c1 * s.pooled1() * s.pooled1()), kThreads, 0,
                             g.stream>>>(b.da1.p, b.a1.p, b.pick1.p, c1, n, int(s.side1()), R_,
                                         nullptr, b.dz1.p);
    gemm(g.blas, false, false, c1, k2, cols1, b.dz1.p, c1 * cols1, b.p1.p, cols1 * k2,
         grads + s.conv1Weight, P_, R_, "cublasSgemmStridedBatched (conv1 gradient)");
    channelSumKernel<<<unsigned(R_ * c1), kSumThreads, 0, g.stream>>>(b.dz1.p, c1, cols1, grads, P_,
                                                                      s.conv1Bias);
}

} // namespace hwl::cuda::module
