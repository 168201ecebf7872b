#include "io/tensorboardlog.h"

#include "io/runsummaryfile.h"

#include "io/runstable.h"
#include "io/tensorboardlogdir.h"
#include "io/tensorboardsummary.h"
#include "io/tfrecord.h"
#include "util/errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

namespace hwl {

namespace fs = std::filesystem;

namespace {
double wallNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string hostName() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
        return "localhost";
    std::string host = name;
    for (char& c : host)
        if (c == '/')
            c = '_';
    return host;
}

/// A new event file in the run folder `dir` (a new name if one is taken).
std::unique_ptr<RecordWriter> createEventFile(const std::string& dir, const std::string& name,
                                              double now) {
    const std::string stem = "events.out.tfevents." + std::to_string(std::int64_t(now)) + "." +
                             hostName() + "." + std::to_string(::getpid());
    for (int attempt = 0;; ++attempt) {
        const fs::path file =
            fs::path(dir) / (attempt == 0 ? stem : stem + "." + std::to_string(attempt));
        if (fs::exists(file) && attempt < 100)
            continue;
        try {
            return std::make_unique<RecordWriter>(file);
        } catch (const InputError& e) {
            throw InputError(name + ": " + e.what());
        }
    }
}

std::string workerTag(const char* prefix, std::int32_t worker) {
    return std::string(prefix) + "/worker_" + std::to_string(worker);
}
} // namespace

struct TensorBoardLog::State {
    std::string logdir, folder, note;
    std::unique_ptr<RecordWriter> writer;
    double startWall = 0;
    bool scheduled = false;
    /// --eval-every: the test set's scalars are drawn against each worker's
    /// steps (an evaluation's steps over the workers), as the training
    /// loss; else against the epoch.
    std::uint64_t evalStepsPer = 0;
    bool finished = false;
    /// Per worker: its last step, and the time and samples of its last epoch end.
    std::vector<std::uint64_t> lastStep;
    std::vector<double> epochTime;
    std::vector<std::uint64_t> epochSamples;
    double evalTime = 0;
    std::uint64_t evalSamples = 0;

    void event(std::int64_t step, double wall, const tb::Summary& summary) {
        writer->write(tbsummary::event(step, wall, summary));
    }
    void scalar(const std::string& tag, std::int64_t step, double wall, double value) {
        tb::Summary summary;
        tb::Summary::Value* v = summary.add_value();
        v->set_tag(tag);
        v->set_simple_value(float(value));
        event(step, wall, summary);
    }
    template <class T>
    void grow(std::vector<T>& v, std::int32_t worker) {
        if (worker >= 0 && std::size_t(worker) >= v.size())
            v.resize(std::size_t(worker) + 1, T{});
    }
    void start(const ExperimentConfig& config);
    void onStep(const Sample& s, double wall);
    void onEpochEnd(const Sample& s, double wall);
    void onEval(const Sample& s, double wall);
};

void TensorBoardLog::State::start(const ExperimentConfig& config) {
    writer->write(tbsummary::fileVersion(startWall));
    event(0, startWall,
          tbsummary::hparams(tbsummary::kSessionStartTag,
                             tbsummary::sessionStart(config, startWall)));
    writer->flush();
}

void TensorBoardLog::State::onStep(const Sample& s, double wall) {
    const auto step = std::int64_t(s.step);
    scalar(workerTag("loss/train", s.worker), step, wall, s.loss);
    scalar(workerTag("divergence", s.worker), step, wall, s.divergence);
    if (scheduled)
        scalar(workerTag("lr", s.worker), step, wall, s.lr);
}

void TensorBoardLog::State::onEpochEnd(const Sample& s, double wall) {
    const std::size_t w = std::size_t(s.worker);
    scalar(workerTag("loss/epoch", s.worker), s.epoch, wall, s.loss);
    const double seconds = s.time - epochTime[w];
    if (seconds > 0)
        scalar(workerTag("samples_per_second", s.worker), s.epoch, wall,
               double(s.samples - epochSamples[w]) / seconds);
    epochTime[w] = s.time;
    epochSamples[w] = s.samples;
}

void TensorBoardLog::State::onEval(const Sample& s, double wall) {
    const auto x = std::int64_t(evalStepsPer ? s.step / evalStepsPer : s.epoch);
    scalar("test/loss", x, wall, s.loss);
    scalar("test/accuracy", x, wall, s.accuracy);
    scalar("divergence/replicas", x, wall, s.divergence);
    const double seconds = s.time - evalTime;
    if (seconds > 0 && s.samples >= evalSamples)
        scalar("samples_per_second/all", x, wall, double(s.samples - evalSamples) / seconds);
    evalTime = s.time;
    evalSamples = s.samples;
}

namespace {
/// The TensorBoard run folder in `logdir` of the run `config` resumes (its
/// summary.json names it), where this run goes on; empty when there is none.
std::string continuedFolder(const std::string& logdir, const ExperimentConfig& config) {
    // Only a run continued in its own folder: two runs resumed elsewhere
    // from one checkpoint are two runs, each with a TensorBoard run of its own.
    std::error_code ec;
    if (config.resume.empty() || config.out.empty() ||
        !std::filesystem::equivalent(config.resume, config.out, ec))
        return {};
    const std::filesystem::path summary = std::filesystem::path(config.resume) / "summary.json";
    if (!std::filesystem::is_regular_file(summary, ec) ||
        std::filesystem::file_size(summary, ec) > (std::uintmax_t(16) << 20))
        return {};
    std::ifstream in(summary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string run = tensorBoardRunOf(text.str());
    if (run.empty() || run.find('/') != std::string::npos || run[0] == '.' ||
        !std::filesystem::is_directory(std::filesystem::path(logdir) / run, ec))
        return {};
    return (std::filesystem::path(logdir) / run).string();
}
} // namespace

TensorBoardLog::TensorBoardLog(const std::string& logdir, const ExperimentConfig& config,
                               const std::string& name)
    : d_(std::make_unique<State>()) {
    d_->startWall = wallNow();
    d_->scheduled = config.lrSchedule != "constant" || config.warmupSteps > 0;
    d_->evalStepsPer = config.evalEvery > 0 ? std::uint64_t(std::max(1, config.workers)) : 0;
    d_->logdir = logdir;
    d_->folder = continuedFolder(logdir, config);
    if (d_->folder.empty())
        d_->folder = makeTensorBoardRunFolder(logdir, config, std::time_t(d_->startWall), name);
    else
        d_->note = name + ": this run continues the TensorBoard run " + d_->folder +
                   " of the run it resumes (a new event file beside the earlier one)";
    writeTensorBoardExperiment(logdir, {config}, name, &d_->note);
    d_->writer = createEventFile(d_->folder, name, d_->startWall);
    d_->start(config);
}

TensorBoardLog::~TensorBoardLog() = default;

void TensorBoardLog::append(const Sample& s) {
    if (d_->finished)
        return;
    const double wall = d_->startWall + s.time;
    if (s.kind == Sample::Eval) {
        d_->onEval(s, wall);
        return;
    }
    if (s.worker < 0 || s.worker >= 65536)
        return; // not a worker's sample
    d_->grow(d_->lastStep, s.worker);
    d_->grow(d_->epochTime, s.worker);
    d_->grow(d_->epochSamples, s.worker);
    d_->lastStep[std::size_t(s.worker)] = s.step;
    if (s.kind == Sample::Step)
        d_->onStep(s, wall);
    else if (s.kind == Sample::EpochEnd)
        d_->onEpochEnd(s, wall);
}

void TensorBoardLog::flush() {
    if (!d_->finished)
        d_->writer->flush();
}

void TensorBoardLog::finish(const RunSummary& summary) {
    if (d_->finished)
        return;
    const double end = wallNow();
    for (std::size_t w = 0; w < summary.lostUpdates.size(); ++w)
        d_->scalar(workerTag("lost_updates", std::int32_t(w)),
                   w < d_->lastStep.size() ? std::int64_t(d_->lastStep[w]) : 0, end,
                   double(summary.lostUpdates[w]));
    TableRun run;
    run.started = true;
    run.summary = summary;
    for (const RunFigure& figure : runFigures()) {
        const double value = figure.value ? figure.value(run) : NAN;
        if (std::isfinite(value))
            d_->scalar(std::string("final/") + figure.column, summary.epochsCompleted, end, value);
    }
    tb::HParamsPluginData session;
    tb::SessionEndInfo* info = session.mutable_session_end_info();
    info->set_status(summary.state == RunState::Finished ? tb::STATUS_SUCCESS
                     : summary.state == RunState::Failed ? tb::STATUS_FAILURE
                                                         : tb::STATUS_UNKNOWN);
    info->set_end_time_secs(end);
    d_->event(0, end, tbsummary::hparams(tbsummary::kSessionEndTag, session));
    d_->writer->close();
    d_->finished = true;
}

std::string TensorBoardLog::file() const {
    return d_->writer->path().string();
}

std::string TensorBoardLog::logdir() const {
    return d_->logdir;
}

std::string TensorBoardLog::runFolder() const {
    return d_->folder;
}

std::string TensorBoardLog::error() const {
    return d_->writer->error();
}

const std::string& TensorBoardLog::note() const {
    return d_->note;
}

} // namespace hwl
