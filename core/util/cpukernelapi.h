#pragma once
// The CPU's hot arithmetic as one table of plain functions: the step's
// matrix products, the embedding bag's mean of rows, the SGD rule and the
// collectives' mean in rank order. The engine carries one copy compiled for
// its own target (cpukernelbuiltin.cpp: -march=native, or x86-64-v2 in a
// portable build); a portable build also makes one shared module per wider
// instruction set (libhwl_cpu_x86-64-v3.so with AVX2 and FMA,
// libhwl_cpu_x86-64-v4.so with AVX-512), compiled from the same source
// (cpukernelimpl.h), of which cpukernels.cpp loads the best the processor
// runs. A module exports this table and nothing else (plain C types: no C++
// symbol can be shared between code built for different instruction sets).
// docs/install.md, "The portable build".
#include <stdint.h>

#define HWL_CPU_KERNELS_ABI 4u
#define HWL_CPU_KERNELS_SYMBOL "hwl_cpu_kernels"

extern "C" {

/// `length` gradient values at values[valueIndex..] belong to parameters
/// [offset, offset + length): optim/gradient.h's Gradient::Segment.
typedef struct HwlSegment {
    int64_t offset;
    int64_t length;
    int64_t valueIndex;
} HwlSegment;

typedef struct HwlCpuKernels {
    uint32_t abi;             ///< HWL_CPU_KERNELS_ABI of the build that made it
    const char* level;        ///< "x86-64-v3", or "native" for a -march=native build
    const char* instructions; ///< in words: "AVX2 and FMA"
    /// c (m x n) = a (m x k) * b (n x k) transposed; row-major, no aliasing.
    void (*productNT)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    /// c (m x n) = a (k x m) transposed * b (k x n).
    void (*productTN)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    /// c (m x n) = a (m x k) * b (k x n).
    void (*productNN)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    /// The same three products without packed copies of the operands
    /// (util/directproducts.h): for a convolution's shapes, where one side
    /// is short (a few output channels) and another long (the patches).
    void (*directNT)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    void (*directTN)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    void (*directNN)(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
    /// out (n x dim, zeroed first) = for each of the n bags (CSR rows rows[r]
    /// of offsets/indices/values) the value-weighted mean of table's rows.
    void (*bagMean)(const float* table, int64_t dim, const int64_t* offsets, const int32_t* indices,
                    const float* values, const int64_t* rows, int64_t n, float* out);
    /// grad (rows of dim values at slot[indices[k]]) += for each of the n bags
    /// dh's row r times each token's value over the bag's size: the bag
    /// mean's backward pass into the rows the batch used.
    void (*bagScatter)(const float* dh, int64_t dim, const int64_t* offsets, const int32_t* indices,
                       const float* values, const int64_t* rows, int64_t n, const int64_t* slot,
                       float* grad);
    /// The SGD rule over n parameters (optim/sgd.h): v = mu v + (g + wd p);
    /// p -= lr v (v untouched, may be null, when mu is 0).
    void (*sgdRange)(float* p, const float* g, float* v, int64_t n, float lr, float mu, float wd);
    /// The rule over `count` segments of a gradient, worker `rank` of
    /// `workers` starting rank/workers of the way into each (optim/sgd.h).
    void (*sgdSegments)(float* params, const float* values, const HwlSegment* segments,
                        int64_t count, float* velocity, float lr, float mu, float wd, uint32_t rank,
                        uint32_t workers);
    /// out[begin..end) = the mean of inputs[0..n)[begin..end), summed in
    /// rank order in double: every collective's one reduction
    /// (collective/rankmean.h), the same bits on every instruction set.
    void (*meanInRankOrder)(const float* const* inputs, uint32_t n, int64_t begin, int64_t end,
                            float* out);
} HwlCpuKernels;

/// A module's one export.
typedef const HwlCpuKernels* (*HwlCpuKernelsEntry)(void);
}
