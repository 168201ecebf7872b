#include "metricslog.h"

#include <cstdio>

namespace hwl {

std::size_t MetricsLog::drain(Telemetry& telemetry,
                              const std::function<void(const Sample&)>& onSample) {
    auto keep = [&](const Sample& s) {
        samples_.push_back(s);
        if (onSample)
            onSample(s);
    };
    std::size_t count = 0;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r)
        count += telemetry.worker(r).ring.drain(keep);
    count += telemetry.header().evalRing.drain(keep);
    return count;
}

std::string MetricsLog::csv() const {
    std::string out = "worker,epoch,step,samples,loss,time,kind,divergence,accuracy\n";
    char line[256];
    for (const auto& s : samples_) {
        const char* kind = s.kind == Sample::Eval       ? "eval"
                           : s.kind == Sample::EpochEnd ? "epoch"
                                                        : "step";
        std::snprintf(line, sizeof line, "%d,%u,%llu,%llu,%.9g,%.6f,%s,%.9g,%.9g\n", s.worker,
                      s.epoch, (unsigned long long)s.step, (unsigned long long)s.samples,
                      double(s.loss), s.time, kind, double(s.divergence), double(s.accuracy));
        out += line;
    }
    return out;
}

} // namespace hwl
