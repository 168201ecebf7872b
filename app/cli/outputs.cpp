#include "cli/outputs.h"

#include "io/atomicfile.h"
#include "io/metricslog.h"
#include "io/runsummaryfile.h"
#include "run/run.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/limits.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace hwl {

namespace {
namespace fs = std::filesystem;

constexpr const char* kOutputNames[] = {"weights.safetensors",   "weights.npz", "model.onnx",
                                        "optimizer.safetensors", "metrics.csv", "experiment.json",
                                        "summary.json"};

std::string mib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1 << 20));
    return text;
}

void checkPlaces(const std::string& dir) {
    for (const char* name : kOutputNames) {
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
    return {std::begin(kOutputNames), std::end(kOutputNames)};
}

OutputFolder::OutputFolder(const std::string& dir, std::uint64_t bytesNeeded) : dir_(dir) {
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
    return report;
}

} // namespace hwl
