#include "backend/cuda/cudabackend.h"

#include "backend/cpu/cpubackend.h"
#include "backend/cpu/modelkernel.h"
#include "backend/cuda/deviceshapes.h"
#include "backend/devicetraining.h"
#include "backend/hostupdate.h"
#include "model/embeddingbag.h"
#include "optim/hogwild.h"
#include "util/errors.h"

#include <mutex>

namespace hwl {

namespace {

/// The most rows one lossAndGradient() passes to the device.
constexpr int kMaxRows = 4096;

cuda::HostData denseRows(const DatasetView& train) {
    if (train.isSparse())
        throw InputError("dataset: the CUDA backend's step kernel reads dense rows (sparse rows "
                         "train on the GPU in mode gpu-hogwild)");
    return hostData(train);
}

class CudaStepKernel final : public HostUpdateKernel {
public:
    CudaStepKernel(const Model& model, const DatasetView& train, const OptimizerSpec& optimizer,
                   std::uint32_t rank, std::uint32_t workers)
        : HostUpdateKernel(model.layout().total(), optimizer, rank, workers),
          runner_(cuda::StepRunner::create(
              mlpShape(model, "the CUDA backend's step kernel trains mlp models (the embedding "
                              "bag trains on the GPU in mode gpu-hogwild)"),
              denseRows(train), kMaxRows)),
          host_(makeModelKernel(model)) {
        const std::int64_t total = model.layout().total();
        ws_.grad.values.resize(std::size_t(total));
        ws_.grad.segments = {{0, total, 0}}; // dense: one segment over everything
    }

    float lossAndGradient(const float* params, const std::int64_t* rows, std::int64_t n) override {
        if (n > kMaxRows)
            throw InputError("batch: the CUDA backend's step kernel takes at most " +
                             std::to_string(kMaxRows) + " rows a step");
        rows32_.assign(rows, rows + n);
        return runner_->lossAndGradient(params, rows32_.data(), int(n), ws_.grad.values.data());
    }
    /// A range of rows: the host's arithmetic (Backend::evaluate, over every
    /// row, is the device's).
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end) override {
        return host_->evaluate(params, data, begin, end, hostWs_);
    }

private:
    std::unique_ptr<cuda::StepRunner> runner_;
    std::unique_ptr<ModelKernel> host_;
    Workspace<float> hostWs_;
    std::vector<std::int32_t> rows32_;
};

class CudaBackend final : public Backend, public DeviceTraining {
public:
    explicit CudaBackend(cuda::DeviceReport report) : report_(std::move(report)) {}
    const char* name() const override { return "cuda"; }
    const DeviceTraining* deviceTraining() const override { return this; }
    const cuda::DeviceReport& devices() const override { return report_; }
    std::unique_ptr<cuda::ReplicaTrainer> replicas(const cuda::ReplicaSettings& settings,
                                                   const DatasetView& train) const override {
        return cuda::ReplicaTrainer::create(settings, hostData(train));
    }
    std::unique_ptr<cuda::HogwildTrainer> hogwild(const cuda::HogwildSettings& settings,
                                                  const DatasetView& train) const override {
        return cuda::HogwildTrainer::create(settings, hostData(train));
    }
    std::unique_ptr<cuda::Evaluator> evaluator(const Model& model,
                                               const DatasetView& test) const override {
        const bool bag = dynamic_cast<const EmbeddingBag*>(&model) != nullptr;
        const cuda::BagShape shape = bag ? bagShape(model) : cuda::BagShape{};
        return cuda::Evaluator::create(bag ? cuda::MlpShape{}
                                           : mlpShape(model, "the device's evaluator knows the mlp "
                                                             "and the embedding bag"),
                                       bag ? &shape : nullptr, hostData(test));
    }
    std::unique_ptr<StepKernel> makeKernel(const Model& model, const DatasetView& train,
                                           const OptimizerSpec& optimizer, std::uint32_t rank,
                                           std::uint32_t workers) const override {
        return std::make_unique<CudaStepKernel>(model, train, optimizer, rank, workers);
    }
    /// Stores live where the CPU's do: the kernel uploads what it reads.
    ParameterStore allocate(std::int64_t count, StorePlace place, const std::string& purpose,
                            StoreExtras extras) const override {
        return cpuBackend().allocate(count, place, purpose, extras);
    }
    EvalResult evaluate(const Model& model, const float* params,
                        const DatasetView& data) const override {
        const cuda::EvalTotals t = evaluator(model, data)->evaluateHost(params);
        return {t.lossSum, t.correct, t.count};
    }

private:
    cuda::DeviceReport report_;
};

struct Probed {
    const Backend* backend = nullptr;
    std::string why;
};

Probed probe() {
    cuda::DeviceReport report = cuda::initialise();
    if (report.devices.empty())
        return {nullptr, report.error};
    static const CudaBackend backend(std::move(report));
    return {&backend, {}};
}

} // namespace

const Backend* cudaBackend(std::string* why) {
    static const Probed once = probe();
    if (!once.backend && why)
        *why = once.why;
    return once.backend;
}

} // namespace hwl
