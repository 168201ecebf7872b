#pragma once
// Where a training step runs. A Backend (the CPU with Eigen; CUDA through the
// module core/cuda loads, backend/cuda/cudabackend.h) makes one StepKernel per worker and
// allocates the parameter stores its kernels work on. The double-precision
// CPU arithmetic (backend/cpu/modelkernel.h) is the reference every backend
// is compared with (tests/tst_backends), so a new backend only registers
// itself in backends().
//
// Threading: a Backend is immutable and shared; a StepKernel belongs to one
// worker (its scratch, its gradient, its optimizer state) and is used by that
// worker's thread only.
#include "data/dataset.h"
#include "model/model.h"
#include "optim/gradient.h"
#include "optim/hogwild.h"
#include "optim/optimizerspec.h"
#include "store/parameterstore.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hwl {

class DeviceTraining;

/// Sum of per-sample loss and number of correct predictions over some rows.
struct EvalResult {
    double lossSum = 0;
    std::int64_t correct = 0;
    std::int64_t count = 0;
    double meanLoss() const { return count ? lossSum / double(count) : 0.0; }
    double accuracy() const { return count ? double(correct) / double(count) : 0.0; }
    void add(const EvalResult& o) {
        lossSum += o.lossSum;
        correct += o.correct;
        count += o.count;
    }
};

/// Whether other workers write the same parameters while a step updates
/// them: Shared goes through the backend's documented racy entry point (the
/// Hogwild update), Private through the race-free rule.
enum class UpdateAccess { Private, Shared };

/// One worker's step on one backend.
class StepKernel {
public:
    virtual ~StepKernel() = default;
    /// Mean loss of training rows rows[0..n) at `params`; keeps the gradient
    /// for update() and gradient().
    virtual float lossAndGradient(const float* params, const std::int64_t* rows,
                                  std::int64_t n) = 0;
    /// The last gradient, on the host: which parameters it touches and by how much.
    virtual const Gradient<float>& gradient() const = 0;
    /// One SGD step with the last gradient (momentum buffer and weight decay
    /// as torch.optim.SGD): only the parameters the gradient touches change.
    virtual void update(float* params, UpdateAccess access) = 0;
    /// update() on shared parameters, block by block, counting into `tally`
    /// the block writes and the ones another worker's write overlapped
    /// (`versions`: the store's block versions; optim/hogwild.h).
    virtual void countedUpdate(float* params, std::uint32_t* versions,
                               hogwild::UpdateTally& tally) = 0;
    /// The same step over parameters [offset, offset + length) with
    /// `gradient` (length floats) in place of the last gradient: data-parallel
    /// replicas apply their averaged gradient bucket by bucket. Private access.
    virtual void updateRange(float* params, const float* gradient, std::int64_t offset,
                             std::int64_t length) = 0;
    /// --accumulate: adds the last gradient into the kernel's running sum,
    /// before the next micro-batch's lossAndGradient().
    virtual void accumulateGradient() = 0;
    /// The last gradient becomes the mean of itself and the `count - 1`
    /// accumulated before it (where gradient() and gradientInto()'s buffer
    /// say); the sum starts empty again.
    virtual void finishAccumulation(int count) = 0;
    /// The rate of the updates from now on (a schedule's, optim/lrschedule.h;
    /// the kernel starts at the OptimizerSpec's lr it was made with).
    virtual void setLearningRate(float lr) = 0;
    /// Loss sum and correct count over rows [begin, end) of `data`.
    virtual EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                                std::int64_t end) = 0;
    /// From the next lossAndGradient() on, a dense gradient's values go to
    /// `buffer` (the model's total floats; a data-parallel rank's slot in the
    /// collective's shared memory, which then needs no copy in) instead of
    /// the kernel's own storage; null: back to its own. `buffer` must be
    /// 64-byte aligned like the kernel's own (util/alignedvector.h: else the
    /// products round differently). True when the kernel does so; false when
    /// it cannot (a sparse gradient, one computed on a device, a misaligned
    /// buffer), and nothing changes. While a buffer is set, gradient() says
    /// which parameters the gradient touches but holds no values, and only
    /// updateRange() may apply it.
    virtual bool gradientInto(float* /*buffer*/) { return false; }
    /// The stream the next lossAndGradient()'s random choices (dropout) come
    /// from. The worker loop names each batch by its epoch and place in the
    /// epoch's row order, so a resumed run draws what an uninterrupted one
    /// would; the kernel adds its rank. Models without randomness ignore it.
    virtual void setNoiseKey(std::uint64_t /*key*/) {}
    /// How many updates this worker made before the next one (the worker
    /// loop's step count, a resumed run's included): Adam's bias correction
    /// and Adagrad's rate decay count from it. Call before each update.
    virtual void setStepCount(std::uint64_t /*done*/) {}
    /// The optimizer's state the updates keep, to save and to continue from
    /// (--out, --resume): OptimizerSpec::stateNames() buffers of the model's
    /// total floats one after another; empty for SGD without momentum.
    virtual std::span<float> optimizerState() { return {}; }
    /// --optimizer-state shared: from now on the updates keep the
    /// optimizer's state in `shared` (every worker's, updated without a lock
    /// as the shared parameters are) and take each update's number from its
    /// step count (setStepCount() is then ignored); optimizerState() is
    /// empty, the worker keeping none of its own. False where the kernel
    /// cannot (its state is on a device), and nothing changes.
    virtual bool shareOptimizerState(SharedOptimizerState /*shared*/) { return false; }
};

/// Where a parameter store lives.
enum class StorePlace {
    Heap,        ///< this process only (threads)
    SharedMemory ///< a POSIX shm segment other processes map by name
};

class Backend {
public:
    virtual ~Backend() = default;
    /// "cpu", "cuda": as --device would name it.
    virtual const char* name() const = 0;
    /// A kernel for worker `rank` of `workers`: `model` on training data
    /// `train` (which must outlive it), updating with `optimizer`.
    virtual std::unique_ptr<StepKernel> makeKernel(const Model& model, const DatasetView& train,
                                                   const OptimizerSpec& optimizer,
                                                   std::uint32_t rank,
                                                   std::uint32_t workers) const = 0;
    /// `count` floats, zero-filled, with the lost-update counter's block
    /// versions and the shared optimizer state when `extras` asks
    /// (store/parameterstore.h). Throws RunError when there is no room.
    virtual ParameterStore allocate(std::int64_t count, StorePlace place,
                                    const std::string& purpose, StoreExtras extras) const = 0;
    /// Loss and accuracy of `params` over every row of `data` (in parallel
    /// where the backend can; the result does not depend on how).
    virtual EvalResult evaluate(const Model& model, const float* params,
                                const DatasetView& data) const = 0;
    /// What the GPU modes train with on this backend's device
    /// (backend/devicetraining.h), or null for a backend without one.
    virtual const DeviceTraining* deviceTraining() const { return nullptr; }
};

/// The CPU backend: Eigen kernels, heap and shared-memory stores.
const Backend& cpuBackend();
/// Every backend this build has that can run here, the CPU first. Asking
/// loads the CUDA module and initialises CUDA in this process when the build
/// has it (backend/cuda/cudabackend.h): a process that forks afterwards must
/// not ask. A run's own process never does: its modes compute there on the
/// CPU (Strategy::backend(BackendRole::Host)).
std::vector<const Backend*> backends();
/// The backends this build knows that cannot run here, each with why
/// ("cuda", "no CUDA device: cudaGetDeviceCount returned 35, ...").
struct UnavailableBackend {
    std::string name, why;
};
std::vector<UnavailableBackend> unavailableBackends();
/// Adds `backend` to backends(), after the built-in ones: a backend built
/// outside the engine's own list (a plugin, or one a test defines). It must
/// outlive every later call of backends(); a name already listed is refused
/// (std::invalid_argument).
void registerBackend(const Backend& backend);

} // namespace hwl
