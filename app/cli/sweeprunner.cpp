#include "cli/sweeprunner.h"

#include "cli/report.h"
#include "cli/runfolders.h"
#include "config/fields.h"
#include "config/sweep.h"
#include "io/atomicfile.h"
#include "io/runsummaryfile.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hwl {

namespace fs = std::filesystem;

namespace {
/// One run of the sweep as a child process.
struct Child {
    std::size_t index = 0; ///< in cl.runs
    pid_t pid = -1;
    fs::path out, log;
    fs::file_time_type started;
};

/// Removes the scratch folders of sweeps whose process is gone (killed
/// before it could remove its own): "hwl-sweep-<pid>-XXXXXX".
void removeDeadSweepsScratch() {
    std::error_code ec;
    int removed = 0;
    for (const auto& entry : fs::directory_iterator(tempDirectory(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("hwl-sweep-", 0) != 0)
            continue;
        const long long pid = std::atoll(name.c_str() + 10);
        if (pid <= 0 || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue;
        std::error_code removing;
        removed += fs::remove_all(entry.path(), removing) != static_cast<std::uintmax_t>(-1);
    }
    if (removed > 0)
        std::printf("sweep: removed %d folder%s that killed sweeps left in %s\n", removed,
                    removed == 1 ? "" : "s", tempDirectory().c_str());
}

/// A folder of this sweep's own, for the runs' experiment files (and their
/// outputs when the sweep has no --out); removed at the end.
struct Scratch {
    fs::path dir;
    Scratch() {
        removeDeadSweepsScratch();
        std::string pattern =
            tempDirectory() + "/hwl-sweep-" + std::to_string(::getpid()) + "-XXXXXX";
        if (!mkdtemp(pattern.data()))
            throw RunError("--sweep-parallel: cannot make a folder in " + tempDirectory() + ": " +
                           std::strerror(errno));
        dir = pattern;
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

Child launch(const CommandLine& cl, std::size_t index, bool redo, const Scratch& scratch,
             const std::string& engine) {
    ExperimentConfig config = cl.runs[index].config;
    Child child;
    child.index = index;
    const std::string name = "run-" + std::to_string(index + 1);
    if (config.out.empty())
        config.out = (scratch.dir / name).string();
    child.out = config.out;
    fs::create_directories(child.out);
    child.log = cl.sweepOut.empty() ? scratch.dir / (name + ".txt") : child.out / "output.txt";
    const fs::path experiment = scratch.dir / (name + ".json");
    writeFileAtomically(experiment, experimentFileJson(config));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, child.log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const std::string configPath = experiment.string();
    // --overwrite: checked for the sweep as a whole (findEarlierRuns)
    const std::string pace = std::to_string(cl.pace);
    std::vector<const char*> argv = {engine.c_str(), "--config", configPath.c_str(), "--quiet"};
    if (cl.overwrite || redo)
        argv.push_back("--overwrite");
    if (cl.pace > 0)
        argv.insert(argv.end(), {"--pace", pace.c_str()});
    argv.push_back(nullptr);
    // The child dies with this process (runHeadless reads it): no run is
    // left training, reparented to init, when the sweep is killed.
    std::vector<std::string> env{kSweepParentVariable + std::string("=") +
                                 std::to_string(::getpid())};
    for (char** e = environ; *e; ++e)
        if (std::string(*e).rfind(std::string(kSweepParentVariable) + "=", 0) != 0)
            env.emplace_back(*e);
    std::vector<char*> envp;
    for (std::string& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    child.started = fs::file_time_type::clock::now();
    const int rc = posix_spawn(&child.pid, engine.c_str(), &actions, nullptr,
                               const_cast<char* const*>(argv.data()), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw RunError("--sweep-parallel: cannot start " + engine + ": " + std::strerror(rc));
    return child;
}

/// The last "error: ..." line of a run's output (why it did not train).
std::string lastError(const fs::path& log) {
    std::ifstream in(log);
    std::string line, error;
    while (std::getline(in, line))
        if (line.rfind("error: ", 0) == 0)
            error = line.substr(7);
    return error;
}

/// The table's row of a run that ended with wait status `status`.
TableRun ended(const CommandLine& cl, const Child& child, int status) {
    TableRun row;
    const PresetRun& run = cl.runs[child.index];
    row.label = run.label;
    for (const std::string& key : cl.sweepKeys)
        row.values.push_back(sweepValueText(findField(key)->get(run.config)));
    row.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::error_code ec;
    const fs::path manifest = child.out / kManifestFile;
    if (fs::exists(manifest, ec) && fs::last_write_time(manifest, ec) >= child.started) {
        const FolderCheck check = checkRunFolder(child.out, false);
        if (!check.whole())
            row.error = trustText(child.out, check);
        else if (const std::optional<RunSummary> s = summaryIn(child.out.string(), &row.error)) {
            row.summary = *s;
            row.started = true;
        }
    }
    if (row.started && row.summary.state == RunState::Failed)
        row.error = row.summary.failure;
    else if (!row.started && row.error.empty())
        row.error = lastError(child.log);
    return row;
}

void report(const CommandLine& cl, const TableRun& row, const Child& child, std::size_t done) {
    // Without --out the output goes with the scratch folder: only its error stays.
    const std::string where =
        cl.sweepOut.empty() ? std::string() : "; its output: " + child.log.string();
    std::printf("== run %zu of %zu (%zu done): %s: %s, exit %d%s%s%s ==\n", child.index + 1,
                cl.runs.size(), done, row.label.c_str(),
                row.started ? stateName(row.summary.state) : "refused", row.exitCode,
                row.error.empty() ? "" : ": ", row.error.c_str(), where.c_str());
    std::fflush(stdout);
}
} // namespace

void dieWithSweepParent() {
    const char* parent = std::getenv(kSweepParentVariable);
    if (!parent)
        return;
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != pid_t(std::atoll(parent)))
        ::raise(SIGTERM); // the sweep died before the line above
}

bool writeSweepCsv(const CommandLine& cl, const std::vector<TableRun>& rows) {
    if (cl.sweepOut.empty())
        return true;
    try {
        writeFileAtomically(fs::path(cl.sweepOut) / "sweep.csv", runsCsv(cl.sweepKeys, rows));
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return false;
    }
}

int runSweepInParallel(const CommandLine& cl, const std::function<int()>& stopSignal) {
    const std::string engine = executablePath();
    if (engine.empty())
        throw RunError("--sweep-parallel: cannot find this program (/proc/self/exe)");
    claimSweepFolder(cl); // another grid is refused before any run starts
    const EarlierRuns earlier = findEarlierRuns(cl);
    recordSweepGrid(cl);
    Scratch scratch;
    std::vector<std::optional<TableRun>> rows = earlier.finished;
    std::vector<Child> going;
    std::size_t next = 0, done = earlier.count(true);
    bool csvWritten = true, stopping = false;
    std::printf("sweep: %zu runs, %u at a time\n", cl.runs.size(), cl.sweepParallel);
    for (std::size_t i = 0; i < cl.runs.size(); ++i)
        if (rows[i])
            std::printf("%s\n", keptRunLine(cl.runs[i], i, cl.runs.size()).c_str());
    std::fflush(stdout);
    const auto skipKept = [&] {
        while (next < cl.runs.size() && rows[next])
            ++next;
    };
    skipKept();
    while (!going.empty() || (next < cl.runs.size() && !stopping)) {
        while (!stopping && next < cl.runs.size() && going.size() < cl.sweepParallel) {
            going.push_back(launch(cl, next, earlier.redo[next], scratch, engine));
            ++next;
            skipKept();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (stopSignal() != 0 && !stopping) {
            stopping = true;
            for (const Child& c : going)
                kill(c.pid, SIGINT); // each stops in order and writes what it trained
        }
        for (auto it = going.begin(); it != going.end();) {
            int status = 0;
            if (waitpid(it->pid, &status, WNOHANG) != it->pid) {
                ++it;
                continue;
            }
            rows[it->index] = ended(cl, *it, status);
            report(cl, *rows[it->index], *it, ++done);
            std::vector<TableRun> made;
            for (const auto& r : rows)
                if (r)
                    made.push_back(*r);
            csvWritten = writeSweepCsv(cl, made) && csvWritten;
            it = going.erase(it);
        }
    }
    std::vector<TableRun> made;
    int code = 0;
    for (const auto& r : rows)
        if (r) {
            made.push_back(*r);
            code = code != 0 ? code : r->exitCode;
        }
    csvWritten = writeSweepCsv(cl, made) && csvWritten; // with the kept runs, if none ran
    std::fputs((sweepText(cl.sweepKeys, made, cl.runs.size()) + repeatsText(cl.runs, made)).c_str(),
               stdout);
    if (!cl.sweepOut.empty() && csvWritten)
        std::printf("wrote %s\n", (fs::path(cl.sweepOut) / "sweep.csv").c_str());
    std::fflush(stdout);
    if (stopping) // the signal's status, as a sweep run one by one ends with
        code = 128 + stopSignal();
    return code != 0 ? code : csvWritten ? 0 : 1;
}

} // namespace hwl
