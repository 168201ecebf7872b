#pragma once
// MetricsLog: what a monitor drained from a run's telemetry, kept in order,
// and its CSV form (metrics.csv).
#include "telemetry.h"

#include <functional>
#include <string>
#include <vector>

namespace hwl {

class MetricsLog {
public:
    /// Drains every worker ring and the evaluation ring once, appending what
    /// it finds and calling `onSample` for each new sample. Returns the count.
    std::size_t drain(Telemetry& telemetry,
                      const std::function<void(const Sample&)>& onSample = {});
    const std::vector<Sample>& samples() const { return samples_; }

    /// CSV with a header line: worker,epoch,step,samples,loss,time,kind,divergence,accuracy
    /// kind is step, epoch or eval; eval rows have worker -1 and the test loss.
    std::string csv() const;

private:
    std::vector<Sample> samples_;
};

} // namespace hwl
