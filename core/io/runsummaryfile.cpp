#include "io/runsummaryfile.h"

#include "util/cpukernels.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <ctime>
#include <fstream>
#include <thread>

#include <unistd.h>

namespace hwl {

namespace {
using nlohmann::json;

/// A figure, or null when it is not a number (JSON has no NaN).
json number(double x) {
    return std::isfinite(x) ? json(x) : json(nullptr);
}

std::string processorModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            if (const auto colon = line.find(':'); colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
    return {};
}

json host() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        name[0] = '\0';
    return {{"name", name},
            {"cpus", std::thread::hardware_concurrency()},
            {"processor", processorModel()}};
}

/// A worker's own rate: its samples over the time from its first step to
/// leaving its loop (null before it did both).
json workerRate(const WorkerSnapshot& w) {
    const double seconds = w.finishSeconds - w.launchSeconds - w.startupSeconds;
    if (w.launchSeconds < 0 || w.startupSeconds < 0 || w.finishSeconds < 0 || seconds <= 0)
        return nullptr;
    return double(w.samples) / seconds;
}

json worker(const WorkerSnapshot& w, const RunSummary& s) {
    json out = {{"rank", w.rank},
                {"pid", w.pid},
                {"state", stateName(w.state)},
                {"steps", w.steps},
                {"samples", w.samples},
                {"epochs", w.epochs},
                {"samples_per_second", workerRate(w)},
                {"startup_seconds", w.startupSeconds >= 0 ? json(w.startupSeconds) : json()},
                {"last_epoch_loss", number(w.lastEpochLoss)},
                {"divergence", number(w.lastDivergence)}};
    if (!w.failure.empty())
        out["failure"] = w.failure;
    if (!w.host.empty())
        out["host"] = w.host;
    if (w.rank < s.updateWrites.size()) {
        out["update_writes"] = s.updateWrites[w.rank];
        out["lost_updates"] = s.lostUpdates[w.rank];
    }
    if (w.rank < s.bytesReduced.size()) {
        out["comm_seconds"] = s.commSeconds[w.rank];
        out["bytes_reduced"] = s.bytesReduced[w.rank];
    }
    return out;
}

json finalFigures(const RunSummary& s) {
    json out = {{"epochs_completed", s.epochsCompleted},
                {"steps", s.steps},
                {"samples", s.samples},
                {"wall_seconds", s.wallSeconds},
                {"train_seconds", s.trainSeconds},
                {"eval_seconds", s.evalSeconds},
                {"samples_per_second", number(s.samplesPerSecond)},
                {"train_loss", number(s.trainLoss)},
                {"test_loss", s.evaluated ? number(s.testLoss) : json()},
                {"test_accuracy", s.evaluated ? number(s.testAccuracy) : json()},
                {"dropped_telemetry_samples", s.droppedSamples},
                {"start_loss", number(s.startLoss)},
                {"chance_accuracy", number(s.chanceAccuracy)}};
    if (!s.updateWrites.empty()) {
        out["update_writes"] = s.totalUpdateWrites();
        out["lost_updates"] = s.totalLostUpdates();
    }
    return out;
}
/// The target and where it was met (summary.json "target"), for a run that had one.
json targetFigures(const TargetResult& t) {
    json out = {{"test_accuracy", t.accuracy > 0 ? json(t.accuracy) : json()},
                {"test_loss", t.loss > 0 ? json(t.loss) : json()},
                {"reached", t.reached},
                {"best_test_accuracy", number(t.bestAccuracy)},
                {"best_test_loss", number(t.bestLoss)}};
    if (t.reached) {
        out["train_seconds"] = t.trainSeconds;
        out["wall_seconds"] = t.wallSeconds;
        out["samples"] = t.samples;
        out["steps"] = t.steps;
        out["epochs"] = t.epochs;
        out["during_epoch"] = t.duringEpoch;
    }
    return out;
}
} // namespace

namespace {
double numberOr(const json& object, const char* key, double otherwise) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : otherwise;
}

RunState stateNamed(const std::string& name, const std::string& origin) {
    for (const RunState s : {RunState::Starting, RunState::Running, RunState::Paused,
                             RunState::Finished, RunState::Stopped, RunState::Failed})
        if (name == stateName(s))
            return s;
    throw InputError(origin + ": unknown state \"" + name + "\"");
}

/// An outcome's name as summary.json writes it; NotJudged for any other (a
/// summary written before outcomes were judged has none).
LearningOutcome outcomeNamed(const std::string& name) {
    for (const LearningOutcome o :
         {LearningOutcome::Learned, LearningOutcome::AtChance, LearningOutcome::Diverged})
        if (name == outcomeName(o))
            return o;
    return LearningOutcome::NotJudged;
}

/// A figure that is neither a number nor null, or a number out of its
/// range (a share above 100%, a negative count): InputError naming it.
void checkFigures(const json& f, const std::string& origin) {
    for (auto it = f.begin(); it != f.end(); ++it)
        if (!it->is_number() && !it->is_null())
            throw InputError(origin + ": final." + it.key() + " is " + it->dump() +
                             ", not a number");
    const auto inRange = [&](const char* key, double hi, const char* range) {
        const double x = numberOr(f, key, 0);
        if (!(x >= 0 && x <= hi))
            throw InputError(origin + ": final." + key + " is " + f[key].dump() + ", outside " +
                             range);
    };
    for (const char* key : {"test_accuracy", "chance_accuracy"})
        inRange(key, 100, "0 to 100");
    for (const char* key : {"epochs_completed", "samples", "wall_seconds", "train_seconds",
                            "eval_seconds", "samples_per_second"})
        inRange(key, 1e300, "0 and up");
}

/// summary.json's "target", checked as the final figures are.
TargetResult readTarget(const json& t, const std::string& origin) {
    if (!t.is_object())
        throw InputError(origin + ": target is " + t.dump() + ", not an object");
    json figures = t;
    const json reached = figures["reached"];
    figures.erase("reached");
    if (!reached.is_boolean())
        throw InputError(origin + ": target.reached is " + reached.dump() + ", not true or false");
    const json during = figures.value("during_epoch", json(false)); // before --eval-every: absent
    figures.erase("during_epoch");
    if (!during.is_boolean())
        throw InputError(origin + ": target.during_epoch is " + during.dump() +
                         ", not true or false");
    for (auto it = figures.begin(); it != figures.end(); ++it)
        if (!(it->is_null() || (it->is_number() && it->get<double>() >= 0)))
            throw InputError(origin + ": target." + it.key() + " is " + it->dump() +
                             ", not a number of 0 and up");
    TargetResult r;
    r.accuracy = numberOr(t, "test_accuracy", 0);
    r.loss = numberOr(t, "test_loss", 0);
    r.reached = reached.get<bool>();
    r.trainSeconds = numberOr(t, "train_seconds", NAN);
    r.wallSeconds = numberOr(t, "wall_seconds", NAN);
    r.samples = std::uint64_t(numberOr(t, "samples", 0));
    r.steps = std::uint64_t(numberOr(t, "steps", 0));
    r.epochs = int(numberOr(t, "epochs", 0));
    r.duringEpoch = during.get<bool>();
    r.bestAccuracy = numberOr(t, "best_test_accuracy", NAN);
    r.bestLoss = numberOr(t, "best_test_loss", NAN);
    if (r.accuracy > 100 || !(r.bestAccuracy <= 1 || std::isnan(r.bestAccuracy)))
        throw InputError(origin + ": target's accuracies are outside their range");
    return r;
}

void readWorkers(const json& workers, RunSummary& s) {
    for (const json& w : workers) {
        if (!w.is_object())
            continue;
        s.startupSeconds.push_back(numberOr(w, "startup_seconds", -1));
        if (w.contains("comm_seconds"))
            s.commSeconds.push_back(numberOr(w, "comm_seconds", 0));
        if (w.contains("lost_updates")) {
            s.lostUpdates.push_back(std::uint64_t(numberOr(w, "lost_updates", 0)));
            s.updateWrites.push_back(std::uint64_t(numberOr(w, "update_writes", 0)));
        }
    }
}
} // namespace

RunSummary runSummaryFromJson(const std::string& text, const std::string& origin) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(origin + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object() || doc.value("format", "") != "hogwild-lab run summary" ||
        !doc.contains("final") || !doc["final"].is_object())
        throw InputError(origin + ": not a hogwild-lab run summary");
    RunSummary s;
    s.state = stateNamed(doc.value("state", ""), origin);
    s.failure = doc.value("failure", "");
    s.outcome = outcomeNamed(doc.value("outcome", "not judged"));
    s.outcomeReason = doc.value("outcome_reason", "");
    const json& f = doc["final"];
    checkFigures(f, origin);
    s.epochsCompleted = int(numberOr(f, "epochs_completed", 0));
    s.samples = std::uint64_t(numberOr(f, "samples", 0));
    s.wallSeconds = numberOr(f, "wall_seconds", 0);
    s.trainSeconds = numberOr(f, "train_seconds", 0);
    s.evalSeconds = numberOr(f, "eval_seconds", 0);
    s.samplesPerSecond = numberOr(f, "samples_per_second", NAN);
    s.trainLoss = numberOr(f, "train_loss", NAN);
    s.evaluated = f.contains("test_accuracy") && f["test_accuracy"].is_number();
    s.testLoss = numberOr(f, "test_loss", NAN);
    s.testAccuracy = numberOr(f, "test_accuracy", NAN);
    s.startLoss = numberOr(f, "start_loss", NAN);
    s.chanceAccuracy = numberOr(f, "chance_accuracy", NAN);
    if (doc.contains("workers") && doc["workers"].is_array())
        readWorkers(doc["workers"], s);
    if (doc.contains("target"))
        s.target = readTarget(doc["target"], origin);
    return s;
}

std::string isoTimeUtc(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string tensorBoardRunOf(const std::string& summaryText) {
    const json doc = json::parse(summaryText, nullptr, false);
    if (!doc.is_object() || !doc.contains("tensorboard_run") || !doc["tensorboard_run"].is_string())
        return {};
    return doc["tensorboard_run"].get<std::string>();
}

std::string runSummaryJson(const RunRecord& r) {
    const RunSummary& s = r.summary;
    json workers = json::array();
    for (const WorkerSnapshot& w : r.workers)
        workers.push_back(worker(w, s));
    json doc = {{"format", "hogwild-lab run summary"},
                {"format_version", 1},
                {"program", {{"version", HWL_VERSION}, {"cpu_kernels", cpuKernelsDescription()}}},
                {"host", host()},
                {"started", isoTimeUtc(r.started)},
                {"ended", isoTimeUtc(r.ended)},
                {"state", stateName(s.state)},
                {"outcome", outcomeName(s.outcome)},
                {"mode", r.mode},
                {"parameters", r.parameters},
                {"experiment", json::parse(r.config.toJson())},
                {"final", finalFigures(s)},
                {"workers", std::move(workers)},
                {"worker_failures", s.workerFailures},
                {"pitfalls", s.explanations},
                {"remarks", s.remarks}};
    if (!s.failure.empty())
        doc["failure"] = s.failure;
    if (!s.outcomeReason.empty())
        doc["outcome_reason"] = s.outcomeReason;
    if (!r.tensorboardRun.empty())
        doc["tensorboard_run"] = r.tensorboardRun;
    if (s.target.set())
        doc["target"] = targetFigures(s.target);
    if (r.normalization.applies())
        doc["normalization"] = {{"setting", r.normalization.setting},
                                {"mean", r.normalization.mean},
                                {"std", r.normalization.stddev}};
    return doc.dump(2) + "\n";
}

} // namespace hwl
