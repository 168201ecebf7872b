#include "backend/cpu/cpubackend.h"

#include "backend/cpu/embeddingbagkernel.h"
#include "backend/cpu/mlpkernel.h"
#include "backend/cpu/netkernel.h"
#include "backend/hostupdate.h"
#include "optim/hogwild.h"
#include "util/dropoutdraws.h"
#include "util/parallel.h"
#include "util/random.h"

#include <cstdint>

namespace hwl {

namespace {

class CpuStepKernel final : public HostUpdateKernel {
public:
    CpuStepKernel(const Model& model, const DatasetView& train, const OptimizerSpec& optimizer,
                  std::uint32_t rank, std::uint32_t workers)
        : HostUpdateKernel(model.layout().total(), optimizer, rank, workers),
          math_(makeModelKernel(model)), train_(train),
          dense_(dynamic_cast<const EmbeddingBagKernel*>(math_.get()) == nullptr), rank_(rank) {}

    float lossAndGradient(const float* params, const std::int64_t* rows, std::int64_t n) override {
        return math_->lossAndGradient(params, train_, rows, n, ws_);
    }
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end) override {
        return math_->evaluate(params, data, begin, end, ws_);
    }
    void setNoiseKey(std::uint64_t key) override { ws_.noiseKey = dropout::rankKey(key, rank_); }
    bool gradientInto(float* buffer) override {
        // The embedding bag's gradient is sparse (its rows vary by batch); a
        // buffer aligned otherwise than the kernel's own would change bits.
        if (!dense_ || reinterpret_cast<std::uintptr_t>(buffer) % 64 != 0)
            return false;
        ws_.gradientBuffer = buffer;
        ws_.grad.values.clear(); // never a stale gradient where the new one is not
        return true;
    }

private:
    std::unique_ptr<ModelKernel> math_;
    DatasetView train_;
    bool dense_; ///< not the embedding bag: its gradient covers every parameter
    std::uint32_t rank_;
};

} // namespace

std::unique_ptr<ModelKernel> makeModelKernel(const Model& model) {
    if (const auto* bag = dynamic_cast<const EmbeddingBag*>(&model))
        return std::make_unique<EmbeddingBagKernel>(*bag);
    if (const auto* net = dynamic_cast<const Net*>(&model))
        return std::make_unique<NetKernel>(*net);
    return std::make_unique<MlpKernel>(dynamic_cast<const Mlp&>(model));
}

std::unique_ptr<StepKernel> CpuBackend::makeKernel(const Model& model, const DatasetView& train,
                                                   const OptimizerSpec& optimizer,
                                                   std::uint32_t rank,
                                                   std::uint32_t workers) const {
    return std::make_unique<CpuStepKernel>(model, train, optimizer, rank, workers);
}

ParameterStore CpuBackend::allocate(std::int64_t count, StorePlace place,
                                    const std::string& purpose, StoreExtras extras) const {
    return place == StorePlace::Heap ? ParameterStore::onHeap(count, extras)
                                     : ParameterStore::inSharedMemory(count, purpose, extras);
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
