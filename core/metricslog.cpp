#include "metricslog.h"

#include "errors.h"
#include "tensorfile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <sys/types.h>
#include <unistd.h>

namespace hwl {

namespace {

/// One CSV row (with its newline) appended to `out`.
void appendCsvRow(std::string& out, const Sample& s) {
    const char* kind = s.kind == Sample::Eval       ? "eval"
                       : s.kind == Sample::EpochEnd ? "epoch"
                                                    : "step";
    char line[256];
    const int n =
        std::snprintf(line, sizeof line, "%d,%u,%llu,%llu,%.9g,%.6f,%s,%.9g,%.9g\n", s.worker,
                      s.epoch, (unsigned long long)s.step, (unsigned long long)s.samples,
                      double(s.loss), s.time, kind, double(s.divergence), double(s.accuracy));
    out.append(line, std::size_t(std::min<int>(n, int(sizeof line) - 1)));
}

constexpr const char* kCsvHeader = "worker,epoch,step,samples,loss,time,kind,divergence,accuracy\n";

} // namespace

MetricsLog::MetricsLog() = default;
MetricsLog::~MetricsLog() = default;
MetricsLog::MetricsLog(MetricsLog&&) noexcept = default;
MetricsLog& MetricsLog::operator=(MetricsLog&&) noexcept = default;

std::size_t MetricsLog::drain(Telemetry& telemetry,
                              const std::function<void(const Sample&)>& onSample) {
    auto keep = [&](const Sample& s) {
        append(s);
        if (onSample)
            onSample(s);
    };
    std::size_t count = 0;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r)
        count += telemetry.worker(r).ring.drain(keep);
    count += telemetry.header().evalRing.drain(keep);
    return count;
}

void MetricsLog::append(const Sample& s) {
    memory_.push_back(s);
    if (memory_.size() >= kMemorySamples && spillError_.empty())
        spill();
}

void MetricsLog::spill() {
    if (!file_) {
        file_.reset(std::tmpfile());
        if (!file_) {
            spillError_ = std::string("cannot create a temporary file for the metrics (") +
                          std::strerror(errno) + "); keeping them in memory";
            return;
        }
    }
    // Write after the good records: a failed earlier write may have left a
    // partial tail, which is overwritten here (reads never go past spilled_).
    if (::fseeko(file_.get(), off_t(spilled_ * sizeof(Sample)), SEEK_SET) != 0 ||
        std::fwrite(memory_.data(), sizeof(Sample), memory_.size(), file_.get()) !=
            memory_.size() ||
        std::fflush(file_.get()) != 0) {
        spillError_ = std::string("cannot write the metrics' temporary file (") +
                      std::strerror(errno) + "); keeping them in memory";
        return; // the samples stay in memory_; the file's first spilled_ records are intact
    }
    spilled_ += memory_.size();
    memory_.clear();
}

void MetricsLog::forEach(const std::function<void(const Sample&)>& fn) const {
    if (file_ && spilled_ > 0) {
        std::vector<Sample> chunk(std::min<std::size_t>(spilled_, kMemorySamples));
        std::size_t done = 0;
        if (std::fseek(file_.get(), 0, SEEK_SET) != 0)
            throw RunError("cannot read the metrics' temporary file back");
        while (done < spilled_) {
            const std::size_t want = std::min(chunk.size(), spilled_ - done);
            const std::size_t got = std::fread(chunk.data(), sizeof(Sample), want, file_.get());
            for (std::size_t i = 0; i < got; ++i)
                fn(chunk[i]);
            done += got;
            if (got < want) // a file we wrote and flushed ourselves: only an I/O error
                throw RunError("cannot read the metrics' temporary file back");
        }
    }
    for (const Sample& s : memory_)
        fn(s);
}

void MetricsLog::writeCsv(const std::filesystem::path& file) const {
    writeFileAtomically(file, [&](const ByteSink& sink) {
        std::string buffer = kCsvHeader;
        forEach([&](const Sample& s) {
            appendCsvRow(buffer, s);
            if (buffer.size() >= (1u << 16)) {
                sink(buffer);
                buffer.clear();
            }
        });
        sink(buffer);
    });
}

std::string MetricsLog::csv() const {
    std::string out = kCsvHeader;
    forEach([&](const Sample& s) { appendCsvRow(out, s); });
    return out;
}

} // namespace hwl
