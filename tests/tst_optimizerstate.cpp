// --optimizer-state (issue 38 part 4): where the Hogwild modes keep the
// optimizer's state. Shared state is one set of buffers and one step count
// in the run's parameter store: two workers' kernels on it apply exactly what
// one optimizer fed both gradients applies, the counted update writes what
// the plain one writes, and the shm segment carries it. With one worker a
// shared run is bit for bit a per-worker one; with several the shared step
// count is every worker's updates together, exactly, in every Hogwild mode
// (an atomic count, whatever the timing). Modes where sharing means nothing
// refuse it by name, and --resume continues a shared state bit for bit.
#include "backend/backend.h"
#include "backend/hostupdate.h"
#include "config/fields.h"
#include "io/optimizerstate.h"
#include "io/tensorfile.h"
#include "model/model.h"
#include "optim/hogwild.h"
#include "store/parameterstore.h"
#include "strategy/catalog.h"
#include "strategy/strategy.h"
#include "strategy/validation.h"
#include "testutil.h"
#include "util/errors.h"
#include "workertestmain.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <map>

using namespace hwl;
using hwl::test::runToEnd;

namespace {
/// A small teacher task, `workers` of `mode`, with the flags `rule` sets.
ExperimentConfig small(const char* mode, int workers, const QString& rule,
                       StateSharing sharing = StateSharing::Shared) {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:4000x20:4:16";
    c.mode = mode;
    c.workers = workers;
    c.epochs = 2;
    c.batch = 32;
    test::applyFlags(c, rule.split(' ', Qt::SkipEmptyParts));
    c.optimizerState = sharing;
    return c;
}

/// The shared step count a run's remark states ("optimizer steps: shared N
/// (...)"), or -1 when it states none.
long long sharedStepsRemarked(const RunSummary& s) {
    const std::string prefix = "optimizer steps: shared ";
    for (const std::string& r : s.remarks)
        if (r.rfind(prefix, 0) == 0)
            return std::stoll(r.substr(prefix.size()));
    return -1;
}

/// A dense gradient over all `total` parameters, its values from `seed`.
Gradient<float> denseGradient(std::int64_t total, int seed) {
    Gradient<float> g;
    g.segments = {{0, total, 0}};
    for (std::int64_t i = 0; i < total; ++i)
        g.values.push_back(float((i * 7 + seed * 13) % 11 - 5) * 0.01f);
    return g;
}

bool issueSays(const std::vector<ConfigIssue>& issues, const std::string& words) {
    return std::any_of(issues.begin(), issues.end(), [&](const ConfigIssue& i) {
        return i.field == "optimizer-state" && i.message.find(words) != std::string::npos;
    });
}
} // namespace

class TestOptimizerState : public QObject {
    Q_OBJECT

private slots:
    void rules_data() {
        QTest::addColumn<QString>("rule");
        QTest::newRow("sgd momentum") << "--optimizer sgd --momentum 0.9 --lr 0.05";
        QTest::newRow("sgd nesterov") << "--optimizer sgd --momentum 0.9 --nesterov --lr 0.05";
        QTest::newRow("adam") << "--optimizer adam --lr 0.003";
        QTest::newRow("adamw") << "--optimizer adamw --lr 0.003 --weight-decay 0.01";
        QTest::newRow("rmsprop") << "--optimizer rmsprop --lr 0.003";
        QTest::newRow("adagrad") << "--optimizer adagrad --lr 0.05 --initial-accumulator 0.1";
    }

    // Two workers' kernels on one shared state, one update each, apply what
    // one optimizer applies to both gradients in that order: the state is
    // the store's, and the step count numbers the updates 1, 2.
    void twoKernelsOnSharedStateAreOneOptimizer_data() { rules_data(); }
    void twoKernelsOnSharedStateAreOneOptimizer() {
        QFETCH(QString, rule);
        const ExperimentConfig c = small("threads", 2, rule);
        const OptimizerSpec spec = optimizerOf(c).spec;
        const auto model = makeModel(c.modelSpec());
        const std::int64_t total = model->layout().total();
        const auto buffers = std::int64_t(spec.stateNames().size());
        ParameterStore store = cpuBackend().allocate(total, StorePlace::Heap, "test",
                                                     {.versions = false, .stateBuffers = buffers});
        QVERIFY(store.optimizerState() && store.stateSteps());
        std::fill_n(store.optimizerState(), buffers * total, spec.initialState());
        std::vector<float> params(static_cast<std::size_t>(total)), alone;
        model->initialize(params.data(), 3);
        alone = params;
        const Gradient<float> g0 = denseGradient(total, 0), g1 = denseGradient(total, 1);

        HostUpdate one(total, spec, 0, 1); // one optimizer, both gradients
        one.setStepCount(0);
        one.update(alone.data(), g0, UpdateAccess::Private);
        one.setStepCount(1);
        one.update(alone.data(), g1, UpdateAccess::Private);

        HostUpdate first(total, spec, 0, 2), second(total, spec, 1, 2);
        first.share({store.optimizerState(), store.stateSteps()});
        second.share({store.optimizerState(), store.stateSteps()});
        QVERIFY(first.optimizerState().empty()); // no state of its own
        first.setStepCount(0);                   // ignored: the shared count numbers the update
        second.setStepCount(0);                  // (its own count would make this one step 1 again)
        first.update(params.data(), g0, UpdateAccess::Shared);
        second.update(params.data(), g1, UpdateAccess::Shared);

        QVERIFY(params == alone);
        const std::span<float> want = one.optimizerState();
        QVERIFY(std::equal(want.begin(), want.end(), store.optimizerState()));
        QCOMPARE(*store.stateSteps(), std::uint64_t(2));
    }

    // The counted update (--lost-updates) on shared state writes the bits
    // the plain one writes, parameters and state, one write per block.
    void countedUpdateOnSharedStateWritesTheSame() {
        const ExperimentConfig c = small("threads", 2, "--optimizer adam");
        const OptimizerSpec spec = optimizerOf(c).spec;
        const std::int64_t total = 200;
        const StoreExtras extras{.versions = true, .stateBuffers = 2};
        ParameterStore plain = ParameterStore::onHeap(total, extras);
        ParameterStore counted = ParameterStore::onHeap(total, extras);
        HostUpdate a(total, spec, 0, 1), b(total, spec, 0, 1);
        a.share({plain.optimizerState(), plain.stateSteps()});
        b.share({counted.optimizerState(), counted.stateSteps()});
        hogwild::UpdateTally tally;
        for (int step = 0; step < 3; ++step) {
            const Gradient<float> g = denseGradient(total, step);
            a.update(plain.data(), g, UpdateAccess::Shared);
            b.counted(counted.data(), counted.versions(), g, tally);
        }
        QVERIFY(std::equal(plain.data(), plain.data() + total, counted.data()));
        QVERIFY(std::equal(plain.optimizerState(), plain.optimizerState() + 2 * total,
                           counted.optimizerState()));
        QCOMPARE(*counted.stateSteps(), std::uint64_t(3));
        QCOMPARE(tally.writes, std::uint64_t(3 * hogwild::versionBlocks(total)));
        QCOMPARE(tally.lost, std::uint64_t(0)); // nobody else wrote
    }

    // Process workers find the state in the parameters' segment; a worker
    // that expects none sees the size mismatch, named.
    void sharedSegmentCarriesTheState() {
        const StoreExtras extras{.versions = true, .stateBuffers = 2};
        ParameterStore store = ParameterStore::inSharedMemory(1000, "state-test", extras);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(store.optimizerState()) % 64, 0u);
        store.optimizerState()[2 * 1000 - 1] = 3.5f;
        *store.stateSteps() = 41;
        const ParameterStore opened = ParameterStore::open(store.segmentName(), 1000, extras);
        QCOMPARE(opened.optimizerState()[2 * 1000 - 1], 3.5f);
        QCOMPARE(*opened.stateSteps(), std::uint64_t(41));
        QCOMPARE(ParameterStore::segmentBytes(1000, {.versions = true}),
                 ParameterStore::segmentBytes(1000, {.versions = true, .stateBuffers = 0}));
        try {
            ParameterStore::open(store.segmentName(), 1000, {.versions = true});
            QFAIL("a store with shared state opened as one without");
        } catch (const RunError& e) {
            QVERIFY2(QString(e.what()).contains("bytes"), e.what());
        }
    }

    // One worker has nobody to share with: the same bits either way.
    void oneWorkerSharedIsPerWorker_data() { rules_data(); }
    void oneWorkerSharedIsPerWorker() {
        QFETCH(QString, rule);
        const auto perWorker = runToEnd(small("threads", 1, rule, StateSharing::PerWorker));
        const auto shared = runToEnd(small("threads", 1, rule));
        QCOMPARE(shared->summary().state, RunState::Finished);
        QVERIFY(shared->parameters() == perWorker->parameters());
        QVERIFY(shared->summary().trainLoss < 1.0);
    }

    // The shared step count is every worker's updates together, exactly:
    // under the lock, without it, and across processes (an atomic count).
    void sharedStepCountIsEveryUpdate_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("method");
        QTest::newRow("threads-locked") << "threads-locked" << -1;
        QTest::newRow("threads") << "threads" << -1;
        QTest::newRow("processes, fork") << "processes" << int(StartMethod::Fork);
        QTest::newRow("processes, spawn") << "processes" << int(StartMethod::Spawn);
    }
    void sharedStepCountIsEveryUpdate() {
        QFETCH(QString, mode);
        QFETCH(int, method);
        ExperimentConfig c = small(qPrintable(mode), 3, "--optimizer adam --lr 0.003");
        c.lostUpdates = true;
        if (method >= 0)
            c.startMethod = StartMethod(method);
        const auto run = runToEnd(c);
        const RunSummary& s = run->summary();
        QVERIFY2(s.state == RunState::Finished, s.failure.c_str());
        QCOMPARE(s.workerSteps.size(), std::size_t(3));
        for (const std::uint64_t steps : s.workerSteps)
            QVERIFY(steps > 0);
        QCOMPARE(sharedStepsRemarked(s), (long long)s.steps);
        QVERIFY(s.testAccuracy > 0.65);
        // Per worker, each counts its own, and says so.
        const auto own = runToEnd(
            small(qPrintable(mode), 3, "--optimizer adam --lr 0.003", StateSharing::PerWorker));
        QCOMPARE(sharedStepsRemarked(own->summary()), -1LL);
        const auto& remarks = own->summary().remarks;
        QVERIFY(std::any_of(remarks.begin(), remarks.end(), [](const std::string& r) {
            return r.rfind("optimizer steps: per worker ", 0) == 0;
        }));
    }

    // Where sharing means nothing the field is refused by name, with why
    // and the fix; the Hogwild modes take it; per-worker is taken anywhere.
    void modesWithoutSharedParametersRefuseIt() {
        const auto issuesOf = [](ExperimentConfig c) { return validateExperiment(c); };
        ExperimentConfig serial = small("serial", 1, "--optimizer adam");
        QVERIFY(issueSays(issuesOf(serial), "drop --optimizer-state shared"));
        QVERIFY(issueSays(issuesOf(serial), "its one worker's state is the only one"));
        ExperimentConfig ddp = small("data-parallel", 2, "--optimizer adam");
        QVERIFY(issueSays(issuesOf(ddp), "stay identical without sharing"));
        ExperimentConfig unshared = small("processes", 2, "--optimizer adam --no-share");
        QVERIFY(issueSays(issuesOf(unshared), "processes --no-share"));
        ExperimentConfig plain = small("threads", 2, "--optimizer sgd --momentum 0");
        QVERIFY(issueSays(issuesOf(plain), "sgd without momentum keeps no state"));
        for (const char* mode : {"threads", "threads-locked", "processes"})
            QVERIFY(issuesOf(small(mode, 2, "--optimizer adam")).empty());
        for (const char* mode : {"serial", "data-parallel"}) {
            ExperimentConfig c = small(mode, mode == std::string("serial") ? 1 : 2,
                                       "--optimizer adam", StateSharing::PerWorker);
            QVERIFY(issuesOf(c).empty());
        }
        // The GPU modes take plain SGD's momentum on the device only: their
        // traits do not take the setting (listed even where not built).
        const Field& field = *findField("optimizer-state");
        for (const char* mode : {"gpu-hogwild", "data-parallel"}) {
            ExperimentConfig c = small(mode, 2, "--optimizer sgd --momentum 0.9");
            c.device = Device::Cuda;
            const StrategyTraits* traits = findStrategy(c);
            if (!traits)
                continue; // a build without the GPU modes' entries at all
            QVERIFY2(traits->cuda, mode);
            QVERIFY2(!fieldApplies(field, *traits, c), mode);
            if (traits->unavailable.empty())
                QVERIFY(issueSays(issuesOf(c), "on the GPU keeps its SGD momentum"));
        }
    }

    // --out keeps the shared state once, with its step count; --resume
    // continues it: 1 + 1 epochs end bit for bit where 2 did, state and
    // count too. A state kept the other way is refused, naming the flag.
    void resumeKeepsSharedStateBitForBit() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        ExperimentConfig c = small("threads", 1, "--optimizer adam --lr 0.003");
        c.epochs = 2;
        const auto whole = runToEnd(c);
        ExperimentConfig half = c;
        half.epochs = 1;
        const auto first = runToEnd(half);
        std::filesystem::create_directories(dir / "half");
        first->writeWeights(dir / "half" / "weights.safetensors");
        first->writeOptimizerState(dir / "half" / "optimizer.safetensors");
        std::map<std::string, std::string> meta;
        const std::vector<Tensor> saved =
            readSafetensors(dir / "half" / "optimizer.safetensors", &meta);
        QCOMPARE(meta["optimizer_state"], std::string("shared"));
        QCOMPARE(meta["shared_step"], std::to_string(first->summary().steps));
        QVERIFY(std::all_of(saved.begin(), saved.end(),
                            [](const Tensor& t) { return t.name.rfind("state.", 0) == 0; }));
        ExperimentConfig rest = c;
        rest.resume = (dir / "half").string();
        const auto resumed = runToEnd(rest);
        QCOMPARE(resumed->summary().state, RunState::Finished);
        QVERIFY2(resumed->parameters() == whole->parameters(), "the resumed run ended elsewhere");
        whole->writeOptimizerState(dir / "whole.safetensors");
        resumed->writeOptimizerState(dir / "resumed.safetensors");
        std::map<std::string, std::string> wholeMeta, resumedMeta;
        const auto a = readSafetensors(dir / "whole.safetensors", &wholeMeta);
        const auto b = readSafetensors(dir / "resumed.safetensors", &resumedMeta);
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY2(a[i].name == b[i].name && a[i].data == b[i].data, a[i].name.c_str());
        QCOMPARE(resumedMeta["shared_step"], wholeMeta["shared_step"]);

        ExperimentConfig other = rest;
        other.optimizerState = StateSharing::PerWorker;
        try {
            Run refused(other);
            refused.start();
            refused.stop();
            refused.wait(std::chrono::seconds(60));
            QFAIL("a shared state resumed per worker");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("resume with --optimizer-state shared"), e.what());
        }
    }

    // Several workers: the file holds the one state the store held, and a
    // resumed run's store starts from it (its count goes on from there).
    void resumedSharedStateGoesOnCounting() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        ExperimentConfig c = small("threads-locked", 2, "--optimizer adagrad --lr 0.05");
        c.epochs = 1;
        const auto first = runToEnd(c);
        first->writeWeights(dir / "weights.safetensors");
        first->writeOptimizerState(dir / "optimizer.safetensors");
        ExperimentConfig more = c;
        more.epochs = 2;
        more.resume = dir.string();
        SharedStateResume shared;
        const auto model = makeModel(c.modelSpec());
        const std::vector<WorkerResume> workers =
            readOptimizerState(dir / "optimizer.safetensors", model->layout(), more, &shared);
        QCOMPARE(workers.size(), std::size_t(2));
        QVERIFY(workers[0].state.empty() && workers[1].state.empty());
        QCOMPARE(shared.steps, first->summary().steps);
        QCOMPARE(shared.state.size(), std::size_t(model->layout().total()));
        const auto second = runToEnd(more);
        QCOMPARE(second->summary().state, RunState::Finished);
        QCOMPARE(sharedStepsRemarked(second->summary()), (long long)second->summary().steps);
        QVERIFY(second->summary().steps > first->summary().steps);
    }
};

HWL_WORKER_TEST_MAIN(TestOptimizerState)
#include "tst_optimizerstate.moc"
