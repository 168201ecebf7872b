#include "cli/headless.h"

#include "cli/commandline.h"
#include "cli/compare.h"
#include "cli/consoleout.h"
#include "cli/report.h"
#include "cli/runfolders.h"
#include "cli/sweeprunner.h"
#include "config/fields.h"
#include "config/sweep.h"
#include "io/atomicfile.h"
#include "io/metricslog.h"
#include "io/runstable.h"
#include "io/runsummaryfile.h"
#include "io/tensorboardlog.h"
#include "io/tensorboardlogdir.h"
#include "io/tensorfile.h"
#include "io/tracefile.h"
#include "launch/devices.h"
#include "preset/presets.h"
#include "run/comparison.h"
#include "run/mpirank.h"
#include "run/outputfolder.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "strategy/validation.h"
#include "toy/countertoy.h"
#include "util/cpukernels.h"
#include "util/errors.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <unistd.h>

namespace hwl {

namespace {
volatile std::sig_atomic_t gStopSignal = 0;
void onSignal(int signal) {
    gStopSignal = signal;
}

/// For the whole headless session: SIGINT (Ctrl-C), SIGTERM and SIGHUP stop
/// the run in order, and what was trained is written, however often they
/// come; SIGPIPE is ignored, so a closed pipe on stdout (`| head -1`) costs
/// the printing, not the run. (The run's children ignore them all: see
/// launch/parentdeath.h.)
void catchStopSignals() {
    struct sigaction stop {};
    stop.sa_handler = onSignal;
    sigemptyset(&stop.sa_mask);
    stop.sa_flags = SA_RESTART;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP})
        sigaction(sig, &stop, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

const char* signalName(int sig) {
    return sig == SIGINT    ? "SIGINT"
           : sig == SIGTERM ? "SIGTERM"
           : sig == SIGHUP  ? "SIGHUP"
                            : "a signal";
}

/// The signal that asked the run to stop, or 0. Under mpirun the MPI job's
/// handler has SIGINT and SIGTERM (it tells every rank's collective).
int stopSignal() {
    return inMpiJob() ? mpiEndingSignal() : int(gStopSignal);
}

/// Follows the started run to its end, printing as it goes; returns the
/// signal that interrupted it, or 0.
int follow(Run& run, MetricsLog& log, const CommandLine& cl, TensorBoardLog* events,
           ConsoleOut& out, TraceFile* trace) {
    const bool tty = !cl.quiet && isatty(STDERR_FILENO);
    const std::uint64_t expected = run.info().samplesPerEpoch * std::uint64_t(cl.config.epochs);
    const LineStyle style{cl.quiet, run.info().testRows > 0,
                          cl.config.lrSchedule != "constant" || cl.config.warmupSteps > 0,
                          cl.config.evalEvery > 0};
    auto print = [&](const Sample& s) {
        if (events)
            events->append(s);
        if (tty && s.kind != Sample::Step)
            clearProgress();
        if (const std::string line = sampleLine(s, style); !line.empty())
            out.add(line);
    };
    bool interrupted = false;
    while (!run.wait(std::chrono::milliseconds(100))) {
        if (stopSignal() != 0 && !interrupted) {
            interrupted = true;
            run.stop();
        }
        log.drain(run.telemetry(), print);
        if (events)
            events->flush();
        if (trace)
            trace->append(run.telemetry());
        if (tty)
            progressBar(run.telemetry(), expected);
    }
    log.drain(run.telemetry(), print);
    if (tty)
        clearProgress();
    return stopSignal();
}

/// The run's clock (CLOCK_MONOTONIC, as steady_clock is here).
std::int64_t monotonicNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// --trace's file, opened before the run starts (a path that cannot be
/// written is refused before any training).
std::unique_ptr<TraceFile> openTrace(const CommandLine& cl, Run& run) {
    if (cl.trace.empty())
        return nullptr;
    const ExperimentConfig& c = cl.config;
    auto trace = std::make_unique<TraceFile>(cl.trace, experimentFileJson(c),
                                             c.transport == Transport::Mpi ? "mpirun"
                                             : run.info().processes        ? toString(c.startMethod)
                                                                           : "");
    run.setTrace(true);
    return trace;
}

/// Ends the trace after the outputs: its line, or the error (status 1).
int finishTrace(TraceFile& trace, Run& run, const RunSummary& s, std::int64_t writeFrom,
                std::int64_t writeTo, int code) {
    try {
        if (writeTo > writeFrom)
            trace.addSpan("write outputs", writeFrom, writeTo);
        std::printf("%s\n", trace.finish(run.telemetry(), s).c_str());
        std::fflush(stdout);
        return code;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        return code ? code : 1;
    }
}

/// Says that a signal came before training started; returns the exit code.
int interruptedBeforeTraining() {
    std::fflush(stdout);
    std::fprintf(stderr, "interrupted (%s) before training started: nothing written\n",
                 signalName(stopSignal()));
    return 128 + stopSignal();
}

/// ", schedule step:10:0.5, warm-up 100 steps" for the experiment line.
std::string scheduleText(const ExperimentConfig& c) {
    std::string text;
    if (c.lrSchedule != "constant")
        text += " (" + c.lrSchedule;
    if (c.warmupSteps > 0)
        text += (text.empty() ? " (" : ", ") + std::string("warm-up ") +
                std::to_string(c.warmupSteps) + " steps";
    return text.empty() ? text : text + ")";
}

/// What the run came to, said after it: the summary, the files written,
/// the errors; returns the exit status.
int reportEnd(const Run& run, const RunSummary& s, const std::string& wrote,
              const std::vector<std::string>& notWritten, const TensorBoardLog* events,
              int interrupted) {
    printSummary(run, s);
    if (!wrote.empty())
        std::printf("%s\n", wrote.c_str());
    if (events && events->error().empty())
        std::printf("wrote %s (view: tensorboard --logdir %s)\n", events->file().c_str(),
                    run.config().tensorboard.c_str());
    std::fflush(stdout);
    for (const auto& failure : notWritten)
        std::fprintf(stderr, "error: out: could not write %s\n", failure.c_str());
    if (events && !events->error().empty())
        std::fprintf(stderr, "error: tensorboard: could not write %s: %s\n", events->file().c_str(),
                     events->error().c_str());
    if (s.state == RunState::Failed) {
        std::fprintf(stderr, "error: %s\n", s.failure.c_str());
        return 1;
    }
    if (!notWritten.empty() || (events && !events->error().empty()))
        return 1; // trained, but not all of it reached the disk
    if (!s.workerFailures.empty())
        std::fprintf(stderr,
                     "warning: %zu worker%s died; the others finished the run "
                     "(--on-worker-failure continue)\n",
                     s.workerFailures.size(), s.workerFailures.size() == 1 ? "" : "s");
    if (interrupted) {
        std::fprintf(stderr, "interrupted (%s): stopped after %d complete epoch%s\n",
                     signalName(interrupted), s.epochsCompleted, s.epochsCompleted == 1 ? "" : "s");
        return 128 + interrupted;
    }
    return 0;
}

int trainAndReport(const CommandLine& cl, RunSummary* summary = nullptr) {
    Run run(cl.config);
    const auto& c = cl.config;
    // Claimed before anything is loaded or checked: a second run into the
    // folder is refused at once, and what an interrupted run left is settled.
    std::optional<OutputFolder> folder;
    if (!c.out.empty()) {
        folder.emplace(c.out);
        if (!folder->cleanup().empty())
            std::printf("%s\n", folder->cleanup().c_str());
    }
    checkOutIsFree(cl.config, cl.overwrite);
    std::printf("experiment: %s on %s, mode %s, %d worker%s, %d epoch%s, batch %d, lr %g%s\n",
                c.model.c_str(), c.dataset.c_str(), describeMode(c).c_str(), c.workers,
                c.workers == 1 ? "" : "s", c.epochs, c.epochs == 1 ? "" : "s", c.batch, c.lr,
                scheduleText(c).c_str());
    try {
        run.prepare([] { return stopSignal() != 0; }); // a signal stops the loading at once
    } catch (const Cancelled&) {
        return interruptedBeforeTraining();
    }
    printPrepared(run);
    // Checked and held before training: a long run never ends in a write
    // that could not happen, or one mixed with another run's.
    if (folder) {
        folder->checkSpace(OutputFolder::bytesNeededFor(run));
        folder->keepEarlierMetrics(c); // read now, with the weights it continues
    }
    std::fflush(stdout);
    if (stopSignal() != 0) // while the last of the loading was not polled
        return interruptedBeforeTraining();
    std::optional<TensorBoardLog> events;
    if (!c.tensorboard.empty()) {
        events.emplace(c.tensorboard, c);
        if (!events->note().empty())
            std::printf("%s\n", events->note().c_str());
        std::printf("tensorboard: this run writes into %s (view: tensorboard --logdir %s)\n",
                    events->runFolder().c_str(), c.tensorboard.c_str());
    }

    const std::unique_ptr<TraceFile> trace = openTrace(cl, run);
    MetricsLog log;
    run.setPace(cl.pace);
    if (cl.pace > 0)
        std::printf("pace: at most %u steps per second per worker (--pace 0: full speed)\n",
                    cl.pace);
    const auto started = std::chrono::system_clock::now();
    run.start();
    ConsoleOut out; // epoch lines: never a wait between a SIGTERM and the files
    const int interrupted = follow(run, log, cl, events ? &*events : nullptr, out, trace.get());
    const RunSummary s = run.summary();
    if (summary)
        *summary = s;
    // The files first: under mpirun a SIGTERM leaves 1 s before SIGKILL, and
    // printing may wait for mpirun to read.
    std::vector<std::string> notWritten;
    const std::string tensorboardRun =
        events ? std::filesystem::path(events->runFolder()).filename().string() : std::string();
    const std::int64_t writeFrom = monotonicNs();
    const std::string wrote =
        folder ? folder->writeRun(run, log, s, started, notWritten, tensorboardRun) : "";
    if (events)
        events->finish(s);
    const std::int64_t writeTo = folder || events ? monotonicNs() : writeFrom;
    out.flush();
    const int code = reportEnd(run, s, wrote, notWritten, events ? &*events : nullptr, interrupted);
    return trace ? finishTrace(*trace, run, s, writeFrom, writeTo, code) : code;
}

/// One run of a comparison or a sweep: its exit status, and into `row` what
/// the table says of it. A run refused or failing before it trains (a
/// missing file, a GPU that is not there) is recorded, not fatal.
int oneOfMany(const CommandLine& cl, const PresetRun& run, bool redo, TableRun& row) {
    CommandLine one = cl;
    one.runs.clear();
    one.config = run.config;
    one.overwrite = cl.overwrite || redo; // its own unfinished run
    row.label = run.label;
    for (const std::string& key : cl.sweepKeys)
        row.values.push_back(sweepValueText(findField(key)->get(run.config)));
    try {
        row.exitCode = trainAndReport(one, &row.summary);
        row.started = true;
        if (row.summary.state == RunState::Failed)
            row.error = row.summary.failure;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        row.exitCode = dynamic_cast<const InputError*>(&e) ? 2 : 1;
        row.error = e.what();
    }
    return row.exitCode;
}

/// The logdir's experiment for all the runs of a comparison or sweep, before
/// any starts, so that TensorBoard's HParams lists first what they vary
/// (each run, its child process too, then finds it there).
void writeSharedExperiment(const CommandLine& cl) {
    if (cl.runs.empty() || cl.runs.front().config.tensorboard.empty())
        return;
    std::vector<ExperimentConfig> configs;
    for (const PresetRun& r : cl.runs)
        configs.push_back(r.config);
    std::string note;
    writeTensorBoardExperiment(cl.runs.front().config.tensorboard, configs, "tensorboard", &note);
    if (!note.empty())
        std::printf("%s\n", note.c_str());
}

/// A comparison preset or a sweep: each run in order (Comparison), a header
/// line before each, then the table of them all (a sweep's also in
/// sweep.csv). A failed run is recorded and the next one made; a signal
/// stops it. The exit status is the first run's that was not 0.
int compareRuns(const CommandLine& cl) {
    claimSweepFolder(cl); // another grid is refused before any run starts
    const EarlierRuns earlier = findEarlierRuns(cl);
    recordSweepGrid(cl);
    Comparison comparison(cl.runs);
    std::vector<ComparedRun> done;
    std::vector<TableRun> rows;
    int code = 0;
    bool csvWritten = true;
    for (const PresetRun* run = comparison.current(); run;) {
        const std::size_t index = comparison.index();
        if (const auto& kept = earlier.finished[index]) {
            std::printf("%s\n\n", keptRunLine(*run, index, comparison.size()).c_str());
            done.push_back({run->label, run->config, kept->summary, 0});
            rows.push_back(*kept);
            csvWritten = writeSweepCsv(cl, rows) && csvWritten;
            run = comparison.ended(false);
            continue;
        }
        std::printf("== run %zu of %zu: %s ==\n", index + 1, comparison.size(), run->label.c_str());
        std::fflush(stdout);
        TableRun row;
        const int exit = oneOfMany(cl, *run, earlier.redo[index], row);
        std::printf("\n");
        done.push_back({run->label, run->config, row.summary, exit});
        rows.push_back(std::move(row));
        if (code == 0)
            code = exit;
        csvWritten = writeSweepCsv(cl, rows) && csvWritten;
        run = comparison.ended(/*stopped=*/exit >= 128);
    }
    if (cl.sweepKeys.empty() && cl.repeat > 1) // each run of the preset N times
        std::fputs((comparisonText(cl.presetId, done, cl.runs.size()) + repeatsText(cl.runs, rows) +
                    raceText(done, cl.runs))
                       .c_str(),
                   stdout);
    else if (cl.sweepKeys.empty())
        std::fputs(comparisonText(cl.presetId, done, cl.runs.size()).c_str(), stdout);
    else
        std::fputs(
            (sweepText(cl.sweepKeys, rows, cl.runs.size()) + repeatsText(cl.runs, rows)).c_str(),
            stdout);
    if (!cl.sweepOut.empty() && csvWritten)
        std::printf("wrote %s\n", (std::filesystem::path(cl.sweepOut) / "sweep.csv").c_str());
    std::fflush(stdout);
    return code != 0 ? code : csvWritten ? 0 : 1;
}

} // namespace

int runHeadless(const std::vector<std::string>& args) {
    // Under mpirun rank 0 speaks for the job: the others keep what they
    // share with it (notes, errors in the options) to themselves.
    const bool quiet = mpirunRankFromEnvironment() > 0;
    try {
        if (wantsCompare(args))
            return runCompare(args);
        CommandLine cl = parseCommandLine(args);
        if (cl.help) {
            std::fputs(helpText().c_str(), stdout);
            return 0;
        }
        if (cl.version) {
            std::printf("hogwild-lab %s\n%s\n", HWL_VERSION, cpuKernelsDescription().c_str());
            return 0;
        }
        cpuKernels(); // HWL_CPU_KERNELS that cannot be had: said now, before anything runs
        if (cl.counterToy) {
            const std::int64_t increments =
                cl.increments != 0 ? cl.increments : counterToyDefaultIncrements(cl.config.workers);
            std::fputs(counterToyText(cl.config.workers, increments).c_str(), stdout);
            return 0;
        }
        if (cl.listPresets) {
            std::vector<PresetProblem> problems;
            std::fputs(presetsText(presets(&problems)).c_str(), stdout);
            std::fflush(stdout);
            for (const PresetProblem& p : problems) // each left out, the others listed
                std::fprintf(stderr, "warning: %s\n", p.message.c_str());
            return 0;
        }
        if (cl.listDevices) {
            const DeviceList devices = listDevices();
            std::fputs(describeDevices(devices).c_str(), stdout);
            return devices.devices.empty() ? 1 : 0;
        }
        for (const auto& note : cl.notes)
            if (!quiet)
                std::printf("%s\n", note.c_str());
        if (startedAsRank(cl.config)) {
            if (!cl.runs.empty())
                throw InputError((cl.sweepKeys.empty() ? "preset: " + cl.presetId : "--sweep") +
                                 " makes runs one after another: run it without mpirun");
            return runMpiRank(cl.config, cl.workersGiven, [&] { return trainAndReport(cl); });
        }
        catchStopSignals();
        dieWithSweepParent(); // a run of --sweep-parallel ends with its sweep
        // The fork server starts now, while this process has a single thread:
        // data loading and the run start threads later.
        bool forkServer =
            usesStartMethod(cl.config) && cl.config.startMethod == StartMethod::Forkserver;
        for (const PresetRun& r : cl.runs)
            forkServer = forkServer || (usesStartMethod(r.config) &&
                                        r.config.startMethod == StartMethod::Forkserver);
        if (forkServer)
            if (const std::string why = startForkServer(); !why.empty())
                throw RunError(why);
        writeSharedExperiment(cl);
        if (cl.sweepParallel > 1)
            return runSweepInParallel(cl, stopSignal);
        return cl.runs.empty() ? trainAndReport(cl) : compareRuns(cl);
    } catch (const InputError& e) {
        std::fflush(stdout);
        if (!quiet)
            std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        if (!quiet)
            std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

} // namespace hwl
