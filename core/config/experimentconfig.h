#pragma once
// ExperimentConfig: everything that defines a run. One plain struct, filled
// from JSON, CLI flags or the GUI form, and validated in one place
// (validate()). Its fields are described once, in the field table
// (config/fields.h): the JSON keys are the flag names without "--".
#include "config/modes.h"
#include "data/datasetspec.h"
#include "model/modelspec.h"
#include "optim/optimizerkind.h"
#include "util/limits.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hwl {

struct Field;

enum class DataSplit { Shard, Replicate };
/// How process workers are started (as Python's multiprocessing names them).
enum class StartMethod { Fork, Spawn, Forkserver };
/// What a run does when a worker dies.
enum class FailurePolicy { Stop, Continue };
/// How data-parallel replicas talk: threads of one process, processes on one
/// machine (shared memory), or MPI ranks (across machines).
enum class Transport { Threads, Processes, Mpi };
/// How MPI ranks average (transport mpi only): through Open MPI's own
/// collectives (an alltoallv, each rank summing its block, then an
/// allgatherv: each rank moves at most twice the buffer, however many
/// ranks), or through rank 0, the hub, which carries every rank's buffer.
/// Both sum in rank order in double: the threads transport's bits.
enum class Reduce { Mpi, Exact };
/// Where the replicas of data-parallel training run.
enum class Device { Cpu, Cuda };
/// How gpu-hogwild's blocks write their updates: racy loads and stores (they
/// lose updates), or atomicAdd (none lost).
enum class UpdateKind { Racy, Atomic };

const char* toString(DataSplit s);
const char* toString(StartMethod m);
const char* toString(FailurePolicy p);
const char* toString(Transport t);
const char* toString(Reduce r);
const char* toString(Device d);
const char* toString(UpdateKind u);
std::optional<DataSplit> parseDataSplit(const std::string& text);
std::optional<StartMethod> parseStartMethod(const std::string& text);
std::optional<FailurePolicy> parseFailurePolicy(const std::string& text);
std::optional<Transport> parseTransport(const std::string& text);
std::optional<Reduce> parseReduce(const std::string& text);
std::optional<Device> parseDevice(const std::string& text);
std::optional<UpdateKind> parseUpdateKind(const std::string& text);

/// A field's value: bool (Switch), int64 (Integer), uint64 (Seed), double
/// (Number), string (Text, Choice). config/fields.h says which field is which.
using FieldValue = std::variant<bool, std::int64_t, std::uint64_t, double, std::string>;

/// One field a sweep varies (config/sweep.h): its JSON key and its values,
/// in the order the runs take them.
struct SweepAxis {
    std::string key;
    std::vector<FieldValue> values;
};

/// A field the user set, and where: `where` is the flag ("--momentum",
/// "--no-shuffle"), or the file or sweep it came from ("config \"a.json\"",
/// "sweep"). See ExperimentConfig::given.
struct GivenField {
    std::string key;
    std::string where;
};

/// One problem with one field: `field` is the JSON / flag name.
struct ConfigIssue {
    std::string field;
    std::string message;
};

struct ExperimentConfig {
    std::string model = "mlp:784-128-10";
    std::string dataset = "fashion-mnist";
    /// The parallel mode: the name of a registered strategy (strategy/catalog.h;
    /// its modes:: names the built-in ones).
    std::string mode = modes::threads;
    int workers = 2;
    int epochs = 5; ///< at most, with a target: the run stops once it reaches it
    /// A target to train to (0: none): the test accuracy in percent, the
    /// test loss. Checked at each evaluation (every epoch's end, and every
    /// evalEvery steps); the run stops at the first that reaches either,
    /// unless trainPastTarget.
    double targetAccuracy = 0;
    double targetLoss = 0;
    bool trainPastTarget = false;
    /// The test set is evaluated at each epoch's end and, when above 0,
    /// also every this many of each worker's steps inside an epoch (the
    /// workers wait meanwhile, as at the epoch's end).
    int evalEvery = 0;
    int batch = 32;
    double lr = 0.01;
    /// The update rule (optim/optimizerspec.h), as torch.optim 1.13 has it,
    /// and its hyper-parameters: momentum and nesterov for SGD only, betas
    /// for Adam and AdamW, alpha for RMSprop, lrDecay and
    /// initialAccumulator for Adagrad; eps for all but SGD (0: the
    /// optimizer's own default, 1e-8, Adagrad's 1e-10).
    OptimizerKind optimizer = OptimizerKind::Sgd;
    double momentum = 0.9;
    bool nesterov = false;
    double weightDecay = 0.0;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 0.0;
    double alpha = 0.99;
    double lrDecay = 0.0;
    double initialAccumulator = 0.0;
    /// Where the Hogwild modes keep that state (--optimizer-state): each
    /// worker its own (the default, as runs before the field were), or one
    /// shared copy beside the parameters, updated as racily as they are.
    StateSharing optimizerState = StateSharing::PerWorker;
    /// How the rate changes over the run (optim/lrschedule.h): constant,
    /// step:EPOCHS:GAMMA or cosine; and a linear warm-up over each worker's
    /// first warmupSteps steps (0: none).
    std::string lrSchedule = "constant";
    /// Input normalisation (data/normalize.h): none | global | per-feature |
    /// MEAN,STD.
    std::string normalize = "none";
    int warmupSteps = 0;
    /// Gradient accumulation: each update takes the mean gradient of this
    /// many batches (1: every batch updates).
    int accumulate = 1;
    /// Model cnn: the probability that dropout zeroes a conv2 channel or an
    /// fc1 unit while training (0: no dropout).
    double dropout = 0.5;
    std::uint64_t seed = 42;
    DataSplit split = DataSplit::Shard;
    double testFraction = 0.1; ///< sources with their own test set ignore it
    bool shuffle = true;
    StartMethod startMethod = StartMethod::Forkserver; ///< modes with process workers
    /// Modes that have an unshared variant (processes): false selects it, the
    /// "forgot to share" pitfall.
    bool share = true;
    FailurePolicy onWorkerFailure = FailurePolicy::Stop;
    /// Hogwild on the CPU: count the updates that overlapped another
    /// worker's update of the same parameters (optim/hogwild.h). Costs a
    /// little throughput, so it is off by default.
    bool lostUpdates = false;
    // Data-parallel modes.
    Transport transport = Transport::Threads;
    int syncEvery = 1;     ///< 1: average gradients every step; K > 1: parameters every K steps
    double bucketMb = 25;  ///< the cap of a gradient bucket, MiB (the first bucket: 1 MiB)
    bool dropLast = false; ///< drop the rows that do not divide evenly (else pad by wrapping)
    /// Transport mpi, when this app starts mpirun itself (the window, or the
    /// command line outside mpirun): mpirun's --hostfile, and more mpirun
    /// arguments separated by spaces (e.g. "--mca btl self,tcp").
    std::string hostfile;
    std::string mpirunArgs;
    Reduce reduce = Reduce::Mpi; ///< transport mpi: Open MPI's collectives, or rank 0's exact mean
    // GPU modes.
    Device device = Device::Cpu; ///< data-parallel: cpu, or cuda (replicas on GPUs)
    int replicasPerGpu = 1;      ///< data-parallel on cuda: replicas that share one GPU
    int blocks = 1024;           ///< gpu-hogwild: thread blocks training at once
    UpdateKind update = UpdateKind::Racy;
    /// The CUDA-before-fork pitfall on purpose: the run's process initialises
    /// CUDA before its workers start (a fork is then refused), and with
    /// forceUnsafeFork the workers are forked anyway and try CUDA.
    bool cudaBeforeFork = false;
    bool forceUnsafeFork = false;
    /// The blog's scene 2 on purpose: the parameters are not placed in a
    /// shared-memory segment before the spawn (or forkserver) workers start
    /// (PyTorch's share_memory() not called before mp.spawn), so each worker
    /// fails to open the segment it is told to map, and says so.
    bool spawnBeforeShare = false;
    /// Loader processes each worker would start (a PyTorch DataLoader with
    /// num_workers > 0 inside a worker): 0, the default. More is refused
    /// before the run starts (nested processes, the blog's pitfall 3).
    int loaderWorkers = 0;
    std::string init; ///< safetensors file to start from; empty: seeded initialisation
    /// The --out folder of a run to continue (its weights and optimizer
    /// state); empty: start afresh. `epochs` counts from that run's start.
    std::string resume;
    std::string out; ///< output directory; empty: write nothing
    /// model.onnx for inputs normalised already: the graph without
    /// --normalize's Sub and Div (false: it takes the raw features).
    bool onnxNormalizedInputs = false;
    /// Folder of TensorBoard event files (io/tensorboardlog.h); empty: none.
    std::string tensorboard;
    /// A grid of runs over these fields (config/sweep.h: their cross
    /// product, the first axis varying slowest); empty: this one run. The
    /// file's "sweep" object, --sweep on the command line.
    std::vector<SweepAxis> sweep;
    /// The fields the user set (a flag, a key of a --config file, a swept
    /// field), as against those a default, a preset, a resumed run's file
    /// or the window's form holds. validateExperiment() refuses a given field
    /// that the experiment's mode, optimizer or model does not take, whatever
    /// its value, and names it by where it was given. Neither read nor
    /// written by the JSON functions: their callers say what they were given.
    std::vector<GivenField> given;
    /// Records that the user set `key` at `where` (a later mark of the same key replaces it).
    void markGiven(const std::string& key, const std::string& where);
    /// The mark of `key`, or null when the user did not set it.
    const GivenField* givenField(std::string_view key) const;

    /// Every problem of the fields themselves, each naming its field and
    /// the allowed range: their limits, the model and dataset specs, the
    /// fields that go together. Not the mode: what a mode takes is the
    /// strategies' (a layer above), so an experiment is validated whole by
    /// validateExperiment() (strategy/validation.h), which calls this.
    std::vector<ConfigIssue> validateFields() const;

    ModelSpec modelSpec() const;     ///< throws InputError when `model` is invalid
    DatasetSpec datasetSpec() const; ///< throws InputError when `dataset` is invalid

    /// JSON text (2-space indented) with every field, or those `keep` keeps
    /// (strategy/validation.h's experimentFileJson(): those that apply).
    std::string toJson(const std::function<bool(const Field&)>& keep = {}) const;
    /// The key of an experiment file that the experiment leaves alone: a
    /// preset's description beside its experiment (preset/presets.h), so a
    /// preset file is an experiment file too.
    static constexpr const char* kPresetKey = "preset";

    /// Fields present in `json` override this config's; unknown fields, wrong
    /// types and malformed JSON throw InputError naming `origin` and the field;
    /// the key kPresetKey is skipped.
    /// Returns the keys the text set (so that a caller knows what the file
    /// chose: a "workers" there is the user's choice, as --workers is).
    std::vector<std::string> mergeJson(const std::string& json, const std::string& origin);
    /// Reads a JSON file and merges it (InputError when unreadable); the
    /// keys it set.
    std::vector<std::string> mergeJsonFile(const std::filesystem::path& file);

    /// The embedded default experiment (resources/experiments/default.json).
    static ExperimentConfig defaults();
    static const char* defaultJson();
};

} // namespace hwl
