#include "config/presets.h"

#include "config/modes.h"
#include "data/datasetspec.h"
#include "model/modelspec.h"

namespace hwl {

namespace {

/// The canonical form of a model / dataset text, so that a preset survives
/// a round trip through the form unchanged.
std::string canonicalModel(const std::string& text) {
    return toString(parseModelSpec(text));
}
std::string canonicalDataset(const std::string& text) {
    return toString(parseDatasetSpec(text));
}

/// The synthetic stand-in for Fashion-MNIST: same shape (784 features,
/// 10 classes, 60000 rows), learnable.
const char* const kFashionStandIn = "teacher:60000x784:10:64";

/// A comparison of `base` in other modes: one run per {label, mode}.
std::vector<PresetRun>
compareModes(const ExperimentConfig& base,
             std::initializer_list<std::pair<const char*, const char*>> runs) {
    std::vector<PresetRun> out;
    for (const auto& [label, mode] : runs) {
        ExperimentConfig c = base;
        c.mode = mode;
        out.push_back({label, c});
    }
    return out;
}

Preset hogwildVsLocked() {
    // Its figures are claims that bench/presets.py measures
    // (bench/preset-claims.txt, bench/RESULTS.md): on a quiet 2-core machine
    // Hogwild is faster than the lock on this sparse model; with other
    // programs busy on the cores the gain vanishes. More threads than cores
    // did not make the lock costlier there (measured with 3 and 4 workers).
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:20000-32-4");
    c.dataset = canonicalDataset("sparse-bow:20000x20000:4:20");
    c.mode = modes::threadsLocked;
    c.workers = 2;
    c.epochs = 1000; // 1500 took 61-80 s in all on a busy machine: over a minute
    c.batch = 32;
    c.lr = 0.5;
    c.momentum = 0.0;
    return {"hogwild-vs-locked",
            "Hogwild vs locked",
            ("<p>Two threads train an embedding bag (a 20000-token vocabulary, 20 tokens a "
             "row), twice, one run after the other: first taking <b>one mutex around every "
             "update</b> (threads, locked), then without it (<b>threads, Hogwild</b>), on the "
             "same data. Each run takes about 10-30 s at full speed on two cores, the longer "
             "the busier the machine. The throughput chart lays the finished run under the "
             "live one, and at the end the banner over the charts puts the two side by side: "
             "samples/s, test accuracy, training time, and by how much Hogwild was "
             "faster.</p>"
             "<p>With the lock only one worker writes at a time: while one updates its rows "
             "the other waits, even though they almost never touch the same row. Hogwild "
             "drops the lock and both write at once: on a quiet machine that gave half again as "
             "many samples per second or more (measured 1.5-1.8 times), at the same accuracy. "
             "The busier the two cores are with other programs, the smaller the gain, until "
             "it flips (measured: 1.0-1.5 times with a fifth to half of the CPUs taken, "
             "0.5-1.0 times with half or more): the threads then wait far longer for a "
             "core than for the lock. On a dense model, where every "
             "update writes every weight, the two run about equally fast on two cores: the "
             "cores then spend the time the lock saves passing the same cache lines back "
             "and forth.</p>"
             "<p>Headless (<tt>--headless --preset hogwild-vs-locked</tt>) it makes both runs "
             "and prints the same table at the end.</p>"),
            c,
            0,
            compareModes(c, {{"locked", modes::threadsLocked}, {"hogwild", modes::threads}}),
            ComparedFigure::Throughput};
}

Preset forgotToShare() {
    // A task that does not overfit in 12 epochs (measured: shared, the test
    // loss falls from 0.45 to 0.26 and the accuracy reaches ~89%), so the
    // contrast run reads as "sharing trains", not "sharing makes it worse".
    ExperimentConfig c;
    c.model = canonicalModel("mlp:20-64-10");
    c.dataset = canonicalDataset("teacher:60000x20:10:16");
    c.mode = modes::processes;
    c.startMethod = StartMethod::Fork;
    c.share = false;
    c.workers = 3;
    c.epochs = 12;
    c.batch = 32;
    c.lr = 0.01;
    c.momentum = 0.9;
    return {"forgot-to-share",
            "Forgot to share parameters (fork)",
            ("<p>The blog's <b>scene 3</b>: three forked worker processes, but the parameters "
             "were never put in shared memory (PyTorch's <b>model.share_memory()</b> "
             "forgotten). Each worker trains its own private copy.</p>"
             "<p>What you will see: the workers' losses fall, yet the <b>test accuracy stays "
             "flat</b> at chance (about 9%), because it is measured on the parent's copy, "
             "which nobody updates; the "
             "divergence of the workers from their mean <b>fans out</b> epoch after epoch. At "
             "the end the run says so: the exported model is the untouched initial one.</p>"
             "<p>In PyTorch the same mistake is silent with fork, and the training is simply "
             "lost; with spawn, passing the model to mp.spawn moves its parameters into shared "
             "memory anyway, so training happens to be shared. Tick <b>Share "
             "parameters</b> and run again: the test loss falls and the accuracy climbs to "
             "about 89%.</p>"),
            c,
            225,
            {},
            ComparedFigure::None,
            {"share"}};
}

Preset sparseEmbedding() {
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:5000-32-4");
    c.dataset = canonicalDataset("sparse-bow:20000x5000:4:20");
    c.mode = modes::threads;
    c.workers = 4;
    c.epochs = 20;
    c.batch = 32;
    c.lr = 0.5;
    c.momentum = 0.0;
    return {"sparse-embedding", "Sparse embedding Hogwild",
            ("<p>The case Hogwild was made for: an embedding bag over a 5000-token "
             "vocabulary, four lock-free threads. Each step touches only the embedding rows "
             "of the 20 or so tokens in its batch rows, plus a small linear layer.</p>"
             "<p>Two workers rarely update the same row at the same moment, so the races that "
             "lock-free updates allow almost never happen: training is as good as with a "
             "lock (how much faster it is: the Hogwild vs locked preset). Watch the divergence "
             "(staleness) stay small while the test "
             "accuracy climbs. It runs at 100 steps per second per worker (the toolbar's "
             "pace) so that you can follow it; set the pace to full speed to see how fast "
             "it really is.</p>"),
            c, 100};
}

Preset lostUpdates() {
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:8-16-2");
    c.dataset = canonicalDataset("sparse-bow:20000x8:2:4");
    c.mode = modes::threads;
    c.workers = 4;
    c.epochs = 3000; // about 20-30 s at full speed (bench/presets.py)
    c.batch = 1;
    c.lr = 0.05;
    c.momentum = 0.0;
    c.lostUpdates = true;
    return {"lost-updates",
            "Lost updates (small vocabulary)",
            ("<p>Hogwild at its most crowded: an embedding bag over a vocabulary of only "
             "<b>8 tokens</b>, four lock-free threads, one sample per step. Every step writes "
             "the rows of its 4 tokens and the small output layer, so the workers keep "
             "writing the same parameters at the same moment.</p>"
             "<p><b>Count lost updates</b> is ticked: each write of a block of 32 parameters "
             "that overlapped another worker's write of the same block counts as lost (one of "
             "the two can replace the other unseen). Watch the <b>lost-updates chart</b> and "
             "the worker table's column settle at one to a few percent of all writes "
             "(measured 1.1-4.3%), while the test accuracy still reaches 99%: SGD shrugs the "
             "lost writes off.</p>"
             "<p>It runs at full speed, for about 20-30 s. Slowed down with the pace the "
             "workers write at the same moment far less often, so fewer writes are lost; but "
             "each worker takes 4500 steps an epoch, so at 1000 steps per second the 3000 "
             "epochs would take almost 4 hours: set the epochs to 5 as well and it ends in "
             "about 25 s, with a tenth of a percent of the writes lost or less (measured "
             "0.003-0.13%). Then switch the "
             "mode to <b>threads (locked)</b> and run again: the count is 0, because the "
             "lock lets one worker write at a time.</p>"
             "<p>How one write gets lost, step by step: the <a href=\"hwl:race-stepper\">race "
             "stepper</a> (Presets menu). The simplest race of all: the <a "
             "href=\"hwl:counter-toy\">shared-counter toy</a>.</p>"),
            c,
            0,
            {},
            ComparedFigure::None,
            {"mode"}};
}

/// The blog's fifth pitfall, gradient accumulation under Hogwild, on the
/// lost-updates workload: K = 1 and K = 8 on the same data.
Preset accumulateHogwild() {
    ExperimentConfig c = lostUpdates().config;
    c.epochs = 3000; // about 25 s for both runs at full speed (2-CPU VM)
    std::vector<PresetRun> runs;
    for (const int k : {1, 8}) {
        ExperimentConfig r = c;
        r.accumulate = k;
        runs.push_back({"accumulate-" + std::to_string(k), r});
    }
    return {"accumulate-hogwild",
            "Gradient accumulation under Hogwild (K = 1 and 8)",
            ("<p>The lost-updates workload (4 lock-free threads, an 8-token vocabulary, one "
             "sample per batch) run twice on the same data: <b>accumulate 1</b>, one update "
             "per batch, then <b>accumulate 8</b>, the gradients of 8 batches summed into one "
             "update (their mean), as <code>--accumulate 8</code> does.</p>"
             "<p>What the blog warns of: each accumulated update is larger and older. The "
             "instruments say how much. The <b>divergence</b> chart is the staleness: how far "
             "the shared parameters moved between the update's first read and its write. "
             "With 8 batches in between it sits far higher (the median of metrics.csv's "
             "divergence, 5e-7 at K = 1 and 1.4e-5 at K = 8, here).</p>"
             "<p>The <b>lost updates</b> tell another story than the blog's: an update of 8 "
             "batches writes about half as many blocks again as one of a single batch, yet "
             "the <i>share</i> of block writes another worker overlapped does not clearly grow "
             "(K = 8's share was 0.4 to 1.3 times K = 1's in six runs on this project's "
             "2-CPU machine, where how busy the machine is moves both: 6% to 20%), and with "
             "8 times fewer updates far fewer writes are lost in all. Both end at about 99% "
             "test accuracy. Accumulation trades many small conflicts for fewer, staler "
             "ones.</p>"
             "<p>Under data-parallel the same option is DDP's <code>no_sync</code>: one "
             "allreduce every 8 micro-batches, equal to serial training on the 8-times "
             "batch.</p>"),
            c,
            0,
            runs,
            ComparedFigure::Divergence,
            {"accumulate"}};
}

Preset processHogwild(bool fashion) {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:784-128-10");
    c.dataset = fashion ? "fashion-mnist" : kFashionStandIn;
    c.mode = modes::processes;
    c.startMethod = StartMethod::Forkserver;
    c.share = true;
    c.workers = 2;
    c.epochs = 5;
    std::string text =
        ("<p>Hogwild across <b>processes</b>: two workers started by the fork server update "
         "one copy of the parameters in shared memory without locks, while the training data "
         "sits once in a read-only segment.</p>"
         "<p>The fork server is a small single-threaded process forked when the app starts, "
         "before any GUI thread exists, so workers start in a few milliseconds without "
         "inheriting this window's threads (the trouble with plain fork). The worker table "
         "shows each worker's pid and start-up time; compare them with spawn and fork.</p>");
    if (!fashion)
        text += ("<p>Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist), "
                 "so this runs on a synthetic teacher task of the same shape.</p>");
    return {
        "process-hogwild", "Process Hogwild (forkserver)", text, c, 150, {}, ComparedFigure::None,
        {"start-method"}};
}

/// PyTorch's examples/mnist_hogwild, as its defaults set it up.
Preset mnistHogwild(bool fashion) {
    ExperimentConfig c;
    c.model = canonicalModel("cnn:mnist");
    c.dataset = fashion ? "fashion-mnist" : kFashionStandIn;
    c.mode = modes::processes;
    c.startMethod = StartMethod::Spawn; // mp.set_start_method('spawn')
    c.workers = 2;                      // --num-processes 2
    c.split = DataSplit::Replicate;     // each process its own DataLoader over all of it
    c.epochs = 10;
    c.batch = 64;
    c.lr = 0.01;
    c.momentum = 0.5;
    c.dropout = 0.5; // nn.Dropout2d() and F.dropout's default
    c.seed = 1;
    std::string text =
        ("<p>PyTorch's own Hogwild example, <tt>examples/mnist_hogwild</tt>, in its settings: "
         "its convolutional network (two 5x5 convolutions with max-pooling and dropout, two "
         "linear layers), <b>2 processes</b> started by <b>spawn</b> updating one shared "
         "model without locks, each walking the whole training set every epoch, batches of "
         "64, SGD with learning rate 0.01 and momentum 0.5, 10 epochs.</p>"
         "<p>On Fashion-MNIST it ends at about 85% test accuracy. Here the 10 epochs take "
         "about 70 s on two cores. PyTorch's example itself, run beside it on the same "
         "machine by <tt>bench/cnn.py</tt>, took about twice as long: 128 s against 63 s "
         "for the whole run (2026-12-05, bench/RESULTS.md).</p>"
         "<p>The weights export under the example's names (<tt>conv1.weight</tt>, ...): "
         "its <tt>Net</tt> loads them with <tt>load_state_dict</tt>.</p>");
    if (!fashion)
        text += ("<p>Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist), "
                 "so this runs on a synthetic teacher task of the same shape.</p>");
    return {
        "mnist-hogwild", "PyTorch's mnist_hogwild (CNN)", text, c, 0, {}, ComparedFigure::None, {}};
}

Preset cudaBeforeFork() {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:100-64-10");
    c.dataset = canonicalDataset("teacher:20000x100:10");
    c.mode = modes::processes;
    c.startMethod = StartMethod::Fork;
    c.cudaBeforeFork = true;
    c.workers = 2;
    c.epochs = 3;
    return {"cuda-before-fork",
            "CUDA before fork",
            ("<p>The blog's <b>scene 1</b>: a program touches CUDA (a tensor on the GPU, "
             "torch.cuda.is_available() in some libraries), then starts its workers with "
             "<b>fork</b>. A forked child inherits the parent's memory but not a usable CUDA "
             "context, and CUDA cannot be initialised again in it: PyTorch stops with "
             "<i>RuntimeError: Cannot re-initialize CUDA in forked subprocess</i>.</p>"
             "<p>Press Start: the run is <b>refused before any worker starts</b>, naming the "
             "cause and the fix. Switch the start method to <b>spawn</b> or "
             "<b>forkserver</b>: their workers start as fresh processes and the run "
             "trains.</p><p>This window never initialises CUDA itself (its own forks must "
             "stay safe), so it checks as if it had. To see what really happens in the "
             "children, run from the command line: <tt>hogwild-lab --headless --mode "
             "processes --start-method fork --cuda-before-fork --force-unsafe-fork</tt> "
             "(each worker tries CUDA and the run reports the error it got).</p>"),
            c,
            0,
            {},
            ComparedFigure::None,
            {"start-method"}};
}

/// The blog's own model and data shape (MLP 100-256-10), learnable.
ExperimentConfig blogWorkload(int epochs) {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:100-256-10");
    c.dataset = canonicalDataset("teacher:200000x100:10");
    c.workers = 2;
    c.epochs = epochs;
    c.batch = 32;
    c.lr = 0.01;
    c.momentum = 0.9;
    return c;
}

Preset ddpVsHogwild() {
    // 40 epochs: 20 took 11 s in all on a quiet machine (bench/presets.py).
    ExperimentConfig c = blogWorkload(40);
    c.mode = modes::dataParallel;
    std::vector<PresetRun> runs =
        compareModes(c, {{modes::dataParallel, modes::dataParallel}, {"hogwild", modes::threads}});
    return {"ddp-vs-hogwild",
            "DDP vs Hogwild on the same data",
            ("<p>The blog's MLP 100-256-10 on the same 180000 rows, two workers, 40 epochs, "
             "trained twice, one run after the other: first <b>data-parallel</b> (what "
             "PyTorch's DistributedDataParallel does: two replicas, their gradients averaged "
             "every step), then <b>Hogwild</b> (two threads writing one shared copy without a "
             "lock). The run list keeps both, overlaid.</p>"
             "<p>What to look at: the data-parallel run's divergence is <b>0</b> all along, "
             "because after every averaged step the replicas hold the same parameters bit for "
             "bit; its summary says how much of the loop each replica spent waiting in the "
             "allreduce. Hogwild's divergence is its staleness instead, small but never 0. Per "
             "epoch data-parallel takes half as many steps (each averages two batches of 32), "
             "so each of its steps counts for two; both end at about 82-84% test accuracy here.</p>"
             "<p>Nor is Hogwild faster on this dense model when the machine is quiet: on the "
             "project's 2 cores the two ran about equally fast. Every Hogwild update writes "
             "every weight, so the cores spend the time the missing lock saves passing the "
             "same cache lines back and forth; data-parallel spends a quarter to two fifths of "
             "its loop in the allreduce instead. With other programs taking half the CPUs or "
             "more, data-parallel fell to a tenth to a quarter of Hogwild's samples/s and spent "
             "four fifths to nine tenths of its loop in the allreduce: every data-parallel step "
             "waits for "
             "both replicas, so one without a core stalls both, where a Hogwild thread just "
             "falls behind.</p>"
             "<p>At the end the banner over the charts (headless, <tt>--headless --preset "
             "ddp-vs-hogwild</tt>, the table at the end) puts their samples/s, final test "
             "accuracy, training time and divergence side by side; the divergence chart keeps "
             "both runs.</p>"),
            c,
            0,
            runs,
            ComparedFigure::Divergence};
}

Preset localSgd() {
    // 30 epochs: 10 took under 8 s in all on a quiet machine (bench/presets.py).
    ExperimentConfig c = blogWorkload(30);
    c.mode = modes::dataParallel;
    std::vector<PresetRun> runs;
    for (const int k : {1, 8, 64}) {
        ExperimentConfig r = c;
        r.syncEvery = k;
        runs.push_back({"sync-" + std::to_string(k), r});
    }
    return {"local-sgd",
            "Local SGD with sync-every 1, 8, 64 overlaid",
            ("<p>Local SGD: data-parallel on the blog's MLP 100-256-10 and 180000 rows, two "
             "replicas, 30 epochs, run three times: <b>sync-every 1</b> (the "
             "gradients averaged every step, as DDP), <b>8</b> and <b>64</b> (each replica takes "
             "that many steps on its own, then the replicas' parameters are averaged). The run "
             "list overlays the three.</p>"
             "<p>What to look at: the divergence. At sync-every 1 it is 0; at 8 and 64 it is a "
             "<b>sawtooth</b>: the replicas drift apart between averagings and snap back to one "
             "copy at each. The longer the interval, the higher the teeth, and the fewer bytes "
             "go through the allreduce (the summary's bytes reduced: 9596, 1203 and 153 MB a "
             "replica). All three end at about 82% test accuracy.</p>"
             "<p>On a quiet machine the time spent in the allreduce shrinks with the bytes: "
             "about a quarter of the loop at sync-every 1, a tenth at 64. With other programs "
             "busy on the machine it need not: measured with two thirds of the CPUs taken, "
             "every interval spent two thirds to nine tenths of its loop in collectives, and "
             "which run was fastest changed from one repeat to the next. A replica that waits for "
             "its peer waits for a core too, however seldom the two average.</p>"
             "<p>Let the interval grow without end and nobody ever averages: that is the "
             "forgot-to-share pitfall.</p>"),
            c,
            0,
            runs,
            ComparedFigure::Divergence};
}

Preset startMethods() {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:100-64-10");
    c.dataset = canonicalDataset("teacher:200000x100:10");
    c.mode = modes::processes;
    c.workers = 3;
    c.epochs = 70; // 50 took 16 s in all on a quiet machine (bench/presets.py)
    std::vector<PresetRun> runs;
    for (const StartMethod m : {StartMethod::Fork, StartMethod::Spawn, StartMethod::Forkserver}) {
        ExperimentConfig r = c;
        r.startMethod = m;
        runs.push_back({toString(m), r});
    }
    c.startMethod = StartMethod::Fork;
    return {"start-methods",
            "Process start methods compared (start-up times side by side)",
            ("<p>The same small process-Hogwild run started three ways, one after the other: "
             "<b>fork</b>, <b>spawn</b> and <b>forkserver</b>, three workers each. Watch the "
             "worker table's <b>start-up</b> column (launch to first step) in each run; at the "
             "end the banner over the charts (headless, the table at the end) puts each run's "
             "start-up times side by side.</p>"
             "<p>Measured headless here, the machine quiet or busy: fork and forkserver "
             "workers took their first step 2-15 ms after launch, spawn's 7-55 ms, two to "
             "five times as long on average. A spawned worker is this program started "
             "afresh: it loads with its libraries, opens the run's segments by name and "
             "rebuilds the model from the experiment before its first step. The fork server "
             "paid for its own start once, when the app started, and forks each worker from "
             "a small clean process; plain fork is as quick but copies this process, the "
             "locks of its other threads and all (the run warns).</p>"
             "<p>Start-up is paid once per worker; after it the three run the same training "
             "loop, and their samples/s differ only as much as the machine's load does.</p>"),
            c,
            0,
            runs,
            ComparedFigure::StartUp};
}

Preset unableToOpenShm() {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:20-64-10");
    c.dataset = canonicalDataset("teacher:60000x20:10:16");
    c.mode = modes::processes;
    c.startMethod = StartMethod::Spawn;
    c.spawnBeforeShare = true;
    c.workers = 2;
    c.epochs = 12;
    c.batch = 32;
    c.lr = 0.01;
    c.momentum = 0.9;
    return {"unable-to-open-shm",
            "Unable to open shared memory (spawn)",
            ("<p>The blog's <b>scene 2</b>: <i>RuntimeError: Unable to open shared memory</i>. "
             "The parameters were never put in shared memory (PyTorch's "
             "<b>model.share_memory()</b> not called) before the workers were started with "
             "<b>spawn</b>. A spawned worker is a fresh process: it shares nothing with its "
             "parent but what it opens by name, so it is handed the name where the parameters "
             "should be, and that segment does not exist.</p>"
             "<p>What you will see: each worker stops before its first step, and the run fails "
             "with one message naming the segment, the system's words for what went wrong "
             "(<i>No such file or directory</i>) and the fix. Nothing is left behind: no "
             "worker process, no shared-memory segment.</p>"
             "<p>Untick the pitfall (<b>Spawn before share</b>; headless, drop "
             "<tt>--spawn-before-share</tt>) and run again: the parameters go into shared "
             "memory first, the workers open them and train. (In PyTorch, passing the model to "
             "mp.spawn usually moves it into shared memory by itself; the error comes when the "
             "segment is gone by the time a child opens it, which this scene shows the same "
             "way.)</p>"),
            c,
            0,
            {},
            ComparedFigure::None,
            {"spawn-before-share"}};
}

Preset nestedWorkers() {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:100-64-10");
    c.dataset = canonicalDataset("teacher:20000x100:10");
    c.mode = modes::processes;
    c.startMethod = StartMethod::Forkserver;
    c.workers = 2;
    c.loaderWorkers = 4;
    c.epochs = 3;
    return {"nested-workers",
            "Workers that start workers (nested processes)",
            ("<p>The blog's <b>pitfall 3</b>: workers that start workers. In PyTorch a "
             "DataLoader with <b>num_workers &gt; 0</b> inside each training process starts "
             "loader processes of its own: here two worker processes that would each start "
             "four loaders.</p>"
             "<p>Press Start: the run is <b>refused before anything starts</b>, and the "
             "message does the arithmetic for this machine: 2 workers + 8 loaders = 10 "
             "processes on its cores, several to a core, all copying batches that the workers "
             "could read themselves; and a worker that dies leaves its loaders orphaned, which "
             "is why Python refuses a daemonic process children outright (<i>daemonic "
             "processes are not allowed to have children</i>).</p>"
             "<p>This app's workers read their batches straight from the one shared copy of "
             "the training data, so they need no loaders: set <b>loader workers</b> to 0 "
             "(headless <tt>--loader-workers 0</tt>; PyTorch: num_workers=0 inside the "
             "workers) and the run trains.</p>"),
            c,
            0,
            {},
            ComparedFigure::None,
            {"loader-workers"}};
}

Preset fashionDefault(bool fashion) {
    ExperimentConfig c = ExperimentConfig::defaults();
    std::string text = ("<p>The default experiment: an MLP 784-128-10 with ReLU, two Hogwild "
                        "threads, 25 epochs of SGD with learning rate 0.03 and momentum 0.9, "
                        "batches of 128.</p>");
    if (fashion) {
        text += ("<p>On Fashion-MNIST (28 x 28 pictures of clothes, 10 classes) it reaches "
                 "about 88-89% test accuracy (scikit-learn's MLP reaches about as much) in "
                 "under 10 seconds on two cores at full speed. It runs at 200 steps per second per "
                 "worker (about "
                 "30 s) so that you can watch the test accuracy chart climb fast in the first "
                 "epochs, then creep. Runs with more than one worker are not "
                 "bit-reproducible, which is the point of lock-free updates: the accuracy "
                 "varies by a few tenths.</p>");
    } else {
        c.dataset = kFashionStandIn;
        text += ("<p><b>Fashion-MNIST is not installed</b> (apt-get install "
                 "dataset-fashion-mnist), so this runs on a synthetic teacher task of the "
                 "same shape instead: 60000 rows of 784 features, 10 classes whose labels "
                 "come from a fixed random network.</p>");
    }
    // Paced so that it lasts about 30 s: 25 epochs of 235 steps per worker.
    return {"fashion-mnist", "Fashion-MNIST default", text, c, 200};
}

} // namespace

std::vector<Preset> presets() {
    const bool fashion = fashionMnistAvailable();
    return {hogwildVsLocked(),   forgotToShare(),         sparseEmbedding(),     lostUpdates(),
            accumulateHogwild(), processHogwild(fashion), mnistHogwild(fashion), cudaBeforeFork(),
            unableToOpenShm(),   nestedWorkers(),         ddpVsHogwild(),        localSgd(),
            startMethods(),      fashionDefault(fashion)};
}

const Preset* findPreset(const std::vector<Preset>& all, const std::string& idOrName) {
    for (const Preset& p : all)
        if (p.id == idOrName || p.name == idOrName)
            return &p;
    return nullptr;
}

std::string presetIds(const std::vector<Preset>& all) {
    std::string ids;
    for (const Preset& p : all)
        ids += (ids.empty() ? "" : ", ") + p.id;
    return ids;
}

} // namespace hwl
