#pragma once
// MetricsLog: what a monitor drained from a run's telemetry, kept in order,
// and its CSV form (metrics.csv).
//
// Memory stays bounded however long the run: past kMemorySamples samples the
// log moves them, as raw records, to an anonymous temporary file (tmpfile():
// already unlinked, so the system removes it when the process ends, crash
// included). Reading the log back (forEach, writeCsv) streams that file in
// chunks. If the temporary file cannot be created or written (no space in
// the temporary directory), the log keeps everything in memory instead and
// says so in spillError(): nothing is lost either way.
#include "telemetry/runsummary.h"
#include "telemetry/telemetryreader.h"
#include "util/fileio.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hwl {

class MetricsLog {
public:
    /// Samples held in memory before they are moved to the temporary file.
    static constexpr std::size_t kMemorySamples = 16384; // 768 KiB

    MetricsLog();
    ~MetricsLog();
    MetricsLog(MetricsLog&&) noexcept;
    MetricsLog& operator=(MetricsLog&&) noexcept;
    MetricsLog(const MetricsLog&) = delete;
    MetricsLog& operator=(const MetricsLog&) = delete;

    /// Drains every worker ring and the evaluation ring once, appending what
    /// it finds and calling `onSample` for each new sample. Returns the count.
    std::size_t drain(TelemetryReader& telemetry,
                      const std::function<void(const Sample&)>& onSample = {});
    /// Appends one sample (what drain() does for each one it finds).
    void append(const Sample& s);

    /// Samples logged so far.
    std::size_t size() const { return spilled_ + memory_.size(); }
    /// Samples of size() that live in the temporary file.
    std::size_t spilledCount() const { return spilled_; }
    /// Why the log stopped using its temporary file; empty while it works.
    const std::string& spillError() const { return spillError_; }

    /// Calls `fn` for every sample logged so far, in the order they were
    /// logged. `fn` may append() to this log (e.g. a GUI that keeps draining
    /// telemetry while an export runs): what it adds is not visited by this
    /// pass and does not disturb it. Throws RunError if the temporary file
    /// cannot be read back (an I/O error).
    void forEach(const std::function<void(const Sample&)>& fn) const;

    /// Reports an export's progress: rows written so far and the rows in all
    /// (what size() was when the export began); return false to cancel.
    using Progress = std::function<bool(std::size_t done, std::size_t total)>;
    /// Thrown by writeCsv() when its Progress returned false.
    struct ExportCancelled : std::runtime_error {
        ExportCancelled() : std::runtime_error("export cancelled") {}
    };

    /// CSV with a header line: worker,epoch,step,samples,loss,time,kind,divergence,accuracy
    /// kind is step, epoch or eval; eval rows have worker -1 and the test loss.
    /// With a `target` that was reached, a row of kind target follows the
    /// evaluation that reached it: its test loss and accuracy, every
    /// worker's steps and samples until then and, as time, the seconds from
    /// the launch to that evaluation (TargetResult::wallSeconds).
    /// Streams the rows into `file` atomically (temporary sibling + rename),
    /// calling `progress` after every 64 KiB written. Throws InputError naming
    /// the path and the reason when it cannot write, ExportCancelled when
    /// cancelled; either way no file is left behind.
    void writeCsv(const std::filesystem::path& file, const Progress& progress = {},
                  const TargetResult* target = nullptr) const;
    /// The same CSV as a string (for small logs and tests).
    std::string csv() const;

    /// The log a metrics.csv holds (what writeCsv() wrote; its target row
    /// left out, summary.json holds it): InputError naming the file and
    /// line when it is not one.
    static MetricsLog fromCsv(const std::filesystem::path& file);
    /// This log after `earlier` (the metrics of the run this one resumed):
    /// `earlier`'s samples, then this log's with their time and samples
    /// counted on from where `earlier` ended (per worker; the evaluations'
    /// from the last evaluation), so metrics.csv reads as one run.
    MetricsLog continuing(const MetricsLog& earlier) const;

private:
    void spill();

    std::vector<Sample> memory_; // logged after the spilled ones
    FilePtr file_;               // the spilled samples, raw
    std::size_t spilled_ = 0;
    std::string spillError_;
};

} // namespace hwl
