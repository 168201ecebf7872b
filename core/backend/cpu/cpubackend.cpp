#include "backend/cpu/cpubackend.h"

#include "backend/cpu/embeddingbagkernel.h"
#include "backend/cpu/mlpkernel.h"
#include "optim/hogwild.h"
#include "util/parallel.h"

namespace hwl {

namespace {

class CpuStepKernel final : public StepKernel {
public:
    CpuStepKernel(const Model& model, const DatasetView& train, const SgdSettings& sgd,
                  std::uint32_t rank, std::uint32_t workers)
        : math_(makeModelKernel(model)), train_(train), sgd_(sgd), rank_(rank), workers_(workers),
          velocity_(sgd.momentum > 0 ? std::size_t(model.layout().total()) : 0, 0.0f) {}

    float lossAndGradient(const float* params, const std::int64_t* rows, std::int64_t n) override {
        return math_->lossAndGradient(params, train_, rows, n, ws_);
    }
    const Gradient<float>& gradient() const override { return ws_.grad; }
    void update(float* params, UpdateAccess access) override {
        float* velocity = velocity_.empty() ? nullptr : velocity_.data();
        if (access == UpdateAccess::Shared)
            hogwild::applyUpdate(params, ws_.grad, velocity, sgd_, rank_, workers_);
        else
            applySgd(params, ws_.grad, velocity, sgd_, rank_, workers_);
    }
    void countedUpdate(float* params, std::uint32_t* versions,
                       hogwild::UpdateTally& tally) override {
        float* velocity = velocity_.empty() ? nullptr : velocity_.data();
        hogwild::applyCountedUpdate(params, versions, ws_.grad, velocity, sgd_, tally, rank_,
                                    workers_);
    }
    void updateRange(float* params, const float* gradient, std::int64_t offset,
                     std::int64_t length) override {
        detail::sgdRange(params + offset, gradient,
                         velocity_.empty() ? nullptr : velocity_.data() + offset, length, sgd_);
    }
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end) override {
        return math_->evaluate(params, data, begin, end, ws_);
    }

private:
    std::unique_ptr<ModelKernel> math_;
    DatasetView train_;
    SgdSettings sgd_;
    std::uint32_t rank_, workers_;
    Workspace<float> ws_;
    AlignedVector<float> velocity_; ///< the momentum buffer (empty without momentum)
};

} // namespace

std::unique_ptr<ModelKernel> makeModelKernel(const Model& model) {
    if (const auto* bag = dynamic_cast<const EmbeddingBag*>(&model))
        return std::make_unique<EmbeddingBagKernel>(*bag);
    return std::make_unique<MlpKernel>(dynamic_cast<const Mlp&>(model));
}

std::unique_ptr<StepKernel> CpuBackend::makeKernel(const Model& model, const DatasetView& train,
                                                   const SgdSettings& sgd, std::uint32_t rank,
                                                   std::uint32_t workers) const {
    return std::make_unique<CpuStepKernel>(model, train, sgd, rank, workers);
}

ParameterStore CpuBackend::allocate(std::int64_t count, StorePlace place,
                                    const std::string& purpose, bool versions) const {
    return place == StorePlace::Heap ? ParameterStore::onHeap(count, versions)
                                     : ParameterStore::inSharedMemory(count, purpose, versions);
}

EvalResult CpuBackend::evaluate(const Model& model, const float* params,
                                const DatasetView& data) const {
    const auto math = makeModelKernel(model);
    return parallelReduce<EvalResult>(
        data.rows, 1024,
        [&](std::int64_t begin, std::int64_t end) {
            Workspace<float> scratch;
            return math->evaluate(params, data, begin, end, scratch);
        },
        [](EvalResult& a, const EvalResult& b) { a.add(b); });
}

const Backend& cpuBackend() {
    static const CpuBackend backend;
    return backend;
}

} // namespace hwl
