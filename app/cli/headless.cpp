#include "cli/headless.h"

#include "io/metricslog.h"
#include "io/tensorfile.h"
#include "launch/forkserver.h"
#include "launch/workerprocess.h"
#include "run/run.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include <unistd.h>

namespace hwl {

namespace {
volatile std::sig_atomic_t gInterrupted = 0;
void onSignal(int) {
    gInterrupted = 1;
}

[[noreturn]] void badFlag(const std::string& flag, const std::string& why) {
    throw InputError(flag + ": " + why + " (see --help)");
}

// Only the syntax is checked here; ranges are the validator's job, so that
// every out-of-range field is reported at once.
int integerFlag(const std::string& flag, const std::string& value) {
    const auto v = parseInteger(value);
    if (!v || *v < INT32_MIN || *v > INT32_MAX)
        badFlag(flag, "expected an integer, got \"" + value + "\"");
    return int(*v);
}

double numberFlag(const std::string& flag, const std::string& value) {
    const auto v = parseNumber(value);
    if (!v)
        badFlag(flag, "expected a number, got \"" + value + "\"");
    return *v;
}

std::string humanRate(double perSecond) {
    char text[32];
    if (perSecond >= 1e6)
        std::snprintf(text, sizeof text, "%.2fM", perSecond / 1e6);
    else if (perSecond >= 1e3)
        std::snprintf(text, sizeof text, "%.1fk", perSecond / 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f", perSecond);
    return text;
}

void progressBar(Telemetry& t, std::uint64_t expectedSamples) {
    std::uint64_t samples = 0;
    for (std::uint32_t r = 0; r < t.workerCount(); ++r)
        samples += t.worker(r).samples.load(std::memory_order_relaxed);
    const double fraction =
        expectedSamples ? std::min(1.0, double(samples) / double(expectedSamples)) : 0;
    const double elapsed = t.elapsed();
    const int width = 30, filled = int(fraction * width);
    std::string bar(std::size_t(filled), '=');
    if (filled < width)
        bar += '>' + std::string(std::size_t(width - filled - 1), ' ');
    std::fprintf(stderr, "\r[%s] %3d%%  %s samples/s  %s", bar.c_str(), int(fraction * 100),
                 humanRate(elapsed > 0 ? double(samples) / elapsed : 0).c_str(),
                 t.runState() == RunState::Paused ? "paused " : "       ");
    std::fflush(stderr);
}

void clearProgress() {
    std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
}
} // namespace

std::string helpText() {
    return R"(Hogwild Lab: parallel SGD training workbench (headless mode)

Usage: hogwild-lab --headless [options]

Without options it runs the embedded default experiment: Fashion-MNIST,
mlp:784-128-10, thread Hogwild, 2 workers (the teacher task when Fashion-MNIST
is not installed).

Experiment:
  --config FILE.json     start from this experiment file (same field names as
                         the flags; applied before the other flags)
  --mode M               serial | threads | threads-locked | processes [threads]
  --workers N            workers, 1..256 (serial: 1)                [2]
  --start-method S       processes mode: fork | spawn | forkserver  [forkserver]
  --no-share             processes mode: the "forgot to share the parameters"
                         pitfall: each worker trains a private copy
  --share                the default: one shared copy (Hogwild)
  --on-worker-failure P  stop | continue when a worker dies        [stop]
  --model SPEC           mlp:IN-H1-...-OUT[:relu|tanh|sigmoid]      [mlp:784-128-10]
                         embedding-bag:V-D-C   (sparse datasets)
  --dataset SPEC         random:ROWSxDIM:CLASSES      (randn data, random labels)
                         teacher:ROWSxDIM:CLASSES[:HIDDEN] (learnable)
                         sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS]
                         fashion-mnist | idx:DIR | csv:FILE | libsvm:FILE
                                                                     [fashion-mnist]
  --epochs N             1..100000                                  [5]
  --batch N              samples per step, 1..1048576               [32]
  --lr X                 learning rate, (0, 100]                    [0.01]
  --momentum X           SGD momentum, [0, 1)                       [0.9]
  --weight-decay X       L2 penalty, [0, 1]                         [0]
  --seed N               seeds data, initialisation and order       [42]
  --split S              shard: each sample once per epoch across workers
                         replicate: every worker walks all samples  [shard]
  --test-fraction F      held-out share, [0, 1); ignored by datasets
                         with their own test set (fashion-mnist, idx) [0.1]
  --no-shuffle           visit samples in file order (exact comparisons)
  --shuffle              a new random order every epoch (the default)
  --init FILE            start from weights in a safetensors file
  --out DIR              write weights.safetensors, weights.npz,
                         metrics.csv and experiment.json into DIR

Other:
  --quiet                only the final summary
  --help                 this text
  --version              the version

Exit status: 0 success, 1 failure while training (e.g. diverged),
2 invalid option, config or input file, 130 interrupted (Ctrl-C; with --out
what was trained so far is still written).
)";
}

CommandLine parseCommandLine(const std::vector<std::string>& args) {
    CommandLine cl;
    cl.config = ExperimentConfig::defaults();
    // Split "--flag=value", collect pairs, apply --config first.
    std::vector<std::pair<std::string, std::string>> flags;
    static const std::map<std::string, bool> known = {{"--config", true},
                                                      {"--mode", true},
                                                      {"--workers", true},
                                                      {"--model", true},
                                                      {"--dataset", true},
                                                      {"--epochs", true},
                                                      {"--batch", true},
                                                      {"--lr", true},
                                                      {"--momentum", true},
                                                      {"--weight-decay", true},
                                                      {"--seed", true},
                                                      {"--split", true},
                                                      {"--test-fraction", true},
                                                      {"--init", true},
                                                      {"--out", true},
                                                      {"--start-method", true},
                                                      {"--on-worker-failure", true},
                                                      {"--no-share", false},
                                                      {"--share", false},
                                                      {"--no-shuffle", false},
                                                      {"--shuffle", false},
                                                      {"--quiet", false},
                                                      {"--help", false},
                                                      {"-h", false},
                                                      {"--version", false},
                                                      {"--headless", false}};
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i], value;
        const auto eq = flag.find('=');
        bool inlineValue = false;
        if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inlineValue = true;
        }
        const auto it = known.find(flag);
        if (it == known.end())
            badFlag(flag, flag.rfind("-", 0) == 0 ? "unknown option" : "unexpected argument");
        if (it->second && !inlineValue) {
            if (i + 1 >= args.size())
                badFlag(flag, "needs a value");
            value = args[++i];
        } else if (!it->second && inlineValue) {
            badFlag(flag, "takes no value");
        }
        flags.emplace_back(flag, value);
    }
    bool workersGiven = false, datasetGiven = false;
    for (const auto& [flag, value] : flags)
        if (flag == "--config") {
            cl.config.mergeJsonFile(value);
            datasetGiven = true; // the file decides
        }
    for (const auto& [flag, value] : flags) {
        auto& c = cl.config;
        if (flag == "--mode") {
            const auto m = parseMode(value);
            if (!m)
                badFlag(flag, "expected serial, threads, threads-locked or processes, got \"" +
                                  value + "\"");
            c.mode = *m;
        } else if (flag == "--start-method") {
            const auto m = parseStartMethod(value);
            if (!m)
                badFlag(flag, "expected fork, spawn or forkserver, got \"" + value + "\"");
            c.startMethod = *m;
        } else if (flag == "--on-worker-failure") {
            const auto p = parseFailurePolicy(value);
            if (!p)
                badFlag(flag, "expected stop or continue, got \"" + value + "\"");
            c.onWorkerFailure = *p;
        } else if (flag == "--no-share") {
            c.share = false;
        } else if (flag == "--share") {
            c.share = true;
        } else if (flag == "--workers") {
            c.workers = integerFlag(flag, value);
            workersGiven = true;
        } else if (flag == "--model")
            c.model = value;
        else if (flag == "--dataset") {
            c.dataset = value;
            datasetGiven = true;
        } else if (flag == "--epochs")
            c.epochs = integerFlag(flag, value);
        else if (flag == "--batch")
            c.batch = integerFlag(flag, value);
        else if (flag == "--lr")
            c.lr = numberFlag(flag, value);
        else if (flag == "--momentum")
            c.momentum = numberFlag(flag, value);
        else if (flag == "--weight-decay")
            c.weightDecay = numberFlag(flag, value);
        else if (flag == "--seed") {
            const auto v = parseInteger(value);
            if (!v || *v < 0)
                badFlag(flag, "expected a non-negative integer, got \"" + value + "\"");
            c.seed = std::uint64_t(*v);
        } else if (flag == "--split") {
            const auto s = parseDataSplit(value);
            if (!s)
                badFlag(flag, "expected shard or replicate, got \"" + value + "\"");
            c.split = *s;
        } else if (flag == "--test-fraction")
            c.testFraction = numberFlag(flag, value);
        else if (flag == "--init")
            c.init = value;
        else if (flag == "--out")
            c.out = value;
        else if (flag == "--no-shuffle")
            c.shuffle = false;
        else if (flag == "--shuffle")
            c.shuffle = true;
        else if (flag == "--quiet")
            cl.quiet = true;
        else if (flag == "--help" || flag == "-h")
            cl.help = true;
        else if (flag == "--version")
            cl.version = true;
    }
    if (cl.config.mode == Mode::Serial && !workersGiven)
        cl.config.workers = 1;
    if (!datasetGiven && cl.config.dataset == "fashion-mnist" && !fashionMnistAvailable()) {
        cl.config.dataset = "teacher:60000x784:10:64";
        cl.notes.push_back("note: Fashion-MNIST is not installed in " + fashionMnistDir().string() +
                           " (apt-get install dataset-fashion-mnist); running the default "
                           "experiment on the synthetic teacher task " +
                           cl.config.dataset + " instead");
    }
    return cl;
}

void writeRunOutputs(const std::string& dir, const Run& run, const MetricsLog& log,
                     bool withWeights) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError("out: cannot create directory \"" + dir + "\": " + ec.message());
    const fs::path base(dir);
    writeFileAtomically(base / "experiment.json", run.config().toJson());
    log.writeCsv(base / "metrics.csv");
    if (!withWeights)
        return;
    run.writeWeights(base / "weights.safetensors");
    run.writeWeights(base / "weights.npz");
}

namespace {
// Checks before training that --out can be written, so a long run does not
// end in a failed write. Creates the directory (as the run would anyway).
void checkOutputDirectory(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw InputError("out: \"" + dir + "\" exists and is not a directory");
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError("out: cannot create directory \"" + dir + "\": " + ec.message() +
                         "; choose a writable --out directory");
    if (access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError("out: directory \"" + dir + "\" is not writable; choose another --out");
}

int trainAndReport(const CommandLine& cl, std::shared_ptr<ForkServer> forkServer) {
    Run run(cl.config);
    run.setForkServer(std::move(forkServer));
    std::string mode = toString(cl.config.mode);
    if (cl.config.mode == Mode::Processes) {
        mode += std::string(" (") + toString(cl.config.startMethod);
        mode += cl.config.share ? ")" : ", NOT shared)";
    }
    std::printf("experiment: %s on %s, mode %s, %d worker%s, %d epoch%s, batch %d, lr %g\n",
                cl.config.model.c_str(), cl.config.dataset.c_str(), mode.c_str(), cl.config.workers,
                cl.config.workers == 1 ? "" : "s", cl.config.epochs,
                cl.config.epochs == 1 ? "" : "s", cl.config.batch, cl.config.lr);
    run.prepare();
    for (const auto& note : run.notes())
        std::printf("warning: %s\n", note.c_str());
    std::printf("data: %s; test: %s\n", run.data().train.description.c_str(),
                run.data().test.rows ? run.data().test.description.c_str() : "none");
    std::printf("model: %lld parameters\n", (long long)run.model().layout().total());
    if (!cl.config.out.empty())
        checkOutputDirectory(cl.config.out);
    std::fflush(stdout);

    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool tty = !cl.quiet && isatty(STDERR_FILENO);
    const std::uint64_t perEpoch = cl.config.split == DataSplit::Replicate
                                       ? std::uint64_t(run.data().train.rows) * cl.config.workers
                                       : std::uint64_t(run.data().train.rows);
    const std::uint64_t expected = perEpoch * std::uint64_t(cl.config.epochs);
    MetricsLog log;
    auto print = [&](const Sample& s) {
        if (s.kind == Sample::Step || (cl.quiet && s.kind != Sample::Eval))
            return;
        if (tty)
            clearProgress();
        if (s.kind == Sample::EpochEnd)
            std::printf("epoch %u  worker %d  loss %.4f  (%llu samples, %.2f s)\n", s.epoch,
                        s.worker, double(s.loss), (unsigned long long)s.samples, s.time);
        else if (run.data().test.rows > 0)
            std::printf("epoch %u  test loss %.4f  accuracy %.2f%%\n", s.epoch, double(s.loss),
                        100.0 * double(s.accuracy));
        std::fflush(stdout);
    };
    run.start();
    bool interrupted = false;
    while (!run.wait(std::chrono::milliseconds(100))) {
        if (gInterrupted && !interrupted) {
            interrupted = true;
            run.stop();
        }
        log.drain(run.telemetry(), print);
        if (tty)
            progressBar(run.telemetry(), expected);
    }
    log.drain(run.telemetry(), print);
    if (tty)
        clearProgress();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    const RunSummary s = run.summary();
    std::printf("summary: %s after %d of %d epochs; %llu samples in %.2f s training "
                "(%.3f s wall): %s samples/s\n",
                toString(s.state), s.epochsCompleted, cl.config.epochs,
                (unsigned long long)s.samples, s.trainSeconds, s.wallSeconds,
                humanRate(s.samplesPerSecond).c_str());
    std::string startup;
    for (std::size_t r = 0; r < s.startupSeconds.size(); ++r) {
        char part[48];
        if (s.startupSeconds[r] < 0)
            std::snprintf(part, sizeof part, "%s%zu: took no step", r ? ", " : "", r);
        else
            std::snprintf(part, sizeof part, "%s%zu: %.2f ms", r ? ", " : "", r,
                          s.startupSeconds[r] * 1e3);
        startup += part;
    }
    std::printf("summary: worker start-up (launch to first step): %s\n", startup.c_str());
    if (s.evaluated)
        std::printf("summary: final test accuracy %.2f%%, test loss %.4f, train loss %.4f\n",
                    100.0 * s.testAccuracy, s.testLoss, s.trainLoss);
    else if (run.data().test.rows == 0)
        std::printf("summary: final train loss %.4f (no test set)\n", s.trainLoss);
    else
        std::printf("summary: the test set was not evaluated (no epoch completed)\n");
    for (const auto& failure : s.workerFailures)
        std::printf("worker failure: %s\n", failure.c_str());
    for (const auto& explanation : s.explanations)
        std::printf("pitfall: %s\n", explanation.c_str());
    if (s.droppedSamples)
        std::printf("summary: %llu telemetry samples were dropped (monitor too slow)\n",
                    (unsigned long long)s.droppedSamples);
    if (!cl.config.out.empty() && s.state == RunState::Failed) {
        // The weights of a failed run are not worth keeping (a diverged run's
        // are NaN); the metrics say what happened.
        writeRunOutputs(cl.config.out, run, log, /*withWeights=*/false);
        std::printf("wrote %s/{metrics.csv, experiment.json}; no weights: the run failed\n",
                    cl.config.out.c_str());
    } else if (!cl.config.out.empty()) {
        writeRunOutputs(cl.config.out, run, log);
        std::printf("wrote %s/{weights.safetensors, weights.npz, metrics.csv, experiment.json}%s\n",
                    cl.config.out.c_str(), s.state == RunState::Finished ? "" : " (partial run)");
    }
    std::fflush(stdout);
    if (s.state == RunState::Failed) {
        std::fprintf(stderr, "error: %s\n", s.failure.c_str());
        return 1;
    }
    if (!s.workerFailures.empty())
        std::fprintf(stderr,
                     "warning: %zu worker%s died; the others finished the run "
                     "(--on-worker-failure continue)\n",
                     s.workerFailures.size(), s.workerFailures.size() == 1 ? "" : "s");
    if (interrupted) {
        std::fprintf(stderr, "interrupted: stopped after %d complete epoch%s\n", s.epochsCompleted,
                     s.epochsCompleted == 1 ? "" : "s");
        return 130;
    }
    return 0;
}
} // namespace

int runHeadless(const std::vector<std::string>& args) {
    try {
        const CommandLine cl = parseCommandLine(args);
        if (cl.help) {
            std::fputs(helpText().c_str(), stdout);
            return 0;
        }
        if (cl.version) {
            std::printf("hogwild-lab %s\n", HWL_VERSION);
            return 0;
        }
        for (const auto& note : cl.notes)
            std::printf("%s\n", note.c_str());
        // The fork server starts now, while this process has a single thread:
        // data loading and the run start threads later.
        std::shared_ptr<ForkServer> forkServer;
        if (cl.config.mode == Mode::Processes && cl.config.startMethod == StartMethod::Forkserver)
            forkServer = ForkServer::start(&workerProcessMain);
        return trainAndReport(cl, std::move(forkServer));
    } catch (const InputError& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

} // namespace hwl
