#include "run/outputfolder.h"

#include "io/atomicfile.h"
#include "io/metricslog.h"
#include "io/runsummaryfile.h"
#include "run/run.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/limits.h"
#include "util/textutil.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace hwl {

namespace {
namespace fs = std::filesystem;

std::string mib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1 << 20));
    return text;
}

void checkPlaces(const std::string& dir) {
    for (const char* name : kRunFiles) {
        const fs::path place = fs::path(dir) / name;
        if (const std::string kind = nonRegularKind(place); !kind.empty())
            throw InputError("out: \"" + place.string() + "\" is " + kind + ", where the run " +
                             "writes its " + name + "; move it away or choose another --out");
    }
}

void checkSpace(const std::string& dir, std::uint64_t bytesNeeded) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0)
        return; // cannot tell: the writes will say
    const std::uint64_t free = std::uint64_t(st.f_bavail) * st.f_frsize;
    if (free < bytesNeeded)
        throw InputError("out: the outputs need about " + mib(bytesNeeded) + " but only " +
                         mib(free) + " is free in \"" + dir +
                         "\"; free space there or choose another --out");
}
} // namespace

std::vector<std::string> outputFileNames() {
    return {std::begin(kRunFiles), std::end(kRunFiles)};
}

OutputFolder::OutputFolder(const std::string& dir, std::uint64_t bytesNeeded, bool replacing)
    : dir_(dir), replacing_(replacing) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw InputError("out: \"" + dir + "\" exists and is not a directory");
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError("out: cannot create directory \"" + dir + "\": " + ec.message() +
                         "; choose a writable --out directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError("out: directory \"" + dir + "\" is not writable; choose another --out");
    lock_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_ >= 0 && ::flock(lock_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(lock_);
        lock_ = -1;
        throw InputError("out: another hogwild-lab run is writing into \"" + dir +
                         "\"; wait for it to end or choose another --out");
    }
    checkPlaces(dir);
    checkSpace(dir, bytesNeeded);
    if (const int n = removeStaleTemporaries(dir); n > 0)
        std::printf("out: removed %d temporary file%s that an interrupted run left in %s\n", n,
                    n == 1 ? "" : "s", dir.c_str());
}

std::uint64_t OutputFolder::bytesNeededFor(const Run& run) {
    return 3 * std::uint64_t(run.info().parameters) * sizeof(float) + (std::uint64_t(4) << 20);
}

OutputFolder::~OutputFolder() {
    if (lock_ >= 0)
        ::close(lock_); // releases the lock
}

OutputReport OutputFolder::write(const Run& run, const MetricsLog& log, bool withWeights,
                                 const RunRecord& record) const {
    const fs::path base(dir_);
    OutputReport report;
    const auto attempt = [&](const char* name, const std::function<void()>& writeIt) {
        try {
            writeIt();
            report.written.emplace_back(name);
        } catch (const std::exception& e) {
            report.failed.push_back(std::string(name) + ": " + e.what());
        }
    };
    if (withWeights) {
        attempt("weights.safetensors", [&] { run.writeWeights(base / "weights.safetensors"); });
        attempt("weights.npz", [&] { run.writeWeights(base / "weights.npz"); });
        if (run.info().parameters <= limits::kMaxOnnxParameters)
            attempt("model.onnx", [&] { run.writeWeights(base / "model.onnx"); });
        else
            report.leftOut.emplace_back("model.onnx (the parameters pass ONNX's 2 GiB)");
        if (run.savesOptimizerState())
            attempt("optimizer.safetensors",
                    [&] { run.writeOptimizerState(base / "optimizer.safetensors"); });
    }
    attempt("metrics.csv", [&] { log.writeCsv(base / "metrics.csv"); });
    attempt("experiment.json",
            [&] { writeFileAtomically(base / "experiment.json", run.config().toJson()); });
    attempt("summary.json",
            [&] { writeFileAtomically(base / "summary.json", runSummaryJson(record)); });
    if (replacing_)
        for (const std::string& name : runFilesIn(dir_)) {
            const auto mine = [&](const std::string& entry) { return entry.rfind(name, 0) == 0; };
            std::error_code ec;
            if (std::none_of(report.written.begin(), report.written.end(), mine) &&
                std::none_of(report.failed.begin(), report.failed.end(), mine) &&
                fs::remove(base / name, ec))
                report.removed.push_back(name);
        }
    return report;
}

std::string OutputFolder::writeRun(Run& run, const MetricsLog& log, const RunSummary& s,
                                   std::chrono::system_clock::time_point started,
                                   std::vector<std::string>& failed) const {
    const bool withWeights = s.state != RunState::Failed;
    const RunRecord record{run.config(),
                           run.info().mode,
                           run.info().parameters,
                           s,
                           run.telemetry().workers(),
                           started,
                           std::chrono::system_clock::now(),
                           run.info().normalization};
    const OutputReport report = write(run, log, withWeights, record);
    failed = report.failed;
    std::string line = "wrote nothing into " + dir_;
    if (!report.written.empty()) {
        line = "wrote " + dir_ + "/{";
        for (std::size_t i = 0; i < report.written.size(); ++i)
            line.append(i ? ", " : "").append(report.written[i]);
        line += "}";
    }
    for (const std::string& file : report.leftOut)
        line += "; left out: " + file;
    for (std::size_t i = 0; i < report.removed.size(); ++i)
        line.append(i ? ", " : "; removed the replaced run's ").append(report.removed[i]);
    if (!withWeights)
        return line + "; no weights: the run failed";
    if (!failed.empty())
        return line + (report.written.empty() ? "; not written: every file (see the errors)"
                                              : "; not written: the others (see the error)");
    return line + (s.state == RunState::Finished ? "" : " (partial run)");
}

std::vector<std::string> runFilesIn(const std::string& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec))
        return found;
    for (const char* name : kRunFiles)
        if (fs::is_regular_file(fs::path(dir) / name, ec))
            found.emplace_back(name);
    return found;
}

std::optional<RunSummary> summaryIn(const std::string& dir, std::string* why) {
    const fs::path file = fs::path(dir) / "summary.json";
    std::ifstream in(file);
    if (!in) {
        if (why)
            *why = quoted(file) + " cannot be read";
        return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
        return runSummaryFromJson(text.str(), file.string());
    } catch (const InputError& e) {
        if (why)
            *why = e.what();
        return std::nullopt;
    }
}

} // namespace hwl
