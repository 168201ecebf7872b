#pragma once
// optimizer.safetensors: what --out keeps of the optimizer so that --resume
// continues a run where it stood (optim/resumepoint.h). Tensors under
// torch.optim's state names, "state.<i>.<key>" for parameter i of the
// model's state_dict order and each key of OptimizerSpec::stateNames()
// ("momentum_buffer"; "exp_avg", "exp_avg_sq"; "square_avg"; "sum"); with
// several workers, each has its own optimizer as in PyTorch's mnist_hogwild:
// "worker.<r>.state.<i>.<key>"; metadata: "format", "optimizer" (its
// --optimizer name; absent: sgd), "param_groups" (as its state_dict says them),
// "workers" (each worker's epochs done, steps in the next epoch and steps
// in all: Adam's and Adagrad's step), "model" and "seed". With
// --optimizer-state shared the workers had one state: its tensors are
// "state.<i>.<key>" whatever the worker count, and the metadata adds
// "optimizer_state" ("shared"; absent: per-worker) and "shared_step" (the
// step count all workers shared). The file is written as the weights are
// (temporary file, then rename).
#include "config/experimentconfig.h"
#include "model/paramlayout.h"
#include "optim/resumepoint.h"

#include <filesystem>
#include <vector>

namespace hwl {

/// The name of state `key` ("momentum_buffer", "exp_avg", ...) of
/// parameter tensor `index` for worker `rank` of `workers`.
std::string stateTensorName(std::uint32_t rank, std::uint32_t workers, std::size_t index,
                            const std::string& key);

/// Writes `workers`' state for a run of `config` on `layout` (with
/// `shared`: that one state, and the workers' positions). InputError naming
/// the file when it cannot be written.
void writeOptimizerState(const std::filesystem::path& file, const ParamLayout& layout,
                         const ExperimentConfig& config, const std::vector<WorkerResume>& workers,
                         const SharedStateResume* shared = nullptr);

/// Reads the state a run of `config` continues from. InputError (field
/// "resume") naming the file and what does not fit: another model, worker
/// count, optimizer or momentum, a tensor missing or mis-shaped, a value not finite, a
/// position past the run's epochs, a state kept otherwise than
/// config.optimizerState says. A shared state goes to `shared` (which a
/// run of --optimizer-state shared must pass).
std::vector<WorkerResume> readOptimizerState(const std::filesystem::path& file,
                                             const ParamLayout& layout,
                                             const ExperimentConfig& config,
                                             SharedStateResume* shared = nullptr);

} // namespace hwl
