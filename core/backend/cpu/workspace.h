#pragma once
// Per-worker scratch space of the CPU kernels: activations and the gradient.
// Reused across steps; grows on first use and then never allocates again.
#include "optim/gradient.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <vector>

namespace hwl {

template <class T>
struct Workspace {
    AlignedVector<T> input;                  ///< batch x input width (gathered rows)
    std::vector<AlignedVector<T>> pre, post; ///< per layer: batch x width
    AlignedVector<T> delta, deltaPrev;       ///< backward buffers
    AlignedVector<T> partial;                ///< a layer list's gradient of one group of rows
    std::vector<std::int32_t> rowMark;       ///< embedding bag: row -> slot stamp
    std::vector<std::int64_t> rowSlot;
    std::int64_t stamp = 0;
    std::vector<std::vector<std::int32_t>> picks; ///< cnn: each max-pool's chosen inputs
    std::uint64_t noiseKey = 0;                   ///< the batch's dropout stream (setNoiseKey)
    std::int64_t groupFirst = 0; ///< a layer list: the first row of the group in training
    /// Set (tests/tst_devicemath): every dropout factor a training step
    /// draws, at [the kernel's step][row * width + unit] for the whole batch.
    std::vector<std::vector<T>>* dropoutLog = nullptr;
    Gradient<T> grad;
    /// Set: a dense gradient's values go here instead of grad.values
    /// (StepKernel::gradientInto).
    T* gradientBuffer = nullptr;
};

} // namespace hwl
