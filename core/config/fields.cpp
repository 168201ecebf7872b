#include "config/fields.h"

#include "config/fieldmaking.h"

#include "util/errors.h"
#include "util/spelling.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace hwl {

namespace {

using namespace fieldmaking;

bool mpiTransport(const ExperimentConfig& c) {
    return c.transport == Transport::Mpi;
}

bool cudaFirst(const ExperimentConfig& c) {
    return c.cudaBeforeFork;
}

/// Transport mpi's fields, for when hogwild-lab starts mpirun.
void addMpiFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    const std::size_t first = fields.size();
    fields.push_back(text("hostfile", "FILE",
                          "when hogwild-lab starts mpirun: the hosts to run "
                          "ranks on (mpirun --hostfile; rank 0 on the first, this machine)",
                          &C::hostfile));
    fields.push_back(text("mpirun-args", "ARGS",
                          "when hogwild-lab starts mpirun: more mpirun "
                          "arguments, separated by spaces (e.g. \"--mca btl self,tcp\")",
                          &C::mpirunArgs));
    fields.push_back(choice("reduce", "R",
                            "how the ranks average: mpi (Open MPI's "
                            "collectives: each rank moves at most twice the gradients per "
                            "step, however many ranks) | "
                            "exact (through rank 0, which carries every rank's gradients); "
                            "both give the threads transport's weights bit for bit",
                            {Reduce::Mpi, Reduce::Exact}, &C::reduce, &parseReduce));
    for (std::size_t i = first; i < fields.size(); ++i) {
        fields[i].setting = StrategySetting::Transport;
        fields[i].needs = &mpiTransport;
        fields[i].needsText = "--transport mpi";
    }
}

/// The GPU modes' fields (--device, replicas, blocks) and the CUDA-before-fork pitfall.
void addGpuFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(
        judgedByMode(takenBy(choice("device", "D",
                                    "where the replicas run: cpu | cuda (GPUs; "
                                    "--workers replicas, --replicas-per-gpu of them on each GPU)",
                                    {Device::Cpu, Device::Cuda}, &C::device, &parseDevice),
                             StrategySetting::Device)));
    fields.push_back(takenBy(integer("replicas-per-gpu",
                                     "replicas that share one GPU (batched "
                                     "together); the run uses workers / replicas-per-gpu GPUs",
                                     1, limits::kMaxReplicasPerGpu, &C::replicasPerGpu),
                             StrategySetting::GpuReplicas));
    fields.push_back(takenBy(
        integer("blocks", "CUDA thread blocks training at once", 1, limits::kMaxBlocks, &C::blocks),
        StrategySetting::GpuBlocks));
    fields.push_back(
        takenBy(choice("update", "U",
                       "how blocks write updates: racy (lose some, "
                       "counted) | atomic (atomicAdd, none lost)",
                       {UpdateKind::Racy, UpdateKind::Atomic}, &C::update, &parseUpdateKind),
                StrategySetting::GpuBlocks));
    fields.push_back(takenBy(toggle("cuda-before-fork",
                                    "the pitfall: the run's process initialises CUDA before its "
                                    "workers start (then start-method fork is refused)",
                                    nullptr, nullptr, &C::cudaBeforeFork),
                             StrategySetting::StartMethod, true));
    fields.push_back(
        takenBy(toggle("force-unsafe-fork",
                       "with cuda-before-fork: fork the workers anyway, and report what "
                       "CUDA does in them",
                       nullptr, nullptr, &C::forceUnsafeFork),
                StrategySetting::StartMethod, true));
    fields.back().needs = &cudaFirst;
    fields.back().needsText = "--cuda-before-fork";
}

/// The pitfalls of process workers that are not about CUDA.
void addProcessPitfallFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(
        takenBy(toggle("spawn-before-share",
                       "the pitfall: spawn or forkserver workers start before the "
                       "parameters are put in shared memory (PyTorch: share_memory() not "
                       "called before mp.spawn); each worker fails to open the segment",
                       nullptr, nullptr, &C::spawnBeforeShare),
                StrategySetting::SpawnBeforeShare, true));
    Field loaders = integer("loader-workers",
                            "loader processes each worker would start (PyTorch DataLoader "
                            "num_workers inside a worker): anything but 0 is refused, and "
                            "the refusal says why (nested processes)",
                            0, limits::kMaxLoaderWorkers, &C::loaderWorkers);
    loaders.advanced = true;
    fields.push_back(loaders);
}

/// A target to train to, and whether the run stops there.
void addTargetFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(number("target-accuracy",
                            "stop once the test accuracy reaches X percent, checked at each "
                            "evaluation; the time, samples and epochs to it are reported "
                            "(0: no target)",
                            0, false, 100, false, &C::targetAccuracy));
    fields.push_back(number("target-loss",
                            "stop once the test loss is X or less, checked at each "
                            "evaluation (0: no target)",
                            0, false, 1e6, false, &C::targetLoss));
    fields.push_back(toggle("train-past-target",
                            "train all --epochs even after the target is reached (its "
                            "crossing is still reported)",
                            nullptr, nullptr, &C::trainPastTarget));
    fields.push_back(takenBy(integer("eval-every",
                                     "evaluate the test set every N steps of each worker "
                                     "inside an epoch as well as at its end, so a target's "
                                     "crossing is known to within N steps (0: at each "
                                     "epoch's end only)",
                                     0, limits::kMaxEvalEvery, &C::evalEvery),
                             StrategySetting::EvalEvery));
}

void addOptimiserFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(integer("epochs", "passes over the data (at most, with a target)", 1,
                             limits::kMaxEpochs, &C::epochs));
    addTargetFields(fields);
    fields.push_back(integer("batch", "samples per step", 1, limits::kMaxBatch, &C::batch));
    fields.push_back(number("lr", "learning rate", 0, true, 100, false, &C::lr));
    addOptimizerFields(fields);
    fields.push_back(text("lr-schedule", "S",
                          "constant | step:EPOCHS:GAMMA (StepLR) | cosine (CosineAnnealingLR "
                          "over the run's epochs), per worker, as PyTorch's schedulers",
                          &C::lrSchedule));
    fields.push_back(integer("warmup-steps",
                             "a linear warm-up of the rate over each worker's first N steps", 0,
                             limits::kMaxWarmupSteps, &C::warmupSteps));
    fields.push_back(integer("accumulate",
                             "batches whose mean gradient makes one update\n"
                             "(gradient accumulation; data-parallel: one allreduce per N "
                             "batches)",
                             1, limits::kMaxAccumulate, &C::accumulate));
    fields.push_back(number("dropout",
                            "the dropout probability while training\n"
                            "used by the dropout layers written without their own "
                            "(cnn:mnist: conv2's channels and fc1's units; net: dropout and "
                            "dropout2d); 0: none",
                            0, false, 1, true, &C::dropout));
}

/// What a run starts from besides its seed: weights, or a run to continue.
void addStartFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    Field init = text("init", "FILE", "start from weights in a safetensors file", &C::init);
    init.pathKind = "safetensors file";
    fields.push_back(init);
    Field resume = takenBy(text("resume", "DIR",
                                "continue the run whose --out was DIR: its weights, momentum "
                                "and place in the data, written back into DIR unless --out "
                                "says otherwise; --epochs counts from its start",
                                &C::resume),
                           StrategySetting::Resume);
    resume.pathKind = "directory";
    fields.push_back(resume);
}

bool normalized(const ExperimentConfig& c) {
    return c.normalize != "none";
}

/// Where a run writes (Field::output).
void addOutputFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    Field raw = toggle("onnx-normalized-inputs",
                       "write model.onnx for inputs normalised already: leave --normalize's Sub "
                       "and Div out of its graph (its metadata still holds the mean and std); "
                       "without it the graph takes the raw features",
                       nullptr, nullptr, &C::onnxNormalizedInputs);
    raw.output = true;
    raw.needs = &normalized;
    raw.needsText = "--normalize global, per-feature or MEAN,STD";
    for (Field f : {text("out", "DIR",
                         "write weights.safetensors, weights.npz, model.onnx (the "
                         "network for ONNX runtimes), metrics.csv, "
                         "experiment.json and summary.json into DIR, and "
                         "optimizer.safetensors where the mode can --resume",
                         &C::out),
                    text("tensorboard", "DIR",
                         "make a folder of the run's own in the logdir DIR and write "
                         "its TensorBoard event file there as the run goes: losses, "
                         "test figures, samples/s, divergence, lost updates, and the "
                         "experiment as HParams",
                         &C::tensorboard)}) {
        f.output = true;
        f.pathKind = "directory";
        fields.push_back(f);
    }
    fields.insert(fields.end() - 1, raw); // after out, before tensorboard
}

/// The mode and what the modes take of it: workers, processes, replicas.
void addParallelFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    // The modes are the registered strategies, a layer above: their names
    // are checked with the mode (strategy/validation.h), and --help lists
    // them from the catalog (modeLines).
    fields.push_back(text("mode", "M", "the parallel mode (see Modes below)", &C::mode));
    fields.push_back(
        judgedByMode(takenBy(integer("workers", "workers", 1, limits::kMaxWorkers, &C::workers),
                             StrategySetting::Workers)));
    fields.push_back(keptElsewhere(
        takenBy(choice("start-method", "S", "how process workers start: fork | spawn | forkserver",
                       {StartMethod::Fork, StartMethod::Spawn, StartMethod::Forkserver},
                       &C::startMethod, &parseStartMethod),
                StrategySetting::StartMethod)));
    fields.push_back(judgedByMode(
        takenBy(toggle("share", "the default: one shared copy of the parameters", "no-share",
                       "the \"forgot to share the parameters\" pitfall: each worker "
                       "trains a private copy",
                       &C::share),
                StrategySetting::Share)));
    fields.push_back(
        judgedByMode(takenBy(choice("on-worker-failure", "P", "stop | continue when a worker dies",
                                    {FailurePolicy::Stop, FailurePolicy::Continue},
                                    &C::onWorkerFailure, &parseFailurePolicy),
                             StrategySetting::FailurePolicy)));
    fields.push_back(
        takenBy(toggle("lost-updates",
                       "count the updates that overlapped another "
                       "worker's update of the same 32 parameters (lost ones), per worker",
                       nullptr, nullptr, &C::lostUpdates),
                StrategySetting::LostUpdates));
    fields.push_back(
        takenBy(choice("transport", "T", "how the replicas talk: threads | processes | mpi",
                       {Transport::Threads, Transport::Processes, Transport::Mpi}, &C::transport,
                       &parseTransport),
                StrategySetting::Transport));
    fields.push_back(takenBy(integer("sync-every",
                                     "1 averages the gradients every step "
                                     "(DDP); K > 1 averages the parameters every K steps "
                                     "(local SGD)",
                                     1, limits::kMaxSyncEvery, &C::syncEvery),
                             StrategySetting::Replicas));
    fields.push_back(takenBy(number("bucket-mb", "the cap of a gradient bucket, MiB", 0, true,
                                    limits::kMaxBucketMb, false, &C::bucketMb),
                             StrategySetting::Replicas, true));
    fields.push_back(
        takenBy(toggle("drop-last",
                       "drop the last rows that do not divide evenly among "
                       "the replicas (without it each epoch is padded by wrapping around, "
                       "as DistributedSampler does)",
                       nullptr, nullptr, &C::dropLast),
                StrategySetting::Replicas, true));
}

std::vector<Field> makeFields() {
    using C = ExperimentConfig;
    std::vector<Field> fields;
    fields.push_back(text("model", "SPEC",
                          "mlp:IN-H1-...-OUT[:relu|tanh|sigmoid]\n"
                          "embedding-bag:V-D-C (sparse datasets)\n"
                          "cnn:mnist (mnist_hogwild's network, 28x28 images)\n"
                          "net:SHAPE:LAYER,... layers over images (CxHxW) or features (N):\n"
                          "convCkK[sS][pP], maxpoolK[sS], avgpoolK[sS], relu, tanh, sigmoid, "
                          "gelu, dropout[P], dropout2d[P], flatten, fcN\n"
                          "e.g. net:1x28x28:conv8k3,relu,maxpool2,flatten,fc10 "
                          "(docs/models-and-data.md)",
                          &C::model));
    fields.push_back(text("dataset", "SPEC",
                          "random:ROWSxDIM:CLASSES (randn data, random labels)\n"
                          "teacher:ROWSxDIM:CLASSES[:HIDDEN] (learnable)\n"
                          "sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS]\n"
                          "fashion-mnist | idx:DIR | csv:FILE | libsvm:FILE",
                          &C::dataset));
    addParallelFields(fields);
    addMpiFields(fields);
    addGpuFields(fields);
    addProcessPitfallFields(fields);
    addOptimiserFields(fields);
    Field seed = base("seed", FieldType::Seed, "N", "seeds data, initialisation and order");
    seed.get = [](const C& c) { return FieldValue(c.seed); };
    seed.set = [](C& c, const FieldValue& v) { c.seed = as<std::uint64_t>(v); };
    fields.push_back(seed);
    fields.push_back(
        takenBy(choice("split", "S",
                       "shard: each sample once per epoch across workers\n"
                       "replicate: every worker walks all samples (data-parallel "
                       "always shards)",
                       {DataSplit::Shard, DataSplit::Replicate}, &C::split, &parseDataSplit),
                StrategySetting::Split));
    fields.push_back(number("test-fraction",
                            "held-out share of the rows\n"
                            "ignored by datasets with their own test set (fashion-mnist, idx)",
                            0, false, 1, true, &C::testFraction));
    fields.push_back(text("normalize", "N",
                          "none | global | per-feature (mean and std of the training "
                          "rows) | MEAN,STD (given): x' = (x - mean) / std, dense data",
                          &C::normalize));
    fields.push_back(toggle("shuffle", "a new random order every epoch (the default)", "no-shuffle",
                            "visit samples in file order (exact comparisons)", &C::shuffle));
    addStartFields(fields);
    addOutputFields(fields);
    return fields;
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

[[noreturn]] void badFlag(std::string_view flag, const std::string& why) {
    throw InputError(std::string(flag) + ": " + why + " (see --help)");
}

/// One help entry: the flag column 25 wide, then the text, each of its
/// lines wrapped at 79 columns; continuation lines indented to the text.
void helpEntry(std::string& out, const std::string& flag, const std::string& text) {
    constexpr std::size_t kColumn = 25, kWidth = 79;
    std::string line = "  " + flag;
    if (line.size() >= kColumn) {
        out += line + "\n";
        line.clear();
    }
    auto flush = [&] {
        out += line + "\n";
        line.clear();
    };
    for (const auto& paragraph : split(text, '\n')) {
        if (!line.empty() && line.size() > kColumn)
            flush();
        for (const auto& word : split(paragraph, ' ')) {
            if (word.empty())
                continue;
            if (line.size() > kColumn && line.size() + 1 + word.size() > kWidth)
                flush();
            if (line.size() < kColumn)
                line.resize(kColumn, ' ');
            else if (line.size() > kColumn)
                line += ' ';
            line += word;
        }
    }
    flush();
}

} // namespace

const std::vector<Field>& experimentFields() {
    static const std::vector<Field> fields = makeFields();
    return fields;
}

const Field* findField(std::string_view key) {
    for (const auto& f : experimentFields())
        if (key == f.key)
            return &f;
    return nullptr;
}

const Field* findFlag(std::string_view flag) {
    if (flag.substr(0, 2) != "--")
        return nullptr;
    const std::string_view word = flag.substr(2);
    for (const auto& f : experimentFields())
        if (word == f.key || (f.negation && word == f.negation))
            return &f;
    return nullptr;
}

std::string didYouMeanField(std::string_view key, const std::vector<std::string>& alsoKnown) {
    std::vector<std::string> keys;
    for (const auto& f : experimentFields())
        keys.emplace_back(f.key);
    keys.insert(keys.end(), alsoKnown.begin(), alsoKnown.end());
    const std::optional<std::string> nearest = nearestName(key, keys);
    return nearest ? "; did you mean \"" + *nearest + "\"?" : std::string();
}

std::string didYouMeanFlag(std::string_view flag, const std::vector<std::string>& alsoKnown) {
    std::vector<std::string> flags;
    for (const auto& f : experimentFields()) {
        flags.push_back(std::string("--") + f.key);
        if (f.negation)
            flags.push_back(std::string("--") + f.negation);
    }
    flags.insert(flags.end(), alsoKnown.begin(), alsoKnown.end());
    const std::optional<std::string> nearest = nearestName(flag, flags);
    return nearest ? "; did you mean " + *nearest + "?" : std::string();
}

std::string Field::rangeText() const {
    if (type == FieldType::Integer)
        return std::to_string(std::int64_t(min)) + ".." + std::to_string(std::int64_t(max));
    if (type == FieldType::Number)
        return std::string(minOpen ? "(" : "[") + shortNumber(min) + ", " + shortNumber(max) +
               (maxOpen ? ")" : "]");
    return {};
}

bool Field::inRange(double v) const {
    if (!ranged())
        return true;
    if (!std::isfinite(v))
        return false;
    const bool aboveMin = minOpen ? v > min : v >= min;
    const bool belowMax = maxOpen ? v < max : v <= max;
    return aboveMin && belowMax;
}

std::string Field::valueText(const ExperimentConfig& config) const {
    const FieldValue v = get(config);
    if (const auto* b = std::get_if<bool>(&v))
        return *b ? "true" : "false";
    if (const auto* i = std::get_if<std::int64_t>(&v))
        return std::to_string(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v))
        return std::to_string(*u);
    if (const auto* d = std::get_if<double>(&v))
        return shortNumber(*d);
    return std::get<std::string>(v);
}

std::string listChoices(const std::vector<std::string>& names, bool quote) {
    auto item = [&](std::size_t i) { return quote ? "\"" + names[i] + "\"" : names[i]; };
    std::string text = names.size() > 2 && quote ? "one of " : "";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0)
            text += i + 1 == names.size() && !(quote && names.size() > 2) ? " or " : ", ";
        text += item(i);
    }
    return text;
}

bool flagTakesValue(std::string_view flag) {
    const Field* f = findFlag(flag);
    return f && f->type != FieldType::Switch;
}

std::string Field::outOfRange(const std::string& got) const {
    const std::string range =
        type == FieldType::Seed ? "0.." + std::to_string(UINT64_MAX) : rangeText();
    return std::string("must be ") + (type == FieldType::Number ? "a number in " : "in ") + range +
           " (got " + got + ")";
}

namespace {
/// Whether `text` is written as a decimal integer ("-12", "99999999999"),
/// whether or not a 64-bit integer holds it.
bool integerSyntax(std::string_view text) {
    if (!text.empty() && text.front() == '-')
        text.remove_prefix(1);
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}
} // namespace

FieldValue parseFieldText(const Field& f, const std::string& v, std::string_view name) {
    switch (f.type) {
    case FieldType::Text:
        // `--out=$DIR` with DIR unset: a path left empty by mistake, not
        // "write nothing" (which is leaving the flag out).
        if (v.empty() && f.pathKind)
            badFlag(name, "an empty path; name a " + std::string(f.pathKind) + ", or omit " +
                              std::string(name));
        return v;
    case FieldType::Integer: {
        // An integer past what the field can hold is out of its range, as
        // the file says of it; within int32, validate() judges the range.
        const auto i = parseInteger(v);
        if (i && *i >= INT32_MIN && *i <= INT32_MAX)
            return *i;
        badFlag(name,
                integerSyntax(v) ? f.outOfRange(v) : "expected an integer, got \"" + v + "\"");
    }
    case FieldType::Seed: {
        std::uint64_t seed = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
        if (!v.empty() && ec == std::errc() && end == v.data() + v.size())
            return seed;
        badFlag(name, integerSyntax(v) ? f.outOfRange(v)
                                       : "expected a non-negative integer, got \"" + v + "\"");
    }
    case FieldType::Number: {
        const auto d = parseNumber(v);
        if (!d)
            badFlag(name, "expected a number, got \"" + v + "\"");
        return *d;
    }
    case FieldType::Choice: {
        const auto names = f.choices();
        if (std::find(names.begin(), names.end(), v) == names.end())
            badFlag(name, "expected " + listChoices(names, false) + ", got \"" + v + "\"");
        return v;
    }
    case FieldType::Switch:
        if (v != "true" && v != "false")
            badFlag(name, "expected true or false, got \"" + v + "\"");
        return v == "true";
    }
    badFlag(name, "cannot be set");
}

void applyFlag(ExperimentConfig& config, std::string_view flag,
               const std::optional<std::string>& value) {
    const Field* f = findFlag(flag);
    if (!f)
        badFlag(flag, "unknown option" + didYouMeanFlag(flag, {}));
    if (f->type == FieldType::Switch) {
        if (value)
            badFlag(flag, "takes no value");
        f->set(config, flag.substr(2) == f->key);
        return;
    }
    if (!value)
        badFlag(flag, "needs a value");
    f->set(config, parseFieldText(*f, *value, flag));
}

std::string fieldsHelp(const std::function<std::string(const Field&)>& appliesTo,
                       const std::vector<std::pair<std::string, std::string>>& modeLines) {
    const ExperimentConfig defaults = ExperimentConfig::defaults();
    std::string out;
    for (const auto& f : experimentFields()) {
        std::string text = f.help;
        const std::size_t firstEnd = std::min(text.find('\n'), text.size());
        std::string extra;
        if (f.ranged())
            extra += ", " + f.rangeText();
        if (const std::string modes = appliesTo(f); !modes.empty())
            extra += " (" + modes + ")";
        text.insert(firstEnd, extra);
        if (f.type == FieldType::Switch) {
            if (f.negation)
                helpEntry(out, std::string("--") + f.negation, std::string(f.negationHelp) + extra);
            helpEntry(out, std::string("--") + f.key, text);
            continue;
        }
        const std::string current = f.valueText(defaults);
        if (!current.empty())
            text += " [" + current + "]";
        helpEntry(out, std::string("--") + f.key + " " + f.valueName, text);
    }
    out += "\nModes (--mode):\n";
    for (const auto& [name, help] : modeLines)
        helpEntry(out, name, help);
    return out;
}

} // namespace hwl
