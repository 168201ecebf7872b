#pragma once
// HWL_HD marks a function that both the CUDA kernels (compiled by nvcc, on
// the device) and the CPU code and its tests (compiled by the C++ compiler,
// on the host) call: one definition of an arithmetic both sides must share.
// Without nvcc it is a plain inline function.
#if defined(__CUDACC__)
#define HWL_HD __host__ __device__ __forceinline__
#else
#define HWL_HD inline
#endif
