#include "config/presets.h"

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

Preset hogwildVsLocked() {
    // Measured on the project's 2-core machine (bench section 9, the README):
    // on this sparse model Hogwild runs about a third faster than the lock;
    // on the blog's dense MLP the two are within noise of each other there.
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:20000-32-4");
    c.dataset = canonicalDataset("sparse-bow:20000x20000:4:20");
    c.mode = "threads-locked";
    c.workers = 2;
    c.epochs = 1500;
    c.batch = 32;
    c.lr = 0.5;
    c.momentum = 0.0;
    return {"hogwild-vs-locked", "Hogwild vs locked",
            ("<p>Two threads train an embedding bag (a 20000-token vocabulary, 20 tokens a "
             "row), taking <b>one mutex around every update</b>. Note the samples/s in the "
             "status bar and the worker table, then switch the mode to <b>threads "
             "(Hogwild)</b> and run again (each run takes about 15-25 s at full speed on two "
             "cores).</p>"
             "<p>With the lock only one worker writes at a time: while one updates its rows "
             "the other waits, even though they almost never touch the same row. Hogwild "
             "drops the lock and both write at once, which here gives about a third more "
             "samples per second at the same accuracy. On a dense model, where every "
             "update writes every weight, the two run about equally fast on two cores: the "
             "cores then spend the time the lock saves passing the same cache lines back "
             "and forth.</p>"),
            c};
}

Preset forgotToShare() {
    // A task that does not overfit in 12 epochs (measured: shared, the test
    // loss falls from 0.45 to 0.26 and the accuracy reaches ~89%), so the
    // contrast run reads as "sharing trains", not "sharing makes it worse".
    ExperimentConfig c;
    c.model = canonicalModel("mlp:20-64-10");
    c.dataset = canonicalDataset("teacher:60000x20:10:16");
    c.mode = "processes";
    c.startMethod = StartMethod::Fork;
    c.share = false;
    c.workers = 3;
    c.epochs = 12;
    c.batch = 32;
    c.lr = 0.01;
    c.momentum = 0.9;
    return {"forgot-to-share", "Forgot to share parameters (fork)",
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
            c, 225};
}

Preset sparseEmbedding() {
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:5000-32-4");
    c.dataset = canonicalDataset("sparse-bow:20000x5000:4:20");
    c.mode = "threads";
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
             "lock, and faster. Watch the divergence (staleness) stay small while the test "
             "accuracy climbs. It runs at 100 steps per second per worker (the toolbar's "
             "pace) so that you can follow it; set the pace to full speed to see how fast "
             "it really is.</p>"),
            c, 100};
}

Preset lostUpdates() {
    ExperimentConfig c;
    c.model = canonicalModel("embedding-bag:8-16-2");
    c.dataset = canonicalDataset("sparse-bow:20000x8:2:4");
    c.mode = "threads";
    c.workers = 4;
    c.epochs = 3000; // about 30 s at full speed: pacing it would make writes rarely meet
    c.batch = 1;
    c.lr = 0.05;
    c.momentum = 0.0;
    c.lostUpdates = true;
    return {"lost-updates", "Lost updates (small vocabulary)",
            ("<p>Hogwild at its most crowded: an embedding bag over a vocabulary of only "
             "<b>8 tokens</b>, four lock-free threads, one sample per step. Every step writes "
             "the rows of its 4 tokens and the small output layer, so the workers keep "
             "writing the same parameters at the same moment.</p>"
             "<p><b>Count lost updates</b> is ticked: each write of a block of 32 parameters "
             "that overlapped another worker's write of the same block counts as lost (one of "
             "the two can replace the other unseen). Watch the <b>lost-updates chart</b> and "
             "the worker table's column settle at a few percent of all writes, while the "
             "test accuracy still reaches 99%: SGD shrugs the lost writes off.</p>"
             "<p>It runs at full speed: slow it down with the pace and the workers write "
             "at the same moment far less often, so fewer writes are lost. Then switch the "
             "mode to <b>threads (locked)</b> and run again: the count is 0, because the "
             "lock lets one worker write at a time.</p>"
             "<p>How one write gets lost, step by step: the <a href=\"hwl:race-stepper\">race "
             "stepper</a> (Presets menu). The simplest race of all: the <a "
             "href=\"hwl:counter-toy\">shared-counter toy</a>.</p>"),
            c};
}

Preset processHogwild(bool fashion) {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:784-128-10");
    c.dataset = fashion ? "fashion-mnist" : kFashionStandIn;
    c.mode = "processes";
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
    return {"process-hogwild", "Process Hogwild (forkserver)", text, c, 150};
}

Preset cudaBeforeFork() {
    ExperimentConfig c;
    c.model = canonicalModel("mlp:100-64-10");
    c.dataset = canonicalDataset("teacher:20000x100:10");
    c.mode = "processes";
    c.startMethod = StartMethod::Fork;
    c.cudaBeforeFork = true;
    c.workers = 2;
    c.epochs = 3;
    return {"cuda-before-fork", "CUDA before fork",
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
            c};
}

Preset fashionDefault(bool fashion) {
    ExperimentConfig c = ExperimentConfig::defaults();
    std::string text = ("<p>The default experiment: an MLP 784-128-10 with ReLU, two Hogwild "
                        "threads, 5 epochs of SGD with learning rate 0.01 and momentum 0.9, batch "
                        "32.</p>");
    if (fashion) {
        text += ("<p>On Fashion-MNIST (28 x 28 pictures of clothes, 10 classes) it reaches "
                 "about 85% test accuracy in a few seconds. Runs with more than one worker "
                 "are not bit-reproducible, which is the point of lock-free updates: the "
                 "accuracy varies by a few tenths.</p>");
    } else {
        c.dataset = kFashionStandIn;
        text += ("<p><b>Fashion-MNIST is not installed</b> (apt-get install "
                 "dataset-fashion-mnist), so this runs on a synthetic teacher task of the "
                 "same shape instead: 60000 rows of 784 features, 10 classes whose labels "
                 "come from a fixed random network.</p>");
    }
    return {"fashion-mnist", "Fashion-MNIST default", text, c};
}

} // namespace

std::vector<Preset> presets() {
    const bool fashion = fashionMnistAvailable();
    return {hogwildVsLocked(),       forgotToShare(),  sparseEmbedding(),      lostUpdates(),
            processHogwild(fashion), cudaBeforeFork(), fashionDefault(fashion)};
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
