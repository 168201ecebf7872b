#pragma once
// A backend's device side: what the GPU modes train with. A Backend that
// drives a device (the CUDA backend, backend/cuda/cudabackend.h) answers
// Backend::deviceTraining() with one; the CPU's answers null. The GPU modes
// get it from the backend their mode computes on (Strategy::backend), never
// from the module's factories directly, so a second device backend would
// plug in here. The types are the module's plain C++ ones (cuda/cuda.h).
//
// Only a process that may initialise its device asks for it (the GPU modes'
// device process): the first call initialises the device there.
#include "cuda/cuda.h"
#include "data/dataset.h"
#include "model/model.h"

#include <memory>

namespace hwl {

class DeviceTraining {
public:
    virtual ~DeviceTraining() = default;
    /// The devices this process sees (initialised once).
    virtual const cuda::DeviceReport& devices() const = 0;
    /// Data-parallel replicas over `train` (uploaded once).
    virtual std::unique_ptr<cuda::ReplicaTrainer> replicas(const cuda::ReplicaSettings& settings,
                                                           const DatasetView& train) const = 0;
    /// Lock-free thread blocks over one parameter copy.
    virtual std::unique_ptr<cuda::HogwildTrainer> hogwild(const cuda::HogwildSettings& settings,
                                                          const DatasetView& train) const = 0;
    /// The test set `test` evaluated on the device for `model` (an MLP or
    /// the embedding bag); throws with the reason where it cannot.
    virtual std::unique_ptr<cuda::Evaluator> evaluator(const Model& model,
                                                       const DatasetView& test) const = 0;
};

} // namespace hwl
