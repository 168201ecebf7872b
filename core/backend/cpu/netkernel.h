#pragma once
// A layer list's CPU arithmetic (model/net.h), cnn:mnist's among them. The
// layers become steps: each convolution is im2col and one matrix product
// over the whole batch through the MLP's product kernels, its output left
// channel-major ([channel][sample][row][column], what the product writes)
// for the next step to read in place; a Dropout2d just before a max-pool is
// applied to the pooled values, and a ReLU just after it in the same pass.
// Each max-pool keeps which input it chose for the backward pass; dropout
// draws from the batch's noise key (StepKernel::setNoiseKey), in layer order,
// so the same batch of the same run always drops the same units. Evaluation
// runs without dropout, as PyTorch's model.eval().
#include "backend/cpu/modelkernelof.h"
#include "backend/cpu/netops.h"
#include "model/net.h"

namespace hwl {

class NetKernel final : public ModelKernelOf<NetKernel> {
public:
    explicit NetKernel(const Net& model);
    /// Rows a training step takes through the network at once (0: the whole
    /// batch): its dropout draws go group by group (util/dropoutdraws.h).
    std::int64_t group() const { return group_; }

    struct Step {
        enum class Kind { Conv, MaxPool, AvgPool, Act, Dropout, Dropout2d, Flatten, Fc };
        Kind kind = Kind::Act;
        Activation act = Activation::Relu;
        TensorShape in, out;
        bool inChannelMajor = false, outChannelMajor = false;
        netops::Window window;             ///< Conv, MaxPool, AvgPool
        std::int64_t weight = 0, bias = 0; ///< Conv, Fc: offsets in the flat buffer
        double p = 0;                      ///< the dropouts, and a MaxPool's Dropout2d
        bool relu = false;                 ///< MaxPool: a ReLU after it
        bool dropBefore = false;           ///< MaxPool: a Dropout2d before it
    };

private:
    friend class ModelKernelOf<NetKernel>;
    const float* logits(const float* params, const DatasetView& data, const std::int64_t* rows,
                        std::int64_t n, Workspace<float>& ws) const;
    std::int64_t classes() const { return classes_; }
    template <class T>
    const T* forward(const T* params, std::int64_t n, bool training, Rng& rng,
                     Workspace<T>& ws) const;
    template <class T>
    void forwardStep(std::size_t s, const T* params, std::int64_t n, bool training, Rng& rng,
                     Workspace<T>& ws) const;
    template <class T>
    T* backwardStep(std::size_t s, const T* params, std::int64_t n, T* gradOut, Workspace<T>& ws,
                    T* grad) const;
    template <class T>
    T train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
            Workspace<T>& ws) const;
    netops::Planes inPlanes(const Step& step, std::int64_t n) const {
        return {n, step.in.image() ? step.in.channels : step.in.size(),
                step.in.image() ? step.in.height * step.in.width : 1, step.inChannelMajor};
    }

    std::vector<Step> steps_;
    std::size_t firstWithParameters_ = 0;
    /// Rows a training step takes through the network at once (0: all): a
    /// list with convolutions goes group by group, so that each group's
    /// patches and activations stay in the core's cache.
    std::int64_t group_ = 0;
    std::int64_t total_, classes_;
    std::uint64_t seed_;
};

} // namespace hwl
