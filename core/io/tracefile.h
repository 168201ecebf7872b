#pragma once
// --trace FILE: where each worker's time went, in the Chrome trace event
// format (the JSON object form) that ui.perfetto.dev and chrome://tracing
// open; gzip-compressed when FILE ends in .gz. One track per worker (its
// process and thread ids, so thread workers share the run's process and
// process workers have their own), one for the run's coordinator and
// monitor (evaluations, the outputs written), all on the run's one clock.
//
// What a worker's track holds: its start-up (launch to first step), then
// its time in slices (Run::setTrace) drawn as complete ("X") events named
// compute, wait and communicate: within a slice, each kind's total, in that
// order; adjacent slices of one kind merge into one event. The trace is
// streamed to a temporary sibling while the run goes, and renamed into
// place by finish(): an interrupted run leaves no half trace under FILE.
#include "telemetry/runsummary.h"
#include "telemetry/telemetryreader.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hwl {

class TraceFile {
public:
    /// Starts the file: `experimentJson` goes into its metadata
    /// ("otherData"), `startMethod` names the process workers' start-up.
    /// InputError naming FILE when it cannot be created.
    TraceFile(const std::filesystem::path& file, const std::string& experimentJson,
              std::string startMethod);
    ~TraceFile(); ///< unfinished: removes its temporary
    TraceFile(const TraceFile&) = delete;
    TraceFile& operator=(const TraceFile&) = delete;

    /// Writes the slices and spans the run published since the last call.
    void append(TelemetryReader& telemetry);
    /// A span of the monitor's own (writing the outputs), on the run's track;
    /// monotonic clock. Written by finish().
    void addSpan(const std::string& name, std::int64_t beginNs, std::int64_t endNs);
    /// The rest, each worker's start-up and track names, then the file
    /// committed; returns what to tell the user ("trace: FILE (N events,
    /// SIZE); open it in ui.perfetto.dev"). InputError when it cannot be
    /// written.
    std::string finish(TelemetryReader& telemetry, const RunSummary& summary);

    /// Events written so far.
    std::uint64_t events() const { return events_; }

private:
    struct Open; ///< a worker's event still growing
    struct Sink;
    void event(const char* name, std::int64_t beginNs, std::int64_t endNs, std::int64_t pid,
               std::int64_t tid, const std::string& args = {});
    void slice(std::uint32_t rank, const TraceSlice& s, std::int64_t sliceNs);
    void close(Open& open);
    void track(TelemetryReader& telemetry);

    std::filesystem::path file_;
    std::unique_ptr<Sink> sink_;
    std::string startMethod_;
    std::int64_t originNs_ = -1; ///< the run's start, when known
    std::uint64_t events_ = 0;
    std::vector<Open> open_;
    std::vector<std::int64_t> pids_, tids_; ///< each worker's, as last seen
    std::vector<std::int64_t> firstNs_;     ///< each worker's first traced moment, or -1
    struct Span {
        std::string name;
        std::int64_t beginNs, endNs;
    };
    std::vector<Span> spans_; ///< addSpan()'s, written by finish()
    bool finished_ = false;
};

} // namespace hwl
