#include "io/tracefile.h"

#include "io/atomicfile.h"
#include "io/tensorformat.h"
#include "util/errors.h"

#include <zlib.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace hwl {

namespace fs = std::filesystem;

struct TraceFile::Open {
    int kind = -1;
    std::int64_t beginNs = 0, endNs = 0;
    std::uint64_t steps = 0;
};

/// The temporary sibling, plain or gzip.
struct TraceFile::Sink {
    detail::TempSibling temp;
    FILE* plain = nullptr;
    gzFile zipped = nullptr;
    bool failed = false;

    Sink(const fs::path& file, bool gzip) : temp(file) {
        const int fd = ::open(temp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            temp.disown();
            detail::throwCannotWrite(file, {"trace file", " (choose a writable --trace path)"},
                                     std::strerror(errno));
        }
        if (gzip)
            zipped = gzdopen(fd, "wb6");
        else
            plain = fdopen(fd, "wb");
        if (!zipped && !plain) {
            ::close(fd);
            detail::throwCannotWrite(file, {"trace file"}, "cannot open a stream on it");
        }
    }
    ~Sink() { shut(); }
    void write(const std::string& text) {
        if (failed || text.empty())
            return;
        if (zipped)
            failed = gzwrite(zipped, text.data(), unsigned(text.size())) != int(text.size());
        else
            failed = std::fwrite(text.data(), 1, text.size(), plain) != text.size();
    }
    /// Closes the stream, synced; false when anything failed.
    bool shut() {
        if (zipped) {
            // gzclose closes the descriptor: sync it through a duplicate first.
            failed = gzflush(zipped, Z_FINISH) != Z_OK || failed;
            failed = gzclose(zipped) != Z_OK || failed;
            zipped = nullptr;
            const int fd = ::open(temp.path().c_str(), O_RDONLY | O_CLOEXEC);
            failed = fd < 0 || ::fsync(fd) != 0 || failed;
            if (fd >= 0)
                ::close(fd);
        } else if (plain) {
            failed = std::fflush(plain) != 0 || ::fsync(fileno(plain)) != 0 || failed;
            failed = std::fclose(plain) != 0 || failed;
            plain = nullptr;
        }
        return !failed;
    }
};

namespace {
using detail::jsonQuoted;

std::string micros(std::int64_t ns) {
    char text[32];
    const std::int64_t us = ns / 1000, rest = ns % 1000;
    if (ns < 0)
        std::snprintf(text, sizeof text, "-%" PRId64 ".%03" PRId64, -us, -rest);
    else
        std::snprintf(text, sizeof text, "%" PRId64 ".%03" PRId64, us, rest);
    return text;
}

bool endsWithGz(const fs::path& file) {
    const std::string name = file.filename().string();
    return name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
}
} // namespace

TraceFile::TraceFile(const fs::path& file, const std::string& experimentJson,
                     std::string startMethod)
    : file_(file), startMethod_(std::move(startMethod)) {
    if (fs::is_directory(file))
        throw InputError("trace: " + file.string() +
                         " is a folder; give --trace a file name (e.g. run.trace.json)");
    sink_ = std::make_unique<Sink>(file, endsWithGz(file));
    sink_->write("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"format\":\"hogwild-lab trace\","
                 "\"experiment\":" +
                 (experimentJson.empty() ? std::string("{}") : experimentJson) +
                 "},\n\"traceEvents\":[\n");
}

TraceFile::~TraceFile() = default;

void TraceFile::event(const char* name, std::int64_t beginNs, std::int64_t endNs, std::int64_t pid,
                      std::int64_t tid, const std::string& args) {
    std::string e = std::string(events_ ? ",\n" : "") + "{\"name\":\"" + name +
                    "\",\"ph\":\"X\",\"ts\":" + micros(beginNs - originNs_) +
                    ",\"dur\":" + micros(endNs - beginNs) + ",\"pid\":" + std::to_string(pid) +
                    ",\"tid\":" + std::to_string(tid);
    if (!args.empty())
        e += ",\"args\":{" + args + "}";
    sink_->write(e + "}");
    ++events_;
}

void TraceFile::close(Open& open) {
    if (open.kind >= 0 && open.endNs > open.beginNs) {
        const std::size_t rank = std::size_t(&open - open_.data());
        event(traceKindName(TraceKind(open.kind)), open.beginNs, open.endNs, pids_[rank],
              tids_[rank], open.steps ? "\"steps\":" + std::to_string(open.steps) : std::string());
    }
    open = Open{};
}

void TraceFile::slice(std::uint32_t rank, const TraceSlice& s, std::int64_t sliceNs) {
    Open& open = open_[rank];
    std::int64_t at = originNs_ + std::int64_t(s.index) * sliceNs + s.offset;
    std::uint64_t steps = s.steps;
    for (std::size_t k = 0; k < kTraceKinds; ++k) {
        if (s.ns[k] == 0)
            continue;
        const std::int64_t length = s.span > 1 ? std::int64_t(s.span) * sliceNs : s.ns[k];
        if (open.kind != int(k) || open.endNs != at) {
            close(open);
            open = {int(k), at, at, 0};
        }
        open.endNs = at + length;
        if (firstNs_[rank] < 0)
            firstNs_[rank] = at;
        open.steps += std::exchange(steps, 0);
        at += length;
    }
}

void TraceFile::track(TelemetryReader& telemetry) {
    const std::uint32_t n = telemetry.workerCount();
    if (open_.size() != n) {
        open_.resize(n);
        pids_.resize(n, 0);
        firstNs_.resize(n, -1);
        tids_.resize(n, 0);
    }
    for (std::uint32_t r = 0; r < n; ++r) {
        const WorkerSnapshot w = telemetry.worker(r);
        if (w.pid != 0) {
            pids_[r] = w.pid;
            tids_[r] = w.threadId ? std::int64_t(w.threadId) : w.pid;
        }
        if (pids_[r] == 0) { // not started: a track of its own all the same
            pids_[r] = getpid();
            tids_[r] = -std::int64_t(r) - 1;
        }
    }
}

void TraceFile::append(TelemetryReader& telemetry) {
    const std::int64_t sliceNs = telemetry.traceSliceNs();
    if (finished_ || sliceNs <= 0)
        return;
    originNs_ = telemetry.startNs();
    track(telemetry);
    const std::int64_t pid = getpid();
    telemetry.drainTrace(
        [&](std::uint32_t rank, const TraceSlice& s) {
            if (rank < open_.size())
                slice(rank, s, sliceNs);
        },
        [&](const TraceSpan& s) {
            event("evaluate", s.beginNs, s.endNs, pid, pid, "\"epoch\":" + std::to_string(s.epoch));
        });
}

void TraceFile::addSpan(const std::string& name, std::int64_t beginNs, std::int64_t endNs) {
    if (!finished_)
        spans_.push_back({name, beginNs, endNs});
}

std::string TraceFile::finish(TelemetryReader& telemetry, const RunSummary& summary) {
    append(telemetry);
    if (originNs_ < 0)
        originNs_ = telemetry.startNs();
    track(telemetry);
    for (Open& open : open_)
        close(open);
    const std::int64_t own = getpid();
    for (const Span& span : spans_)
        event(span.name.c_str(), span.beginNs, span.endNs, own, own);
    std::map<std::int64_t, std::string> processes{
        {own, "hogwild-lab run (pid " + std::to_string(own) + ")"}};
    auto meta = [&](const char* what, std::int64_t pid, std::int64_t tid, const std::string& args) {
        sink_->write(std::string(events_++ ? ",\n" : "") + "{\"name\":\"" + what +
                     "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                     ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}}");
    };
    meta("thread_name", own, own, "\"name\":\"run: evaluation and outputs\"");
    meta("thread_sort_index", own, own, "\"sort_index\":-1");
    for (std::uint32_t r = 0; r < open_.size(); ++r) {
        const WorkerSnapshot w = telemetry.worker(r);
        std::string name = "worker " + std::to_string(r);
        if (!w.host.empty())
            name += " (rank " + std::to_string(r) + " on " + w.host + ")";
        if (pids_[r] != own)
            processes.emplace(pids_[r], name + " (process " + std::to_string(pids_[r]) + ")");
        meta("thread_name", pids_[r], tids_[r], "\"name\":" + jsonQuoted(name));
        meta("thread_sort_index", pids_[r], tids_[r], "\"sort_index\":" + std::to_string(r));
        // An MPI rank's launch is on its own host's clock: its start-up then
        // ends where its first slice begins.
        const bool launched = w.launchSeconds >= 0 || firstNs_[r] >= 0;
        if (launched && w.startupSeconds >= 0) {
            const auto begin = w.launchSeconds >= 0
                                   ? originNs_ + std::int64_t(w.launchSeconds * 1e9)
                                   : firstNs_[r] - std::int64_t(w.startupSeconds * 1e9);
            const std::string what =
                startMethod_.empty() ? "start-up (thread)" : "start-up (" + startMethod_ + ")";
            event(what.c_str(), begin, begin + std::int64_t(w.startupSeconds * 1e9), pids_[r],
                  tids_[r]);
        }
    }
    for (const auto& [pid, name] : processes)
        meta("process_name", pid, 0, "\"name\":" + jsonQuoted(name));
    sink_->write("\n],\n\"hogwildLab\":{\"state\":" + jsonQuoted(stateName(summary.state)) +
                 ",\"dropped\":" + std::to_string(telemetry.droppedTrace()) + "}}\n");
    finished_ = true;
    if (!sink_->shut())
        detail::throwCannotWrite(file_, {"trace file"}, std::strerror(errno ? errno : EIO));
    if (const int error = sink_->temp.commit())
        detail::throwCannotWrite(file_, {"trace file"}, std::strerror(error));
    std::error_code ec;
    const auto bytes = fs::file_size(file_, ec);
    char size[32];
    if (!ec && bytes < 1000000)
        std::snprintf(size, sizeof size, "%.0f kB", double(bytes) / 1e3);
    else
        std::snprintf(size, sizeof size, "%.1f MB", ec ? 0.0 : double(bytes) / 1e6);
    std::string line = "trace: " + file_.string() + " (" + std::to_string(events_) + " events, " +
                       size + "); open it in ui.perfetto.dev or chrome://tracing";
    if (const std::uint64_t dropped = telemetry.droppedTrace())
        line += "; " + std::to_string(dropped) + " slices were dropped (the monitor fell behind)";
    return line;
}

} // namespace hwl
