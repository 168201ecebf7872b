#pragma once
// Where one worker's training stands, and its optimizer's state: what
// --out saves (optimizer.safetensors, io/optimizerstate.h) and --resume
// continues from. The row order of every epoch comes from the seed, the
// epoch and the rank (train/epochplan.h), so a position in epochs and steps
// is the whole of the data stream's state.
#include <cstdint>
#include <vector>

namespace hwl {

struct WorkerResume {
    std::uint32_t epochsDone = 0;   ///< epochs this worker finished, gate included
    std::uint64_t stepsInEpoch = 0; ///< updates it made in epoch epochsDone + 1
    std::uint64_t steps = 0;        ///< updates in all (the schedule's step count)
    /// The optimizer's state buffers over the flat parameters, one after
    /// another (OptimizerSpec::stateNames(): SGD's momentum buffer, Adam's
    /// exp_avg and exp_avg_sq, ...); empty for SGD without momentum. Adam's
    /// and Adagrad's step is `steps`.
    std::vector<float> state;
};

/// --optimizer-state shared: the one state every worker updated (laid out
/// as WorkerResume::state) and the step count they shared (Adam's and
/// Adagrad's step: all workers' updates together). Each worker's
/// WorkerResume then holds its position only.
struct SharedStateResume {
    std::vector<float> state;
    std::uint64_t steps = 0;
};

} // namespace hwl
