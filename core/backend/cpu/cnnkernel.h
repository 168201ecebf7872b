#pragma once
// The mnist_hogwild CNN's CPU arithmetic (model/cnn.h). Each convolution is
// im2col and one matrix product through the MLP's product kernels; perf on a
// serial run put about half of a step in those products and their packing,
// the rest in im2col, its reverse and the pools (a direct convolution was
// not tried). Each max-pool keeps which input it chose for the backward
// pass; dropout draws from the batch's noise key (StepKernel::setNoiseKey),
// so the same batch of the same run always drops the same units. Evaluation
// runs without dropout, as PyTorch's model.eval().
#include "backend/cpu/modelkernelof.h"
#include "model/cnn.h"

namespace hwl {

class CnnKernel final : public ModelKernelOf<CnnKernel> {
public:
    explicit CnnKernel(const Cnn& model)
        : shape_(model.shape()), at_(model.offsets()), total_(model.layout().total()),
          dropout_(model.spec().dropout), seed_(model.spec().dropoutSeed) {}

private:
    friend class ModelKernelOf<CnnKernel>;
    const float* logits(const float* params, const DatasetView& data, const std::int64_t* rows,
                        std::int64_t n, Workspace<float>& ws) const;
    std::int64_t classes() const { return shape_.classes; }
    template <class T>
    void forward(const T* params, std::int64_t n, bool training, Workspace<T>& ws) const;
    template <class T>
    void backward(const T* params, std::int64_t n, Workspace<T>& ws, T* grad) const;
    template <class T>
    T train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
            Workspace<T>& ws) const;

    Cnn::Shape shape_;
    Cnn::Offsets at_;
    std::int64_t total_;
    double dropout_;
    std::uint64_t seed_;
};

} // namespace hwl
