#pragma once
// ModelKernelOf<Derived>: the ModelKernel interface made from a model's two
// templates, so each model writes its arithmetic once for float and double:
//   template <class T> T train(params, data, rows, n, ws) const
//       the mean loss of the rows and its gradient into ws.grad;
//   const float* logits(params, data, rows, n, ws) const
//       the forward pass of the rows, returning n x classes() logits;
//   std::int64_t classes() const.
#include "backend/cpu/modelkernel.h"
#include "backend/cpu/softmaxloss.h"

#include <algorithm>

namespace hwl {

template <class Derived>
class ModelKernelOf : public ModelKernel {
public:
    float lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                          std::int64_t n, Workspace<float>& ws) const final {
        return self().train(params, data, rows, n, ws);
    }
    double lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<double>& ws) const final {
        return self().train(params, data, rows, n, ws);
    }
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end, Workspace<float>& ws) const final {
        EvalResult result;
        forEachChunk(begin, end, [&](std::int64_t first, std::int64_t n, const std::int64_t* rows) {
            const float* z = self().logits(params, data, rows, n, ws);
            accumulateEval(z, n, self().classes(), data.labels, first, result);
        });
        return result;
    }
    void forwardLogits(const float* params, const DatasetView& data, std::int64_t begin,
                       std::int64_t end, float* out, Workspace<float>& ws) const final {
        const std::int64_t classes = self().classes();
        forEachChunk(begin, end, [&](std::int64_t first, std::int64_t n, const std::int64_t* rows) {
            const float* z = self().logits(params, data, rows, n, ws);
            std::copy(z, z + n * classes, out + (first - begin) * classes);
        });
    }

private:
    const Derived& self() const { return static_cast<const Derived&>(*this); }
};

} // namespace hwl
