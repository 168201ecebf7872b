#include "run/outputfolder.h"

#include "config/optimizerconfig.h"
#include "io/atomicfile.h"
#include "io/metricslog.h"
#include "io/runsummaryfile.h"
#include "run/run.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/limits.h"
#include "util/persistence.h"
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
#include <sys/stat.h>
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

/// persistence::point() for `what` on `path`.
int step(const char* what, const fs::path& path) {
    return persistence::point((std::string(what) + " " + path.string()).c_str());
}

/// Syncs a folder's entries (or a file) to the disk: 0 or the errno.
int syncPath(const fs::path& path) {
    if (const int injected = step("fsync", path))
        return injected;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    const int err = ::fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    ::close(fd);
    return err;
}

/// rename(2) through a persistence point: 0 or the errno.
int renameStep(const fs::path& from, const fs::path& to) {
    if (const int injected = step("rename", to))
        return injected;
    return std::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

/// remove(2) through a persistence point: 0 (also when it was not there) or the errno.
int removeStep(const fs::path& path) {
    if (const int injected = step("remove", path))
        return injected;
    return std::remove(path.c_str()) == 0 || errno == ENOENT ? 0 : errno;
}

[[noreturn]] void cannotMove(const fs::path& dir, const std::string& what, int err) {
    throw InputError("out: cannot move the run's files into " + quoted(dir) + " (" + what + ": " +
                     errnoText(err) + "); they are whole in " + quoted(dir / kCommitFolder) +
                     ", and the next run into the folder " + "moves them into place");
}

/// Moves a committed run (dir/.hwl-commit) into place: the old manifest
/// goes first (the folder is not a whole run while files move), then each
/// file, then the old run's files that the new one has not, then the new
/// manifest, last. Safe to run again after a crash at any step. Returns
/// the old run's files it removed.
std::vector<std::string> rollForward(const fs::path& dir) {
    const fs::path commit = dir / kCommitFolder;
    RunManifest manifest;
    try {
        manifest = readManifest(commit);
    } catch (const InputError&) {
        // No manifest in the commit: it was already moved into place.
        std::error_code ec;
        fs::remove_all(commit, ec);
        return {};
    }
    std::error_code ec;
    if (fs::exists(commit / kManifestFile, ec))
        if (const int err = removeStep(dir / kManifestFile))
            cannotMove(dir, "removing the old manifest", err);
    for (const ManifestEntry& f : manifest.files)
        if (fs::exists(commit / f.name, ec))
            if (const int err = renameStep(commit / f.name, dir / f.name))
                cannotMove(dir, f.name, err);
    std::vector<std::string> removed;
    for (const std::string& name : runFilesIn(dir)) {
        const bool listed = name == kManifestFile ||
                            std::any_of(manifest.files.begin(), manifest.files.end(),
                                        [&](const ManifestEntry& f) { return f.name == name; });
        if (listed)
            continue;
        if (const int err = removeStep(dir / name))
            cannotMove(dir, "removing the replaced run's " + name, err);
        removed.push_back(name);
    }
    if (const int err = renameStep(commit / kManifestFile, dir / kManifestFile))
        cannotMove(dir, kManifestFile, err);
    // The run is whole in place now: what is left is tidying, which the next
    // claim finishes (an empty .hwl-commit), and the folder's sync.
    removeStep(commit);
    if (const int err = syncPath(dir))
        throw InputError("out: the run is in place in " + quoted(dir) +
                         ", but syncing the folder to the disk failed: " + errnoText(err));
    return removed;
}

/// Completes a commit an interrupted run left, removes its staging folders
/// and temporary files; returns what it did ("" when nothing).
std::string cleanUp(const fs::path& dir) {
    std::string said;
    const auto say = [&](const std::string& line) { said += (said.empty() ? "" : "\n") + line; };
    std::error_code ec;
    if (fs::exists(dir / kCommitFolder, ec)) {
        const bool whole = fs::exists(dir / kCommitFolder / kManifestFile, ec);
        rollForward(dir); // without its manifest the commit was already in place
        if (whole)
            say("out: moved into place the run that an interrupted process had written to " +
                dir.string() + " (it was whole in " + kCommitFolder + ")");
    }
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(kStagingPrefix, 0) != 0)
            continue;
        std::error_code removing;
        if (fs::remove_all(entry.path(), removing) != static_cast<std::uintmax_t>(-1))
            say("out: removed " + entry.path().string() +
                ", the unfinished files of a run that was interrupted while writing them");
    }
    if (const int n = removeStaleTemporaries(dir); n > 0)
        say("out: removed " + std::to_string(n) + " temporary file" + (n == 1 ? "" : "s") +
            " that an interrupted run left in " + dir.string());
    return said;
}

void checkPlaces(const std::string& dir) {
    for (const char* name : kRunFiles) {
        const fs::path place = fs::path(dir) / name;
        if (const std::string kind = nonRegularKind(place); !kind.empty())
            throw InputError("out: \"" + place.string() + "\" is " + kind + ", where the run " +
                             "writes its " + name + "; move it away or choose another --out");
    }
}

/// The folder's lock: flock on the folder, held only if it is still the
/// folder at `dir` once locked; -1 when it was removed or replaced
/// meanwhile (a run that gave it up removes the folder it made: lock anew).
/// InputError when another run holds it or it cannot be opened.
int lockFolder(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        throw InputError("out: cannot open \"" + dir + "\": " + errnoText(errno) +
                         "; choose another --out");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd);
        if (err == EWOULDBLOCK)
            throw InputError("out: another hogwild-lab run is writing into \"" + dir +
                             "\"; wait for it to end or choose another --out");
        throw InputError("out: cannot lock \"" + dir + "\": " + errnoText(err));
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(dir.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino)
        return fd;
    ::close(fd);
    return -1;
}
} // namespace

std::vector<std::string> outputFileNames() {
    return {std::begin(kRunFiles), std::end(kRunFiles)};
}

void OutputFolder::makeFolder() {
    std::error_code ec;
    if (fs::exists(dir_, ec)) {
        if (!fs::is_directory(dir_, ec))
            throw InputError("out: \"" + dir_ + "\" exists and is not a directory");
        return;
    }
    fs::path top = fs::path(dir_).lexically_normal();
    while (top.has_parent_path() && top.parent_path() != top && !fs::exists(top.parent_path(), ec))
        top = top.parent_path();
    if (const int injected = step("mkdir", dir_))
        ec = std::error_code(injected, std::generic_category());
    else if (fs::create_directories(dir_, ec) && !created_) {
        created_ = true;
        top_ = top.string();
    }
    if (ec)
        throw InputError("out: cannot create directory \"" + dir_ + "\": " + ec.message() +
                         "; choose a writable --out directory");
}

void OutputFolder::removeMade() {
    // Only with the lock held: the folder is this run's, nobody else's.
    if (!created_ || lock_ < 0)
        return;
    std::error_code ec;
    for (fs::path p = dir_; fs::remove(p, ec);) { // each level only while empty
        if (p.lexically_normal() == fs::path(top_) || !p.has_parent_path())
            break;
        p = p.parent_path();
    }
}

OutputFolder::OutputFolder(const std::string& dir) : dir_(dir) {
    for (int attempt = 1; lock_ < 0; ++attempt) {
        makeFolder();
        lock_ = lockFolder(dir);
        if (lock_ < 0 && attempt >= 5)
            throw InputError("out: \"" + dir + "\" keeps being removed while this run claims " +
                             "it; choose another --out");
    }
    try {
        if (::access(dir.c_str(), W_OK | X_OK) != 0)
            throw InputError("out: directory \"" + dir +
                             "\" is not writable; choose another --out");
        cleanup_ = cleanUp(dir);
        checkPlaces(dir);
    } catch (...) {
        removeMade();
        ::close(lock_);
        throw;
    }
}

OutputFolder::~OutputFolder() {
    if (!committed_)
        removeMade(); // only when empty: what the claim made, nothing else
    if (lock_ >= 0)
        ::close(lock_); // releases the lock
}

void OutputFolder::keepEarlierMetrics(const ExperimentConfig& config) {
    const fs::path file = fs::path(config.resume) / "metrics.csv";
    std::error_code ec;
    if (config.resume.empty() || !fs::exists(file, ec))
        return;
    try {
        earlier_ = std::make_unique<MetricsLog>(MetricsLog::fromCsv(file));
    } catch (const InputError& e) {
        earlierProblem_ = e.what();
    }
}

std::uint64_t OutputFolder::bytesNeededFor(const Run& run) {
    const ExperimentConfig& c = run.config();
    const std::uint64_t weights = std::uint64_t(run.info().parameters) * sizeof(float);
    const std::uint64_t copies = run.info().parameters <= limits::kMaxOnnxParameters ? 3 : 2;
    std::uint64_t state = 0;
    if (run.savesOptimizerState())
        state = weights * optimizerSpecOf(c).stateNames().size() *
                (c.optimizerState == StateSharing::Shared ? 1 : std::uint64_t(c.workers));
    // metrics.csv: an epoch row per worker and an evaluation row per epoch,
    // under 96 bytes each (the step rows, sampled in time, and the JSON files
    // in the 256 KiB the rest is given).
    const std::uint64_t metrics = std::uint64_t(c.epochs) * (std::uint64_t(c.workers) + 1) * 96;
    return weights * copies + state + metrics + (std::uint64_t(256) << 10);
}

void OutputFolder::checkSpace(std::uint64_t bytesNeeded) const {
    struct statvfs st {};
    if (::statvfs(dir_.c_str(), &st) != 0)
        return; // cannot tell: the writes will say
    const std::uint64_t free = std::uint64_t(st.f_bavail) * st.f_frsize;
    if (free < bytesNeeded)
        throw InputError("out: the outputs need about " + mib(bytesNeeded) + " but only " +
                         mib(free) + " is free in \"" + dir_ +
                         "\"; free space there or choose another --out");
}

namespace {
/// The staged files' manifest: each one measured, the run's state and experiment.
RunManifest manifestOf(const fs::path& staging, const std::vector<std::string>& files,
                       const RunRecord& record) {
    RunManifest manifest;
    manifest.state = stateName(record.summary.state);
    manifest.experiment = experimentFingerprint(record.config);
    for (const std::string& name : files)
        manifest.files.push_back(describeFile(staging, name));
    return manifest;
}

/// metrics.csv; a resumed run's after the metrics of the run it continued
/// (`earlier`, read when its weights were), so that the file keeps every
/// epoch (the earlier ones left out, and said, when they could not be read).
void writeMetrics(const fs::path& staging, const MetricsLog* earlier, const std::string& problem,
                  const MetricsLog& log, const TargetResult& target, OutputReport& report) {
    if (!problem.empty())
        report.leftOut.push_back("the resumed run's earlier metrics (" + problem + ")");
    if (!earlier)
        return log.writeCsv(staging / "metrics.csv", {}, &target);
    log.continuing(*earlier).writeCsv(staging / "metrics.csv", {}, &target);
}

/// Writes the run's files into `staging`; what failed goes to report.failed.
void stage(const fs::path& staging, const Run& run, const MetricsLog& log, bool withWeights,
           const RunRecord& record, const MetricsLog* earlier, const std::string& earlierProblem,
           OutputReport& report) {
    const auto attempt = [&](const char* name, const std::function<void()>& writeIt) {
        if (!report.failed.empty())
            return; // nothing is committed after a failure: no use writing on
        try {
            writeIt();
            report.written.emplace_back(name);
        } catch (const std::exception& e) {
            // Named where the file was going, not in the hidden staging folder.
            std::string why = e.what();
            const std::string from = staging.string(), to = staging.parent_path().string();
            for (std::size_t at; (at = why.find(from)) != std::string::npos;)
                why.replace(at, from.size(), to);
            report.failed.push_back(std::string(name) + ": " + why);
        }
    };
    if (withWeights) {
        attempt("weights.safetensors", [&] { run.writeWeights(staging / "weights.safetensors"); });
        attempt("weights.npz", [&] { run.writeWeights(staging / "weights.npz"); });
        if (run.info().parameters <= limits::kMaxOnnxParameters)
            attempt("model.onnx", [&] { run.writeWeights(staging / "model.onnx"); });
        else
            report.leftOut.emplace_back("model.onnx (the parameters pass ONNX's 2 GiB)");
        if (run.savesOptimizerState())
            attempt("optimizer.safetensors",
                    [&] { run.writeOptimizerState(staging / "optimizer.safetensors"); });
    }
    attempt("metrics.csv", [&] {
        writeMetrics(staging, earlier, earlierProblem, log, run.summary().target, report);
    });
    attempt("experiment.json", [&] {
        writeFileAtomically(staging / "experiment.json", experimentFileJson(run.config()));
    });
    attempt("summary.json",
            [&] { writeFileAtomically(staging / "summary.json", runSummaryJson(record)); });
    if (!report.failed.empty())
        return;
    attempt(kManifestFile, [&] {
        writeFileAtomically(staging / kManifestFile,
                            manifestJson(manifestOf(staging, report.written, record)));
    });
    if (report.failed.empty())
        if (const int err = syncPath(staging))
            report.failed.push_back("the staging folder: " + errnoText(err));
}
} // namespace

OutputReport OutputFolder::write(const Run& run, const MetricsLog& log, bool withWeights,
                                 const RunRecord& record) {
    const fs::path dir(dir_);
    const fs::path staging = dir / (kStagingPrefix + std::to_string(::getpid()));
    OutputReport report;
    std::error_code ec;
    fs::remove_all(staging, ec);
    if (const int injected = step("mkdir", staging))
        ec = std::error_code(injected, std::generic_category());
    else
        fs::create_directory(staging, ec);
    if (ec) {
        report.failed.push_back("the staging folder " + quoted(staging) + ": " + ec.message());
        return report;
    }
    stage(staging, run, log, withWeights, record, earlier_.get(), earlierProblem_, report);
    if (report.failed.empty())
        if (const int err = renameStep(staging, dir / kCommitFolder))
            report.failed.push_back("the commit (" + quoted(dir / kCommitFolder) +
                                    "): " + errnoText(err));
    if (!report.failed.empty()) {
        fs::remove_all(staging, ec); // the folder keeps what it held
        report.written.clear();
        return report;
    }
    committed_ = report.committed = true;
    try {
        if (const int err = syncPath(dir)) // the commit's rename, to the disk
            throw InputError("out: the run is committed in " + quoted(dir / kCommitFolder) +
                             ", but syncing the folder to the disk failed: " + errnoText(err) +
                             "; the next run into the folder moves it into place");
        report.removed = rollForward(dir);
    } catch (const InputError& e) {
        report.failed.push_back("the committed run into place: " + std::string(e.what()));
    }
    return report;
}

std::string OutputFolder::writeRun(Run& run, const MetricsLog& log, const RunSummary& s,
                                   std::chrono::system_clock::time_point started,
                                   std::vector<std::string>& failed,
                                   const std::string& tensorboardRun) {
    const bool withWeights = s.state != RunState::Failed;
    const RunRecord record{run.config(),
                           run.info().mode,
                           run.info().parameters,
                           s,
                           run.telemetry().workers(),
                           started,
                           std::chrono::system_clock::now(),
                           run.info().normalization,
                           tensorboardRun};
    std::error_code ec;
    if (!withWeights && !run.config().resume.empty() &&
        fs::equivalent(run.config().resume, dir_, ec)) {
        failed.clear(); // the run's failure is its error; the folder's run is kept
        return "wrote nothing into " + dir_ +
               ": it keeps the run this one continued (a failed run does not replace the "
               "checkpoint it resumed from)";
    }
    const OutputReport report = write(run, log, withWeights, record);
    failed = report.failed;
    if (!report.committed)
        return "wrote nothing into " + dir_ + (created_ ? "" : ": it keeps what it held") +
               " (a run's files are written " + "all or none; see the error)";
    std::string line = "wrote " + dir_ + "/{";
    for (std::size_t i = 0; i < report.written.size(); ++i)
        line.append(i ? ", " : "").append(report.written[i]);
    line += "}";
    for (const std::string& file : report.leftOut)
        line += "; left out: " + file;
    for (std::size_t i = 0; i < report.removed.size(); ++i)
        line.append(i ? ", " : "; removed the replaced run's ").append(report.removed[i]);
    if (!withWeights)
        return line + "; no weights: the run failed";
    if (!failed.empty())
        return line + "; committed (see the error)";
    return line + (s.state == RunState::Finished ? "" : " (partial run)");
}

std::string settleRunFolder(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return {};
    const int lock = lockFolder(dir);
    if (lock < 0)
        return {}; // removed meanwhile: nothing to settle
    std::string said;
    try {
        said = cleanUp(dir);
    } catch (...) {
        ::close(lock);
        throw;
    }
    ::close(lock);
    return said;
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
