#pragma once
// How the .cu files turn CUDA, cuBLAS and NCCL status codes into
// std::runtime_error with the library's own words (private to core/cuda).
#include "cuda/nccl.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hwl::cuda {

inline std::string cudaText(cudaError_t e) {
    return std::to_string(int(e)) + ", " + cudaGetErrorString(e);
}
inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + " returned " + cudaText(e));
}
inline void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + " returned cuBLAS status " +
                                 std::to_string(int(s)) + ", " + cublasGetStatusString(s));
}
/// NCCL's words come from the loaded library (a status means it is loaded).
inline void check(ncclResult_t r, const char* what) {
    if (r == ncclSuccess)
        return;
    const module::Nccl* n = module::loadNccl();
    throw std::runtime_error(std::string(what) + " returned NCCL status " + std::to_string(int(r)) +
                             ", " + (n ? n->getErrorString(r) : "(NCCL not loaded)"));
}

/// A copy ordered with the work on `stream` (the trainers' streams are
/// non-blocking: a plain cudaMemcpy would not be ordered with them), waited for.
inline void copyOn(cudaStream_t stream, void* dst, const void* src, std::size_t bytes,
                   cudaMemcpyKind kind, const char* what) {
    check(cudaMemcpyAsync(dst, src, bytes, kind, stream), what);
    check(cudaStreamSynchronize(stream), what);
}

/// Threads per block of the element-wise kernels, and their grid for n items.
constexpr int kThreads = 256;
inline unsigned gridFor(long long n) {
    const long long g = (n + kThreads - 1) / kThreads;
    return unsigned(g < 1 ? 1 : (g > 65535LL * 32 ? 65535LL * 32 : g));
}

} // namespace hwl::cuda
