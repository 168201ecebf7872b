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
    /// torch.optim.SGD's momentum buffer over the flat parameters; empty
    /// without momentum (or before the first update, as PyTorch's state).
    std::vector<float> momentum;
};

} // namespace hwl
