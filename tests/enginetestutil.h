#pragma once
// Helpers of the engine tests that need no Qt (testutil.h includes them; the
// Qt-free GPU test, which the device bundle carries, includes only this).
#include "run/run.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hwl::test {

/// A small serial run that learns: an MLP 20-32-4 on 8000 teacher rows,
/// 10 epochs of plain SGD at 0.05, a fifth held out.
inline ExperimentConfig teacherConfig() {
    ExperimentConfig c;
    c.model = "mlp:20-32-4";
    c.dataset = "teacher:8000x20:4:16";
    c.mode = "serial";
    c.workers = 1;
    c.epochs = 10;
    c.batch = 32;
    c.lr = 0.05;
    c.momentum = 0;
    c.testFraction = 0.2;
    return c;
}

/// ||a - b|| / max(||b||, tiny): the error of a against the reference b.
inline double normalisedError(const std::vector<double>& a, const std::vector<double>& b) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (a[i] - b[i]) * (a[i] - b[i]);
        norm += b[i] * b[i];
    }
    return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
}

/// The largest element-wise difference of two parameter vectors.
inline double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    return worst;
}

/// Runs `c` to its end; `whileRunning` (when given) is called every 20 ms
/// and once at the end (e.g. to drain the telemetry into a metrics log).
inline std::unique_ptr<Run> runToEnd(const ExperimentConfig& c,
                                     const std::function<void(Run&)>& whileRunning = {}) {
    auto run = std::make_unique<Run>(c);
    run->start();
    while (!run->wait(std::chrono::milliseconds(20)))
        if (whileRunning)
            whileRunning(*run);
    if (whileRunning)
        whileRunning(*run);
    return run;
}

/// Why `c`, a config of a GPU mode, cannot be validated as that mode here:
/// the build has no GPU modes, or lists them as not built (no CUDA
/// compiler); empty when it can.
inline std::string whyGpuModeIsNotHere(const ExperimentConfig& c) {
    if (!findStrategy(c))
        return "this build has no GPU modes (HWL_CUDA off)";
    for (const ConfigIssue& i : validateExperiment(c))
        if (i.field == "mode")
            return c.mode + ": " + i.message;
    return {};
}

} // namespace hwl::test
