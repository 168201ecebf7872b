#include "config/experimentconfig.h"

#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace hwl {

namespace {
using nlohmann::json;

const char* const kFields[] = {
    "model",    "dataset",           "mode", "workers", "epochs",        "batch",   "lr",
    "momentum", "weight-decay",      "seed", "split",   "test-fraction", "shuffle", "start-method",
    "share",    "on-worker-failure", "init", "out"};

std::string knownFields() {
    std::string list;
    for (const char* f : kFields) {
        if (!list.empty())
            list += ", ";
        list += f;
    }
    return list;
}
} // namespace

const char* toString(Mode m) {
    switch (m) {
    case Mode::Serial:
        return "serial";
    case Mode::Threads:
        return "threads";
    case Mode::ThreadsLocked:
        return "threads-locked";
    case Mode::Processes:
        return "processes";
    }
    return "serial";
}

const char* toString(StartMethod m) {
    switch (m) {
    case StartMethod::Fork:
        return "fork";
    case StartMethod::Spawn:
        return "spawn";
    case StartMethod::Forkserver:
        return "forkserver";
    }
    return "forkserver";
}

const char* toString(FailurePolicy p) {
    return p == FailurePolicy::Stop ? "stop" : "continue";
}

std::optional<StartMethod> parseStartMethod(const std::string& text) {
    for (StartMethod m : {StartMethod::Fork, StartMethod::Spawn, StartMethod::Forkserver})
        if (text == toString(m))
            return m;
    return std::nullopt;
}

std::optional<FailurePolicy> parseFailurePolicy(const std::string& text) {
    for (FailurePolicy p : {FailurePolicy::Stop, FailurePolicy::Continue})
        if (text == toString(p))
            return p;
    return std::nullopt;
}

const char* toString(DataSplit s) {
    return s == DataSplit::Shard ? "shard" : "replicate";
}

std::optional<Mode> parseMode(const std::string& text) {
    for (Mode m : {Mode::Serial, Mode::Threads, Mode::ThreadsLocked, Mode::Processes})
        if (text == toString(m))
            return m;
    return std::nullopt;
}

std::optional<DataSplit> parseDataSplit(const std::string& text) {
    for (DataSplit s : {DataSplit::Shard, DataSplit::Replicate})
        if (text == toString(s))
            return s;
    return std::nullopt;
}

ModelSpec ExperimentConfig::modelSpec() const {
    return parseModelSpec(model);
}
DatasetSpec ExperimentConfig::datasetSpec() const {
    return parseDatasetSpec(dataset);
}

std::vector<ConfigIssue> ExperimentConfig::validate() const {
    std::vector<ConfigIssue> issues;
    auto check = [&](bool ok, const char* field, std::string message) {
        if (!ok)
            issues.push_back({field, std::move(message)});
    };
    // The spec parsers' messages start with the field's name, which the
    // issue carries on its own (the form shows the message at the field).
    auto parseIssue = [&](const char* field, const InputError& e) {
        std::string message = e.what();
        const std::string prefix = std::string(field) + ": ";
        if (message.rfind(prefix, 0) == 0)
            message.erase(0, prefix.size());
        issues.push_back({field, std::move(message)});
    };
    try {
        (void)modelSpec();
    } catch (const InputError& e) {
        parseIssue("model", e);
    }
    try {
        (void)datasetSpec();
    } catch (const InputError& e) {
        parseIssue("dataset", e);
    }
    check(workers >= 1 && workers <= limits::kMaxWorkers, "workers",
          "workers must be in 1.." + std::to_string(limits::kMaxWorkers) + " (got " +
              std::to_string(workers) + ")");
    check(mode != Mode::Serial || workers == 1, "workers",
          "serial mode runs exactly 1 worker (got " + std::to_string(workers) +
              "); use mode threads, threads-locked or processes for more");
    check(share || mode == Mode::Processes, "share",
          "share false (--no-share) applies to mode processes only: threads always share "
          "one address space");
    check(epochs >= 1 && epochs <= limits::kMaxEpochs, "epochs",
          "epochs must be in 1.." + std::to_string(limits::kMaxEpochs) + " (got " +
              std::to_string(epochs) + ")");
    check(batch >= 1 && batch <= limits::kMaxBatch, "batch",
          "batch must be in 1.." + std::to_string(limits::kMaxBatch) + " (got " +
              std::to_string(batch) + ")");
    check(std::isfinite(lr) && lr > 0 && lr <= 100, "lr",
          "lr must be a number in (0, 100] (got " + std::to_string(lr) + ")");
    check(std::isfinite(momentum) && momentum >= 0 && momentum < 1, "momentum",
          "momentum must be in [0, 1) (got " + std::to_string(momentum) + ")");
    check(std::isfinite(weightDecay) && weightDecay >= 0 && weightDecay <= 1, "weight-decay",
          "weight-decay must be in [0, 1] (got " + std::to_string(weightDecay) + ")");
    check(std::isfinite(testFraction) && testFraction >= 0 && testFraction < 1, "test-fraction",
          "test-fraction must be in [0, 1) (got " + std::to_string(testFraction) + ")");
    return issues;
}

void ExperimentConfig::validateOrThrow() const {
    const auto issues = validate();
    if (issues.empty())
        return;
    std::string message = "invalid experiment:";
    for (const auto& issue : issues)
        message += "\n  " + issue.field + ": " + issue.message;
    throw InputError(message);
}

std::string ExperimentConfig::toJson() const {
    json j = json::object();
    j["model"] = model;
    j["dataset"] = dataset;
    j["mode"] = toString(mode);
    j["workers"] = workers;
    j["epochs"] = epochs;
    j["batch"] = batch;
    j["lr"] = lr;
    j["momentum"] = momentum;
    j["weight-decay"] = weightDecay;
    j["seed"] = seed;
    j["split"] = toString(split);
    j["test-fraction"] = testFraction;
    j["shuffle"] = shuffle;
    j["start-method"] = toString(startMethod);
    j["share"] = share;
    j["on-worker-failure"] = toString(onWorkerFailure);
    j["init"] = init;
    j["out"] = out;
    return j.dump(2) + "\n";
}

void ExperimentConfig::mergeJson(const std::string& text, const std::string& origin) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(origin + ": not valid JSON: " + e.what());
    }
    if (!j.is_object())
        throw InputError(origin + ": expected a JSON object of experiment fields");
    auto fail = [&](const std::string& key, const char* expected) {
        throw InputError(origin + ": field \"" + key + "\" must be " + expected + " (got " +
                         j[key].dump() + ")");
    };
    auto integer = [&](const std::string& key, std::int64_t lo, std::int64_t hi) {
        const auto& v = j[key];
        if (!v.is_number_integer())
            fail(key, "an integer");
        const auto value = v.get<std::int64_t>();
        if (value < lo || value > hi)
            throw InputError(origin + ": field \"" + key + "\" must be in " + std::to_string(lo) +
                             ".." + std::to_string(hi) + " (got " + std::to_string(value) + ")");
        return value;
    };
    auto number = [&](const std::string& key) {
        if (!j[key].is_number())
            fail(key, "a number");
        return j[key].get<double>();
    };
    auto string = [&](const std::string& key) {
        if (!j[key].is_string())
            fail(key, "a string");
        return j[key].get<std::string>();
    };
    for (const auto& [key, value] : j.items()) {
        if (key == "model")
            model = string(key);
        else if (key == "dataset")
            dataset = string(key);
        else if (key == "mode") {
            const auto m = parseMode(string(key));
            if (!m)
                fail(key, "one of \"serial\", \"threads\", \"threads-locked\", \"processes\"");
            mode = *m;
        } else if (key == "workers")
            workers = int(integer(key, 1, limits::kMaxWorkers));
        else if (key == "epochs")
            epochs = int(integer(key, 1, limits::kMaxEpochs));
        else if (key == "batch")
            batch = int(integer(key, 1, limits::kMaxBatch));
        else if (key == "lr")
            lr = number(key);
        else if (key == "momentum")
            momentum = number(key);
        else if (key == "weight-decay")
            weightDecay = number(key);
        else if (key == "seed") {
            if (!value.is_number_unsigned())
                fail(key, "a non-negative integer");
            seed = value.get<std::uint64_t>();
        } else if (key == "split") {
            const auto s = parseDataSplit(string(key));
            if (!s)
                fail(key, "\"shard\" or \"replicate\"");
            split = *s;
        } else if (key == "test-fraction")
            testFraction = number(key);
        else if (key == "shuffle") {
            if (!value.is_boolean())
                fail(key, "true or false");
            shuffle = value.get<bool>();
        } else if (key == "start-method") {
            const auto m = parseStartMethod(string(key));
            if (!m)
                fail(key, "\"fork\", \"spawn\" or \"forkserver\"");
            startMethod = *m;
        } else if (key == "share") {
            if (!value.is_boolean())
                fail(key, "true or false");
            share = value.get<bool>();
        } else if (key == "on-worker-failure") {
            const auto p = parseFailurePolicy(string(key));
            if (!p)
                fail(key, "\"stop\" or \"continue\"");
            onWorkerFailure = *p;
        } else if (key == "init")
            init = string(key);
        else if (key == "out")
            out = string(key);
        else
            throw InputError(origin + ": unknown field \"" + key +
                             "\"; known fields: " + knownFields());
    }
}

void ExperimentConfig::mergeJsonFile(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec))
        throw InputError("config \"" + file.string() +
                         "\": is not a regular file; give the path of an experiment .json file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError("config \"" + file.string() +
                         "\": cannot be read (missing file or no permission)");
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size > (1 << 20))
        throw InputError("config \"" + file.string() + "\": " + std::to_string(size) +
                         " bytes is too large for an experiment file (limit 1 MiB)");
    in.seekg(0);
    std::stringstream buffer;
    buffer << in.rdbuf();
    mergeJson(buffer.str(), "config \"" + file.string() + "\"");
}

ExperimentConfig ExperimentConfig::defaults() {
    ExperimentConfig config;
    config.mergeJson(defaultJson(), "embedded default experiment");
    return config;
}

} // namespace hwl
