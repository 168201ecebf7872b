#pragma once
// The index maps of the replica-batched matrix products of a data-parallel
// step on the GPU: which product each layer takes, with which shapes,
// operands and strides between replicas, and how a row-major product becomes
// cuBLAS's column-major call. replicas.cu and cnnreplicas.cu launch exactly
// these; tests/tst_devicecnn emulates cuBLAS's strided-batched product from
// the same CublasCall on the host and holds whole steps against the CPU
// kernels, so a wrong stride or transpose fails in CI, not on a GPU.
// Plain C++ without nvcc.
#include "cuda/cuda.h"
#include "util/hostdevice.h"

#include <cstdint>

namespace hwl::devicemath {

/// C_r (m x n) = op(A_r) (m x k) op(B_r) (k x n), row-major, for each
/// replica r, with X_r = X + r * strideX. transA: A is stored k x m (its
/// transpose is used); transB: B is stored n x k.
struct BatchedProduct {
    bool transA = false, transB = false;
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t strideA = 0, strideB = 0, strideC = 0;
};

/// cuBLAS's call for a BatchedProduct: cuBLAS is column-major, and a
/// row-major C is a column-major C^T = op(B)^T op(A)^T, so the call's first
/// operand is B and its second A. transFirst/transSecond: CUBLAS_OP_T.
struct CublasCall {
    bool transFirst = false, transSecond = false;
    std::int64_t rows = 0, cols = 0, depth = 0; ///< cuBLAS's m, n, k
    std::int64_t ldFirst = 0, ldSecond = 0, ldc = 0;
};

HWL_HD CublasCall cublasCallOf(const BatchedProduct& p) {
    return {p.transB, p.transA, p.n, p.m, p.k, p.transB ? p.k : p.n, p.transA ? p.m : p.k, p.n};
}

/// One MLP layer's three products for `rows` rows a replica (the layer's
/// input width `in`, output width `out`; parameters `paramStride` apart):
/// forward pre = X W^T, the weight gradient dW = delta^T X, the input
/// gradient dX = delta W (as backend/cpu/mlpkernel.cpp).
struct MlpLayerProducts {
    BatchedProduct forward, weightGradient, inputGradient;
};
HWL_HD MlpLayerProducts mlpLayerProducts(std::int64_t in, std::int64_t out, std::int64_t rows,
                                         std::int64_t paramStride) {
    return {{false, true, rows, out, in, rows * in, paramStride, rows * out},
            {true, false, out, in, rows, rows * out, rows * in, paramStride},
            {false, false, rows, in, out, rows * out, paramStride, rows * in}};
}

/// The CNN's products for `rows` rows a replica (CnnShape; parameters
/// `paramStride` apart). The patches of a convolution are one row per output
/// position (n x side^2 of them), one column per weight position; its output
/// is [channel][position] (channel-major), as backend/cpu/netkernel.cpp's.
struct CnnProducts {
    BatchedProduct conv1, conv2, fc1, fc2;                   ///< forward
    BatchedProduct fc2Weight, fc2Input, fc1Weight, fc1Input; ///< backward
    BatchedProduct conv2Weight, conv2Input, conv1Weight;     ///< (no image gradient)
};
inline CnnProducts cnnProducts(const cuda::CnnShape& s, std::int64_t rows,
                               std::int64_t paramStride) {
    const std::int64_t k2 = s.kernel * s.kernel, width2 = s.conv1 * k2;
    const std::int64_t cols1 = rows * s.side1() * s.side1(), cols2 = rows * s.side2() * s.side2();
    const std::int64_t P = paramStride, flat = s.flat(), hidden = s.hidden, classes = s.classes;
    CnnProducts p;
    p.conv1 = {false, true, s.conv1, cols1, k2, P, cols1 * k2, s.conv1 * cols1};
    p.conv2 = {false, true, s.conv2, cols2, width2, P, cols2 * width2, s.conv2 * cols2};
    p.fc1 = {false, true, rows, hidden, flat, rows * flat, P, rows * hidden};
    p.fc2 = {false, true, rows, classes, hidden, rows * hidden, P, rows * classes};
    p.fc2Weight = {true, false, classes, hidden, rows, rows * classes, rows * hidden, P};
    p.fc2Input = {false, false, rows, hidden, classes, rows * classes, P, rows * hidden};
    p.fc1Weight = {true, false, hidden, flat, rows, rows * hidden, rows * flat, P};
    p.fc1Input = {false, false, rows, flat, hidden, rows * hidden, P, rows * flat};
    p.conv2Weight = {false, false, s.conv2, width2, cols2, s.conv2 * cols2, cols2 * width2, P};
    p.conv2Input = {true, false, cols2, width2, s.conv2, s.conv2 * cols2, P, cols2 * width2};
    p.conv1Weight = {false, false, s.conv1, k2, cols1, s.conv1 * cols1, cols1 * k2, P};
    return p;
}

} // namespace hwl::devicemath
