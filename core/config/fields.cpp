#include "config/fields.h"

#include "config/modes.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace hwl {

namespace {

// Accessors for the table: each field reads and writes one member.
template <class T>
T as(const FieldValue& v) {
    return std::get<T>(v);
}

Field base(const char* key, FieldType type, const char* valueName, const char* help) {
    Field f;
    f.key = key;
    f.type = type;
    f.valueName = valueName;
    f.help = help;
    return f;
}

Field text(const char* key, const char* valueName, const char* help,
           std::string ExperimentConfig::*member) {
    Field f = base(key, FieldType::Text, valueName, help);
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<std::string>(v); };
    return f;
}

Field integer(const char* key, const char* help, int lo, int hi, int ExperimentConfig::*member) {
    Field f = base(key, FieldType::Integer, "N", help);
    f.min = lo;
    f.max = hi;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(std::int64_t(c.*member)); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) {
        // Out-of-range values stay visible to validate(); clamp only what int cannot hold.
        const std::int64_t x = as<std::int64_t>(v);
        c.*member = int(std::clamp<std::int64_t>(x, INT32_MIN, INT32_MAX));
    };
    return f;
}

Field number(const char* key, const char* help, double lo, bool loOpen, double hi, bool hiOpen,
             double ExperimentConfig::*member) {
    Field f = base(key, FieldType::Number, "X", help);
    f.min = lo;
    f.max = hi;
    f.minOpen = loOpen;
    f.maxOpen = hiOpen;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<double>(v); };
    return f;
}

Field toggle(const char* key, const char* help, const char* negation, const char* negationHelp,
             bool ExperimentConfig::*member) {
    Field f = base(key, FieldType::Switch, nullptr, help);
    f.negation = negation;
    f.negationHelp = negationHelp;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<bool>(v); };
    return f;
}

/// A field whose value is one of an enum's names (toString / parse).
template <class Enum>
Field choice(const char* key, const char* valueName, const char* help,
             std::initializer_list<Enum> values, Enum ExperimentConfig::*member,
             std::optional<Enum> (*parse)(const std::string&)) {
    Field f = base(key, FieldType::Choice, valueName, help);
    std::vector<std::string> names;
    for (Enum e : values)
        names.emplace_back(toString(e));
    f.choices = [names] { return names; };
    f.get = [member](const ExperimentConfig& c) {
        return FieldValue(std::string(toString(c.*member)));
    };
    f.set = [member, parse](ExperimentConfig& c, const FieldValue& v) {
        c.*member = *parse(as<std::string>(v));
    };
    return f;
}

/// Transport mpi's fields, for when hogwild-lab starts mpirun.
void addMpiFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(text("hostfile", "FILE",
                          "transport mpi, when hogwild-lab starts mpirun: the hosts to run "
                          "ranks on (mpirun --hostfile; rank 0 on the first, this machine)",
                          &C::hostfile));
    fields.push_back(text("mpirun-args", "ARGS",
                          "transport mpi, when hogwild-lab starts mpirun: more mpirun "
                          "arguments, separated by spaces (e.g. \"--mca btl self,tcp\")",
                          &C::mpirunArgs));
    fields.push_back(choice("reduce", "R",
                            "transport mpi: how the ranks average: mpi (Open MPI's "
                            "collectives: each rank moves at most twice the gradients per "
                            "step, however many ranks) | "
                            "exact (through rank 0, which carries every rank's gradients); "
                            "both give the threads transport's weights bit for bit",
                            {Reduce::Mpi, Reduce::Exact}, &C::reduce, &parseReduce));
}

/// The GPU modes' fields (--device, replicas, blocks) and the CUDA-before-fork pitfall.
void addGpuFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(choice("device", "D",
                            "data-parallel: where the replicas run: cpu | cuda (GPUs; "
                            "--workers replicas, --replicas-per-gpu of them on each GPU)",
                            {Device::Cpu, Device::Cuda}, &C::device, &parseDevice));
    fields.push_back(integer("replicas-per-gpu",
                             "data-parallel on cuda: replicas that share one GPU (batched "
                             "together); the run uses workers / replicas-per-gpu GPUs",
                             1, limits::kMaxReplicasPerGpu, &C::replicasPerGpu));
    fields.push_back(integer("blocks", "gpu-hogwild: CUDA thread blocks training at once", 1,
                             limits::kMaxBlocks, &C::blocks));
    fields.push_back(choice("update", "U",
                            "gpu-hogwild: how blocks write updates: racy (lose some, "
                            "counted) | atomic (atomicAdd, none lost)",
                            {UpdateKind::Racy, UpdateKind::Atomic}, &C::update, &parseUpdateKind));
    fields.push_back(toggle("cuda-before-fork",
                            "the pitfall: the run's process initialises CUDA before its "
                            "workers start (then start-method fork is refused)",
                            nullptr, nullptr, &C::cudaBeforeFork));
    fields.push_back(toggle("force-unsafe-fork",
                            "with cuda-before-fork: fork the workers anyway, and report what "
                            "CUDA does in them",
                            nullptr, nullptr, &C::forceUnsafeFork));
}

/// The pitfalls of process workers that are not about CUDA.
void addProcessPitfallFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(toggle("spawn-before-share",
                            "the pitfall: spawn or forkserver workers start before the "
                            "parameters are put in shared memory (PyTorch: share_memory() not "
                            "called before mp.spawn); each worker fails to open the segment",
                            nullptr, nullptr, &C::spawnBeforeShare));
    fields.push_back(integer("loader-workers",
                             "loader processes each worker would start (PyTorch DataLoader "
                             "num_workers inside a worker): anything but 0 is refused, and "
                             "the refusal says why (nested processes)",
                             0, limits::kMaxLoaderWorkers, &C::loaderWorkers));
}

void addOptimiserFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    fields.push_back(integer("epochs", "passes over the data", 1, limits::kMaxEpochs, &C::epochs));
    fields.push_back(integer("batch", "samples per step", 1, limits::kMaxBatch, &C::batch));
    fields.push_back(number("lr", "learning rate", 0, true, 100, false, &C::lr));
    fields.push_back(number("momentum", "SGD momentum", 0, false, 1, true, &C::momentum));
    fields.push_back(number("weight-decay", "L2 penalty", 0, false, 1, false, &C::weightDecay));
    fields.push_back(text("lr-schedule", "S",
                          "constant | step:EPOCHS:GAMMA (StepLR) | cosine (CosineAnnealingLR\n"
                          "over the run's epochs), per worker, as PyTorch's schedulers",
                          &C::lrSchedule));
    fields.push_back(integer("warmup-steps",
                             "a linear warm-up of the rate over each worker's first N steps", 0,
                             limits::kMaxWarmupSteps, &C::warmupSteps));
    fields.push_back(integer("accumulate",
                             "batches whose mean gradient makes one update (gradient\n"
                             "accumulation; data-parallel: one allreduce per N batches)",
                             1, limits::kMaxAccumulate, &C::accumulate));
    fields.push_back(number("dropout",
                            "model cnn: the dropout probability\n"
                            "of conv2's channels and fc1's units while training; 0: none",
                            0, false, 1, true, &C::dropout));
}

/// What a run starts from besides its seed: weights, or a run to continue.
void addStartFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    Field init = text("init", "FILE", "start from weights in a safetensors file", &C::init);
    init.pathKind = "safetensors file";
    fields.push_back(init);
    Field resume = text("resume", "DIR",
                        "continue the run whose --out was DIR: its weights, momentum "
                        "and place in the data; --epochs counts from its start "
                        "(modes serial, threads, threads-locked)",
                        &C::resume);
    resume.pathKind = "directory";
    fields.push_back(resume);
}

/// Where a run writes (Field::output).
void addOutputFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    for (Field f : {text("out", "DIR",
                         "write weights.safetensors, weights.npz, metrics.csv, "
                         "experiment.json and summary.json into DIR, and "
                         "optimizer.safetensors where the mode can --resume",
                         &C::out),
                    text("tensorboard", "DIR",
                         "write a TensorBoard event file into DIR as the run goes: "
                         "losses, test figures, samples/s, divergence, lost updates, "
                         "and the experiment as HParams",
                         &C::tensorboard)}) {
        f.output = true;
        f.pathKind = "directory";
        fields.push_back(f);
    }
}

std::vector<Field> makeFields() {
    using C = ExperimentConfig;
    std::vector<Field> fields;
    fields.push_back(text("model", "SPEC",
                          "mlp:IN-H1-...-OUT[:relu|tanh|sigmoid]\n"
                          "embedding-bag:V-D-C (sparse datasets)\n"
                          "cnn:mnist (mnist_hogwild's network, 28x28 images)",
                          &C::model));
    fields.push_back(text("dataset", "SPEC",
                          "random:ROWSxDIM:CLASSES (randn data, random labels)\n"
                          "teacher:ROWSxDIM:CLASSES[:HIDDEN] (learnable)\n"
                          "sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS]\n"
                          "fashion-mnist | idx:DIR | csv:FILE | libsvm:FILE",
                          &C::dataset));
    Field mode = base("mode", FieldType::Choice, "M", ""); // --help lists the registered modes
    mode.choices = [] { return modeCatalog().names(); };
    mode.get = [](const C& c) { return FieldValue(c.mode); };
    mode.set = [](C& c, const FieldValue& v) { c.mode = as<std::string>(v); };
    fields.push_back(mode);
    fields.push_back(integer("workers", "workers", 1, limits::kMaxWorkers, &C::workers));
    fields.push_back(choice("start-method", "S",
                            "how process workers start: fork | spawn | forkserver",
                            {StartMethod::Fork, StartMethod::Spawn, StartMethod::Forkserver},
                            &C::startMethod, &parseStartMethod));
    fields.push_back(toggle("share", "the default: one shared copy of the parameters", "no-share",
                            "the \"forgot to share the parameters\" pitfall: each worker "
                            "trains a private copy (modes with process workers)",
                            &C::share));
    fields.push_back(choice("on-worker-failure", "P", "stop | continue when a worker dies",
                            {FailurePolicy::Stop, FailurePolicy::Continue}, &C::onWorkerFailure,
                            &parseFailurePolicy));
    fields.push_back(toggle("lost-updates",
                            "Hogwild modes: count the updates that overlapped another "
                            "worker's update of the same 32 parameters (lost ones), per worker",
                            nullptr, nullptr, &C::lostUpdates));
    fields.push_back(choice("transport", "T",
                            "how data-parallel replicas talk: threads | processes | mpi",
                            {Transport::Threads, Transport::Processes, Transport::Mpi},
                            &C::transport, &parseTransport));
    fields.push_back(integer("sync-every",
                             "data-parallel: 1 averages the gradients every step "
                             "(DDP); K > 1 averages the parameters every K steps "
                             "(local SGD)",
                             1, limits::kMaxSyncEvery, &C::syncEvery));
    fields.push_back(number("bucket-mb", "data-parallel: the cap of a gradient bucket, MiB", 0,
                            true, limits::kMaxBucketMb, false, &C::bucketMb));
    fields.push_back(toggle("drop-last",
                            "data-parallel: drop the last rows that do not divide evenly among "
                            "the replicas (without it each epoch is padded by wrapping around, "
                            "as DistributedSampler does)",
                            nullptr, nullptr, &C::dropLast));
    addMpiFields(fields);
    addGpuFields(fields);
    addProcessPitfallFields(fields);
    addOptimiserFields(fields);
    Field seed = base("seed", FieldType::Seed, "N", "seeds data, initialisation and order");
    seed.get = [](const C& c) { return FieldValue(c.seed); };
    seed.set = [](C& c, const FieldValue& v) { c.seed = as<std::uint64_t>(v); };
    fields.push_back(seed);
    fields.push_back(choice("split", "S",
                            "shard: each sample once per epoch across workers\n"
                            "replicate: every worker walks all samples (serial and "
                            "the Hogwild modes; data-parallel always shards)",
                            {DataSplit::Shard, DataSplit::Replicate}, &C::split, &parseDataSplit));
    fields.push_back(number("test-fraction",
                            "held-out share of the rows\n"
                            "ignored by datasets with their own test set (fashion-mnist, idx)",
                            0, false, 1, true, &C::testFraction));
    fields.push_back(toggle("shuffle", "a new random order every epoch (the default)", "no-shuffle",
                            "visit samples in file order (exact comparisons)", &C::shuffle));
    addStartFields(fields);
    addOutputFields(fields);
    return fields;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
    std::string text;
    for (const auto& p : parts)
        text += (text.empty() ? "" : separator) + p;
    return text;
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
        badFlag(flag, "unknown option");
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

std::string fieldsHelp() {
    const ExperimentConfig defaults = ExperimentConfig::defaults();
    std::string out;
    for (const auto& f : experimentFields()) {
        std::string text = f.help;
        if (f.ranged())
            text = text.substr(0, text.find('\n')) + ", " + f.rangeText() +
                   (text.find('\n') == std::string::npos ? "" : text.substr(text.find('\n')));
        if (text.empty()) // a choice whose names change (the modes): list them
            text = join(f.choices(), " | ") + " (see Modes below)";
        if (f.type == FieldType::Switch) {
            if (f.negation)
                helpEntry(out, std::string("--") + f.negation, f.negationHelp);
            helpEntry(out, std::string("--") + f.key, text);
            continue;
        }
        const std::string current = f.valueText(defaults);
        if (!current.empty())
            text += " [" + current + "]";
        helpEntry(out, std::string("--") + f.key + " " + f.valueName, text);
    }
    out += "\nModes (--mode):\n";
    for (const auto& [name, help] : modeCatalog().helpLines())
        helpEntry(out, name, help);
    return out;
}

} // namespace hwl
