#pragma once
// Learning-rate schedules, as PyTorch's schedulers define them, so that a
// run here and a PyTorch script with the same schedule step at the same
// rates (tests/data/lrschedule.csv is PyTorch's own table of them):
//   constant              the rate stays --lr;
//   step:EPOCHS:GAMMA     StepLR(step_size=EPOCHS, gamma=GAMMA), stepped
//                         at each epoch's end: epoch e (from 1) trains at
//                         lr * GAMMA^floor((e - 1) / EPOCHS);
//   cosine                CosineAnnealingLR(T_max=epochs, eta_min=0),
//                         stepped at each epoch's end: epoch e trains at
//                         lr * (1 + cos(pi (e - 1) / epochs)) / 2;
// and --warmup-steps N: a linear warm-up over a worker's first N steps,
// LinearLR(start_factor=1/N, total_iters=N-1) stepped after every step:
// step s (from 0) is multiplied by min(1, (s + 1) / N). The warm-up factor
// and the epoch's rate multiply. Each worker follows the schedule through
// its own epochs and steps, as each process of PyTorch's mnist_hogwild has
// its own optimizer and scheduler.
#include <cstdint>
#include <string>

namespace hwl {

struct LrSchedule {
    enum class Kind { Constant, Step, Cosine };
    Kind kind = Kind::Constant;
    int stepEpochs = 1;  ///< step: epochs between decays
    double gamma = 1;    ///< step: the factor of each decay
    int epochs = 1;      ///< cosine: the run's epochs (T_max)
    double base = 0.01;  ///< --lr
    int warmupSteps = 0; ///< 0: no warm-up

    /// Whether every step trains at `base`.
    bool constant() const { return kind == Kind::Constant && warmupSteps == 0; }
    /// The rate of a worker's step `step` (from 0, counted over the whole
    /// run) in epoch `epoch` (from 1).
    double rate(int epoch, std::uint64_t step) const;
};

/// Parses --lr-schedule's text into `kind`, `stepEpochs` and `gamma`.
/// Throws InputError "lr-schedule: "..." is not valid: ..." with the
/// accepted forms.
LrSchedule parseLrSchedule(const std::string& spec);

/// The canonical text of `spec` ("step:10:0.5"), for messages and files.
std::string describeLrSchedule(const LrSchedule& schedule);

} // namespace hwl
