#pragma once
// optimizer.safetensors: what --out keeps of the optimizer so that --resume
// continues a run where it stood (optim/resumepoint.h). Tensors under
// torch.optim.SGD's state names, "state.<i>.momentum_buffer" for parameter
// i of the model's state_dict order (with several workers, each has its own
// optimizer as in PyTorch's mnist_hogwild: "worker.<r>.state.<i>...");
// metadata: "format", "param_groups" (SGD's, as its state_dict says them),
// "workers" (each worker's epochs done, steps in the next epoch and steps
// in all), "model" and "seed". The file is written as the weights are
// (temporary file, then rename).
#include "config/experimentconfig.h"
#include "model/paramlayout.h"
#include "optim/resumepoint.h"

#include <filesystem>
#include <vector>

namespace hwl {

/// The name of parameter tensor `index`'s momentum buffer for worker
/// `rank` of `workers`.
std::string momentumBufferName(std::uint32_t rank, std::uint32_t workers, std::size_t index);

/// Writes `workers`' state for a run of `config` on `layout`. InputError
/// naming the file when it cannot be written.
void writeOptimizerState(const std::filesystem::path& file, const ParamLayout& layout,
                         const ExperimentConfig& config, const std::vector<WorkerResume>& workers);

/// Reads the state a run of `config` continues from. InputError (field
/// "resume") naming the file and what does not fit: another model, worker
/// count or momentum, a tensor missing or mis-shaped, a value not finite, a
/// position past the run's epochs.
std::vector<WorkerResume> readOptimizerState(const std::filesystem::path& file,
                                             const ParamLayout& layout,
                                             const ExperimentConfig& config);

} // namespace hwl
