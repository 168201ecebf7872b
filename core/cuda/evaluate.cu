// Evaluation on the device (cuda.h, Evaluator): the test set uploaded once;
// per chunk of rows the model's forward pass (the MLP as cuBLAS GEMMs and the
// replica kernels with one replica; the embedding bag in one kernel), then
// each row's loss in double and whether it was right; the host adds the
// rows' results in row order. It matches the CPU's evaluation to float
// rounding (the products are summed in another order), not bit for bit.
#include "cuda/check.h"
#include "cuda/kernels.cuh"
#include "cuda/module.h"

#include <algorithm>
#include <vector>

namespace hwl::cuda::module {

namespace {

constexpr int kChunk = 4096; // rows per forward pass

/// Row i's loss (double) and correctness from its logits.
__global__ void evaluateRowsKernel(const float* z, const std::int32_t* labels, std::int64_t first,
                                   int n, int classes, double* loss, int* correct) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    correct[i] =
        devicemath::evaluateRow(z + std::int64_t(i) * classes, classes, labels[first + i], loss[i])
            ? 1
            : 0;
}

/// The embedding bag's logits of rows [first, first + n): z[i][c].
__global__ void bagLogitsKernel(const float* p, BagShape s, const std::int64_t* offsets,
                                const std::int32_t* indices, const float* values,
                                std::int64_t first, int n, float* z) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n * s.classes;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t i = first + k / s.classes, c = k % s.classes;
        const std::int64_t b = offsets[i], e = offsets[i + 1];
        float v = 0;
        for (std::int64_t d = 0; d < s.dim; ++d) {
            float h = 0;
            for (std::int64_t q = b; q < e; ++q)
                h += devicemath::bagWeight(values[q], e - b) *
                     p[s.table + std::int64_t(indices[q]) * s.dim + d];
            v += p[s.weight + c * s.dim + d] * h;
        }
        z[k] = v + p[s.bias + c]; // the bias after the product, as the CPU adds it
    }
}

template <class T>
T* deviceCopy(cudaStream_t stream, const T* host, std::int64_t n, std::vector<void*>& owned) {
    T* p = nullptr;
    check(cudaMalloc(&p, std::size_t(std::max<std::int64_t>(n, 1)) * sizeof(T)), "cudaMalloc");
    owned.push_back(p);
    if (host && n > 0)
        copyOn(stream, p, host, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, "cudaMemcpy");
    return p;
}

class DeviceEvaluator final : public Evaluator {
public:
    DeviceEvaluator(const MlpShape& mlp, const BagShape* bag, const HostData& test)
        : mlp_(mlp), bag_(bag ? *bag : BagShape{}), isBag_(bag != nullptr), test_(test) {
        try {
            setUp(test);
        } catch (...) { // no destructor runs for a half-built object
            release();
            throw;
        }
    }
    ~DeviceEvaluator() override { release(); }
    EvalTotals evaluate(const float* params) override;
    EvalTotals evaluateHost(const float* hostParams) override {
        check(cudaSetDevice(0), "cudaSetDevice");
        copyOn(stream_, params_, hostParams,
               std::size_t(isBag_ ? bag_.total : mlp_.total) * sizeof(float),
               cudaMemcpyHostToDevice, "cudaMemcpy (parameters)");
        return evaluate(params_);
    }

private:
    void setUp(const HostData& test) {
        check(cudaSetDevice(0), "cudaSetDevice");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        labels_ = deviceCopy(stream_, test.labels, test.rows, owned_);
        std::int64_t widest = isBag_ ? bag_.classes : 0;
        if (isBag_) {
            offsets_ = deviceCopy(stream_, test.offsets, test.rows + 1, owned_);
            indices_ = deviceCopy(stream_, test.indices, test.offsets[test.rows], owned_);
            values_ = deviceCopy(stream_, test.values, test.offsets[test.rows], owned_);
        } else {
            check(cublasCreate(&blas_), "cublasCreate");
            check(cublasSetStream(blas_, stream_), "cublasSetStream");
            dense_ = deviceCopy(stream_, test.dense, test.rows * test.dim, owned_);
            for (const auto& l : mlp_.layers)
                widest = std::max(widest, l.out);
        }
        a_ = deviceCopy<float>(stream_, nullptr, kChunk * widest, owned_);
        if (!isBag_) // the MLP ping-pongs between two buffers
            b_ = deviceCopy<float>(stream_, nullptr, kChunk * widest, owned_);
        loss_ = deviceCopy<double>(stream_, nullptr, kChunk, owned_);
        correct_ = deviceCopy<int>(stream_, nullptr, kChunk, owned_);
        params_ = deviceCopy<float>(stream_, nullptr, isBag_ ? bag_.total : mlp_.total, owned_);
    }
    void release() {
        cudaSetDevice(0);
        if (stream_)
            cudaStreamSynchronize(stream_);
        for (void* p : owned_)
            cudaFree(p);
        owned_.clear();
        if (blas_)
            cublasDestroy(blas_);
        if (stream_)
            cudaStreamDestroy(stream_);
        blas_ = nullptr;
        stream_ = nullptr;
    }

private:
    const float* bagLogits(const float* p, std::int64_t first, int n) {
        bagLogitsKernel<<<gridFor(n * bag_.classes), kThreads, 0, stream_>>>(
            p, bag_, offsets_, indices_, values_, first, n, a_);
        return a_;
    }
    /// The MLP's forward pass on rows [first, first + n), ping-ponging
    /// between two buffers; returns the logits.
    const float* mlpLogits(const float* p, std::int64_t first, int n) {
        const float one = 1, zero = 0;
        const float* input = dense_ + first * test_.dim;
        float* out = a_;
        for (std::size_t l = 0; l < mlp_.layers.size(); ++l) {
            const auto& L = mlp_.layers[l];
            check(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(L.out), n, int(L.in), &one,
                              p + L.weight, int(L.in), input, int(L.in), &zero, out, int(L.out)),
                  "cublasSgemm (evaluation)");
            const bool last = l + 1 == mlp_.layers.size();
            // The activation in place: pre and post are the same buffer here.
            biasActivationKernel<<<gridFor(std::int64_t(n) * L.out), kThreads, 0, stream_>>>(
                out, p, 0, L.bias, n, L.out, 1, mlp_.activation, last ? nullptr : out);
            input = out;
            out = out == a_ ? b_ : a_;
        }
        return input;
    }

    MlpShape mlp_;
    BagShape bag_;
    bool isBag_;
    HostData test_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t blas_ = nullptr;
    std::vector<void*> owned_;
    const float* dense_ = nullptr;
    const std::int64_t* offsets_ = nullptr;
    const std::int32_t* indices_ = nullptr;
    const float* values_ = nullptr;
    const std::int32_t* labels_ = nullptr;
    float *a_ = nullptr, *b_ = nullptr;
    double* loss_ = nullptr;
    int* correct_ = nullptr;
    float* params_ = nullptr; ///< evaluateHost()'s upload
};

EvalTotals DeviceEvaluator::evaluate(const float* params) {
    check(cudaSetDevice(0), "cudaSetDevice");
    EvalTotals t;
    std::vector<double> loss(kChunk);
    std::vector<int> correct(kChunk);
    const int classes = int(isBag_ ? bag_.classes : mlp_.layers.back().out);
    for (std::int64_t first = 0; first < test_.rows; first += kChunk) {
        const int n = int(std::min<std::int64_t>(kChunk, test_.rows - first));
        const float* z = isBag_ ? bagLogits(params, first, n) : mlpLogits(params, first, n);
        evaluateRowsKernel<<<(n + 127) / 128, 128, 0, stream_>>>(z, labels_, first, n, classes,
                                                                 loss_, correct_);
        check(cudaGetLastError(), "the evaluation kernel");
        copyOn(stream_, loss.data(), loss_, std::size_t(n) * sizeof(double), cudaMemcpyDeviceToHost,
               "cudaMemcpy (evaluation)");
        copyOn(stream_, correct.data(), correct_, std::size_t(n) * sizeof(int),
               cudaMemcpyDeviceToHost, "cudaMemcpy (evaluation)");
        for (int i = 0; i < n; ++i) { // in row order, as the CPU adds them
            t.lossSum += loss[std::size_t(i)];
            t.correct += correct[std::size_t(i)];
        }
        t.count += n;
    }
    return t;
}

} // namespace

std::unique_ptr<Evaluator> makeEvaluator(const MlpShape& mlp, const BagShape* bag,
                                         const HostData& test) {
    return std::make_unique<DeviceEvaluator>(mlp, bag, test);
}

} // namespace hwl::cuda::module
