#include "io/metricslog.h"

#include "io/tensorfile.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <stdexcept>

#include <sys/types.h>
#include <unistd.h>

namespace hwl {

namespace {

/// One CSV row (with its newline) appended to `out`; `kind` its kind
/// column, else the sample's own.
void appendCsvRow(std::string& out, const Sample& s, const char* kind = nullptr) {
    if (!kind)
        kind = s.kind == Sample::Eval ? "eval" : s.kind == Sample::EpochEnd ? "epoch" : "step";
    char line[256];
    const int n =
        std::snprintf(line, sizeof line, "%d,%u,%llu,%llu,%.9g,%.6f,%s,%.9g,%.9g\n", s.worker,
                      s.epoch, (unsigned long long)s.step, (unsigned long long)s.samples,
                      double(s.loss), s.time, kind, double(s.divergence), double(s.accuracy));
    out.append(line, std::size_t(std::min<int>(n, int(sizeof line) - 1)));
}

/// The target row after `eval`, the evaluation that reached `target`: its
/// test loss and accuracy, the target's counts and time.
void appendTargetRow(std::string& out, const Sample& eval, const TargetResult& target) {
    Sample row = eval;
    row.worker = -1;
    row.step = target.steps;
    row.samples = target.samples;
    row.time = target.wallSeconds;
    row.divergence = 0;
    appendCsvRow(out, row, "target");
}

constexpr const char* kCsvHeader = "worker,epoch,step,samples,loss,time,kind,divergence,accuracy\n";

} // namespace

MetricsLog::MetricsLog() = default;
MetricsLog::~MetricsLog() = default;
MetricsLog::MetricsLog(MetricsLog&&) noexcept = default;
MetricsLog& MetricsLog::operator=(MetricsLog&&) noexcept = default;

std::size_t MetricsLog::drain(TelemetryReader& telemetry,
                              const std::function<void(const Sample&)>& onSample) {
    return telemetry.drain([&](const Sample& s) {
        append(s);
        if (onSample)
            onSample(s);
    });
}

void MetricsLog::append(const Sample& s) {
    memory_.push_back(s);
    if (memory_.size() >= kMemorySamples && spillError_.empty())
        spill();
}

namespace {

/// Moves all `bytes` at `offset` with io (::pread or ::pwrite), resuming
/// after short transfers and EINTR; false on an error or an early end of file.
template <class Io, class Byte>
bool transferAllAt(Io io, int fd, Byte* data, std::size_t bytes, off_t offset) {
    while (bytes > 0) {
        const ssize_t n = io(fd, data, bytes, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        bytes -= std::size_t(n);
        offset += n;
    }
    return true;
}

} // namespace

void MetricsLog::spill() {
    if (!file_) {
        file_.reset(std::tmpfile());
        if (!file_) {
            const int err = errno;
            spillError_ = "cannot create a temporary file for the metrics (" + errnoText(err) +
                          "); keeping them in memory";
            return;
        }
    }
    // Positioned writes after the good records (no shared file position, so a
    // forEach() in progress is not disturbed); a failed earlier write may
    // have left a partial tail, which is overwritten here.
    if (!transferAllAt(::pwrite, ::fileno(file_.get()),
                       reinterpret_cast<const char*>(memory_.data()),
                       memory_.size() * sizeof(Sample), off_t(spilled_ * sizeof(Sample)))) {
        const int err = errno;
        spillError_ = "cannot write the metrics' temporary file (" + errnoText(err) +
                      "); keeping them in memory";
        return; // the samples stay in memory_; the file's first spilled_ records are intact
    }
    spilled_ += memory_.size();
    memory_.clear();
}

void MetricsLog::forEach(const std::function<void(const Sample&)>& fn) const {
    // What is logged now; fn may append more (see the header) without
    // changing what this pass visits.
    const std::size_t spilled = spilled_;
    const std::vector<Sample> inMemory = memory_;
    if (file_ && spilled > 0) {
        std::vector<Sample> chunk(std::min<std::size_t>(spilled, kMemorySamples));
        for (std::size_t done = 0; done < spilled;) {
            const std::size_t n = std::min(chunk.size(), spilled - done);
            if (!transferAllAt(::pread, ::fileno(file_.get()),
                               reinterpret_cast<char*>(chunk.data()), n * sizeof(Sample),
                               off_t(done * sizeof(Sample)))) {
                const int err = errno;
                throw RunError("cannot read the metrics' temporary file back (" + errnoText(err) +
                               ")");
            }
            for (std::size_t i = 0; i < n; ++i)
                fn(chunk[i]);
            done += n;
        }
    }
    for (const Sample& s : inMemory)
        fn(s);
}

void MetricsLog::writeCsv(const std::filesystem::path& file, const Progress& progress,
                          const TargetResult* target) const {
    const std::size_t total = size();
    writeFileAtomically(file, [&](const ByteSink& sink) {
        std::string buffer = kCsvHeader;
        std::size_t rows = 0;
        bool targetDue = target && target->reached;
        forEach([&](const Sample& s) {
            appendCsvRow(buffer, s);
            if (targetDue && s.kind == Sample::Eval && int(s.epoch) == target->epochs &&
                s.samples == target->samples) {
                targetDue = false;
                appendTargetRow(buffer, s, *target);
            }
            ++rows;
            if (buffer.size() >= (1u << 16)) {
                sink(buffer);
                buffer.clear();
                if (progress && !progress(std::min(rows, total), total))
                    throw ExportCancelled();
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

namespace {
/// One row of metrics.csv as a sample; false when it is not one. A target
/// row is one, and `skip` says to leave it out (summary.json holds it).
bool parseRow(const std::string& line, Sample& s, bool& skip) {
    char kind[8] = {};
    unsigned long long step = 0, samples = 0;
    double loss = 0, divergence = 0, accuracy = 0;
    int used = 0;
    if (std::sscanf(line.c_str(), "%d,%u,%llu,%llu,%lf,%lf,%7[a-z],%lf,%lf%n", &s.worker, &s.epoch,
                    &step, &samples, &loss, &s.time, kind, &divergence, &accuracy, &used) != 9 ||
        std::size_t(used) != line.size())
        return false;
    const std::string k = kind;
    skip = k == "target";
    if (k != "step" && k != "epoch" && k != "eval" && !skip)
        return false;
    s.kind = k == "eval" ? Sample::Eval : k == "epoch" ? Sample::EpochEnd : Sample::Step;
    s.step = step;
    s.samples = samples;
    s.loss = float(loss);
    s.divergence = float(divergence);
    s.accuracy = float(accuracy);
    return true;
}
} // namespace

MetricsLog MetricsLog::fromCsv(const std::filesystem::path& file) {
    std::string why;
    FilePtr in = openRegularFile(file, why);
    if (!in)
        throw InputError("cannot read " + quoted(file) + ": " + why);
    MetricsLog log;
    char buffer[512];
    std::size_t lineNo = 0;
    while (std::fgets(buffer, sizeof buffer, in.get())) {
        std::string line = buffer;
        ++lineNo;
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        if (lineNo == 1 && line + "\n" == kCsvHeader)
            continue;
        Sample s;
        bool skip = false;
        if (!parseRow(line, s, skip))
            throw InputError(quoted(file) + " line " + std::to_string(lineNo) +
                             " is not a metrics.csv row (worker,epoch,step,samples,loss,time," +
                             "kind,divergence,accuracy)");
        if (!skip)
            log.append(s);
    }
    return log;
}

MetricsLog MetricsLog::continuing(const MetricsLog& earlier) const {
    MetricsLog all;
    double endTime = 0;
    std::map<std::int32_t, std::uint64_t> samplesOf; // per worker; -1: the evaluations
    earlier.forEach([&](const Sample& s) {
        all.append(s);
        endTime = std::max(endTime, s.time);
        samplesOf[s.worker] = std::max(samplesOf[s.worker], s.samples);
    });
    forEach([&](const Sample& s) {
        Sample moved = s;
        moved.time += endTime;
        moved.samples += samplesOf[s.worker];
        all.append(moved);
    });
    return all;
}

} // namespace hwl
