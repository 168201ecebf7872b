#pragma once
// The CUDA backend on the Backend seam: its step kernel computes the MLP's
// loss and gradient on device 0 (cuda::StepRunner: the kernels the GPU
// data-parallel step runs), the SGD update is the host's rule (optim/sgd.h),
// and Backend::evaluate runs on the device (cuda::Evaluator). It exists so
// that tests/tst_backends (and the device bundle's tst_gpu) check the CUDA
// arithmetic against the double CPU reference like any backend's. Its
// device side (Backend::deviceTraining, backend/devicetraining.h) is what
// the GPU modes train with: their device process computes on this backend.
//
// Asking for it loads the CUDA module and initialises CUDA in the calling
// process (cuda::initialise()): only processes that never fork afterwards ask.
#include "backend/backend.h"

#include <string>

namespace hwl {

/// The CUDA backend, or null with the reason in `why` (not built, the module
/// or a CUDA library missing, no device). Probed once per process.
const Backend* cudaBackend(std::string* why = nullptr);

} // namespace hwl
