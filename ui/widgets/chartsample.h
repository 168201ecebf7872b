#pragma once
// One point of a training curve as the GUI keeps it: every x the user can
// choose, and the value.
namespace hwl::ui {

struct ChartSample {
    double step = 0;    ///< the worker's step count (test series: all workers' steps)
    double samples = 0; ///< training samples seen (test series: all workers')
    double time = 0;    ///< seconds since the run started
    double value = 0;   ///< loss, or divergence
};

} // namespace hwl::ui
