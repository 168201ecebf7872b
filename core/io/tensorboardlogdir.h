#pragma once
// A TensorBoard logdir (--tensorboard DIR, the window's Run > TensorBoard
// logs): one folder per run, named as PyTorch's SummaryWriter names its
// runs (month, day, time) and after the run's mode and workers:
//   DIR/Dec06_14-30-05_threads-4w/events.out.tfevents.<seconds>.<host>.<pid>
//   DIR/Dec06_14-30-05_threads-4w-2/...  (a second run in the same second)
//   DIR/events.out.tfevents.0.hogwild-lab.experiment
// The last file, the logdir's own, is written once, by the first run or
// sweep that writes there: the HParams experiment (every field as an hparam,
// marked "differs" where the runs it was written for differ, the final/
// figures as its metrics) and the custom_scalars layout (one chart per
// figure with every worker's curve). io/tensorboardlog.h writes a run's.
#include "config/experimentconfig.h"

#include <ctime>
#include <string>
#include <vector>

namespace hwl {

/// The run folder's name for `config` started at `when` (local time):
/// "Dec06_14-30-05_threads-4w".
std::string tensorBoardRunName(const ExperimentConfig& config, std::time_t when);

/// Creates `logdir` (and its parents) and a new run folder in it, named by
/// tensorBoardRunName() with "-2", "-3"... when taken; returns its path.
/// InputError naming `name` ("tensorboard: cannot create directory ...").
std::string makeTensorBoardRunFolder(const std::string& logdir, const ExperimentConfig& config,
                                     std::time_t when, const std::string& name = "tensorboard");

/// The logdir's own file (see above) for the runs `runs` (a sweep's or a
/// comparison's, or one run's), unless the logdir has it already; creates
/// `logdir`. A file of that name that is not whole event records (cut short
/// by a crash) is replaced, and `note` (when given) says so. Returns whether
/// it wrote it. InputError as above.
bool writeTensorBoardExperiment(const std::string& logdir,
                                const std::vector<ExperimentConfig>& runs,
                                const std::string& name = "tensorboard",
                                std::string* note = nullptr);

/// The logdir's own file's name.
inline constexpr const char* kTensorBoardExperimentFile =
    "events.out.tfevents.0.hogwild-lab.experiment";

} // namespace hwl
