// The optimizers (--optimizer, optim/optimizerspec.h): each update rule,
// given the gradients torch.optim 1.13 computed on a small model over 100
// steps at a StepLR rate, ends where torch's optimizer ended, parameters and
// state within 1e-6 relative, ||ours - torch|| / ||torch|| (about 1e-7: the
// roundings differ where one side fuses a multiply-add; the SGD kernels do,
// and stay as they are) (tests/data/optimizer-parity.safetensors, made
// by make_optimizer_parity.py with torch; this test needs no torch). Every
// entry point a mode updates through (the private update, the Hogwild one,
// the counted one for --lost-updates, data-parallel's range by range) gives
// the same bits; plain SGD still runs the SIMD kernels bit for bit; every
// CPU mode trains with every rule; and the GPU modes refuse every optimizer
// but SGD by name, before the run.
#include "backend/hostupdate.h"
#include "config/fields.h"
#include "enginetestutil.h"
#include "io/tensorfile.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "strategy/catalog.h"
#include "strategy/devicestrategy.h"
#include "strategy/strategy.h"
#include "strategy/validation.h"
#include "testpaths.h"
#include "testutil.h"
#include "workertestmain.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace hwl;

namespace {
constexpr double kRelative = 1e-6;

/// The reference file's tensors by name, and its cases' metadata.
struct Reference {
    std::map<std::string, Tensor> tensors;
    nlohmann::json cases;

    static const Reference& get() {
        static const Reference r = [] {
            Reference ref;
            std::map<std::string, std::string> meta;
            const std::string file =
                std::string(test::kSourceDir) + "/tests/data/optimizer-parity.safetensors";
            for (Tensor& t : readSafetensors(file, &meta))
                ref.tensors[t.name] = std::move(t);
            ref.cases = nlohmann::json::parse(meta.at("cases"));
            return ref;
        }();
        return r;
    }
    const Tensor& at(const std::string& name) const { return tensors.at(name); }
};

/// An experiment with the case's optimizer and fields, set as the flags set them.
ExperimentConfig configOf(const nlohmann::json& c) {
    ExperimentConfig config;
    applyFlag(config, "--optimizer", c.at("optimizer").get<std::string>());
    for (const auto& [key, value] : c.at("fields").items()) {
        if (value.is_boolean())
            applyFlag(config, "--" + key, std::nullopt);
        else
            applyFlag(config, "--" + key, value.dump());
    }
    return config;
}

enum class Path { Private, Shared, Counted, Ranges };

/// The case's 100 steps through one entry point; the parameters and state after them.
std::pair<std::vector<float>, std::vector<float>> train(const std::string& name, Path path) {
    const Reference& ref = Reference::get();
    const auto it = std::find_if(ref.cases.begin(), ref.cases.end(),
                                 [&](const auto& c) { return c.at("name") == name; });
    const ExperimentConfig config = configOf(*it);
    std::vector<float> params = ref.at(name + ".init").data;
    const auto total = std::int64_t(params.size());
    const Tensor& grads = ref.at(name + ".grads");
    const std::vector<float>& lrs = ref.at(name + ".lrs").data;
    HostUpdate update(total, optimizerOf(config).spec, 0, 1);
    Gradient<float> g;
    g.values.resize(std::size_t(total));
    g.segments = {{0, total, 0}};
    std::vector<std::uint32_t> versions(std::size_t(hogwild::versionBlocks(total)), 0);
    hogwild::UpdateTally tally;
    for (std::size_t step = 0; step < lrs.size(); ++step) {
        std::copy_n(grads.data.begin() + std::ptrdiff_t(step * std::size_t(total)), total,
                    g.values.begin());
        update.setLearningRate(lrs[step]);
        update.setStepCount(step);
        switch (path) {
        case Path::Private:
            update.update(params.data(), g, UpdateAccess::Private);
            break;
        case Path::Shared:
            update.update(params.data(), g, UpdateAccess::Shared);
            break;
        case Path::Counted:
            update.counted(params.data(), versions.data(), g, tally);
            break;
        case Path::Ranges: // as data-parallel's buckets: the last 20 first
            update.range(params.data(), g.values.data() + (total - 20), total - 20, 20);
            update.range(params.data(), g.values.data(), 0, total - 20);
            break;
        }
    }
    const std::span<float> state = update.optimizerState();
    return {params, std::vector<float>(state.begin(), state.end())};
}

/// ||a - b|| / ||b||: the error relative to the tensor's size, as
/// tests/backendcheck.h bounds a backend's (one element near 0 would make
/// an element-wise ratio measure the rounding of its neighbours).
double worstRelative(const std::vector<float>& a, const std::vector<float>& b) {
    double diff = 0, size = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        size += double(b[i]) * double(b[i]);
    }
    return std::sqrt(diff / size);
}
} // namespace

class TestOptimizers : public QObject {
    Q_OBJECT

private slots:
    void matchesTorchOptim_data() {
        QTest::addColumn<QString>("name");
        for (const auto& c : Reference::get().cases) {
            const std::string name = c.at("name");
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }

    // 100 steps of each rule end where torch's ended, parameters and state.
    void matchesTorchOptim() {
        QFETCH(QString, name);
        const std::string n = name.toStdString();
        const Reference& ref = Reference::get();
        const auto [params, state] = train(n, Path::Private);
        const std::vector<float>& expected = ref.at(n + ".final").data;
        QCOMPARE(params.size(), expected.size());
        QVERIFY(params != ref.at(n + ".init").data); // it trained
        const double worst = worstRelative(params, expected);
        QVERIFY2(worst <= kRelative, qPrintable(QString("parameters off by %1").arg(worst)));
        const auto it = std::find_if(ref.cases.begin(), ref.cases.end(),
                                     [&](const auto& c) { return c.at("name") == n; });
        const std::vector<const char*> keys = optimizerOf(configOf(*it)).spec.stateNames();
        QCOMPARE(state.size(), keys.size() * params.size());
        for (std::size_t k = 0; k < keys.size(); ++k) {
            const std::vector<float>& want = ref.at(n + ".state." + keys[k]).data;
            const std::vector<float> got(state.begin() + std::ptrdiff_t(k * params.size()),
                                         state.begin() + std::ptrdiff_t((k + 1) * params.size()));
            const double off = worstRelative(got, want);
            QVERIFY2(off <= kRelative, qPrintable(QString("%1 off by %2").arg(keys[k]).arg(off)));
        }
    }

    void everyEntryPointGivesTheSameBits_data() { matchesTorchOptim_data(); }

    // The Hogwild update, the counted one and data-parallel's ranges apply
    // the same rule as the private update: on one worker, the same bits.
    void everyEntryPointGivesTheSameBits() {
        QFETCH(QString, name);
        const std::string n = name.toStdString();
        const auto reference = train(n, Path::Private);
        for (const Path path : {Path::Shared, Path::Counted, Path::Ranges})
            QVERIFY2(train(n, path) == reference, qPrintable(QString::number(int(path))));
    }

    // Plain SGD goes on through the SIMD kernels (util/cpukernels.h): the
    // host update gives the bits of applySgd() itself.
    void sgdKeepsItsKernels() {
        const Tensor& grads = Reference::get().at("sgd-momentum.grads");
        const auto total = std::int64_t(grads.shape.at(1));
        std::vector<float> a(Reference::get().at("sgd-momentum.init").data), b = a;
        std::vector<float> velocity(std::size_t(total), 0.0f);
        const SgdSettings sgd{0.05f, 0.9f, 1e-4f};
        OptimizerSpec spec;
        spec.sgd = sgd;
        QVERIFY(spec.usesSgdKernels());
        HostUpdate update(total, spec, 0, 1);
        Gradient<float> g;
        g.values.assign(grads.data.begin(), grads.data.begin() + total);
        g.segments = {{0, total, 0}};
        for (int step = 0; step < 10; ++step) {
            update.setStepCount(std::uint64_t(step));
            update.update(a.data(), g, UpdateAccess::Private);
            applySgd(b.data(), g, velocity.data(), sgd);
        }
        QVERIFY(a == b);
        const std::span<float> state = update.optimizerState();
        QVERIFY(std::equal(state.begin(), state.end(), velocity.begin(), velocity.end()));
    }

    // Every CPU mode trains with every rule: serial, Hogwild threads (the
    // racy update; with --lost-updates, the counted one), locked threads,
    // Hogwild processes (spawned: the worker builds its optimizer from the
    // experiment), unshared replicas (the parent's copy stays, as the
    // pitfall says, while each replica learns) and data-parallel (whose
    // replicas, each with its own state, stay bit-identical).
    void everyCpuModeTrainsWithEachRule_data() {
        QTest::addColumn<QStringList>("mode");
        QTest::newRow("serial") << QStringList{"--mode", "serial", "--workers", "1"};
        QTest::newRow("threads") << QStringList{"--mode", "threads"};
        QTest::newRow("threads, lost updates counted")
            << QStringList{"--mode", "threads", "--lost-updates"};
        QTest::newRow("threads-locked") << QStringList{"--mode", "threads-locked"};
        QTest::newRow("processes, spawn")
            << QStringList{"--mode", "processes", "--start-method", "spawn"};
        QTest::newRow("unshared replicas") << QStringList{"--mode", "processes", "--no-share"};
        QTest::newRow("data-parallel") << QStringList{"--mode", "data-parallel"};
    }
    void everyCpuModeTrainsWithEachRule() {
        QFETCH(QStringList, mode);
        const bool unshared = mode.contains("--no-share");
        for (const char* rule :
             {"sgd --nesterov --lr 0.05", "adam --lr 0.003", "adamw --lr 0.003 --weight-decay 0.01",
              "rmsprop --lr 0.003", "adagrad --lr 0.05"}) {
            ExperimentConfig c;
            c.model = "mlp:20-16-4";
            c.dataset = "teacher:4000x20:4:16";
            c.epochs = 3;
            const QStringList flags = mode + ("--optimizer " + QString(rule)).split(' ');
            test::applyFlags(c, flags);
            const auto run = test::runToEnd(c);
            const RunSummary& s = run->summary();
            const QString what = flags.join(' ');
            QVERIFY2(s.state == RunState::Finished, qPrintable(what + ": " + s.failure.c_str()));
            QVERIFY2(s.trainLoss < 1.0,
                     qPrintable(what + QString(": train loss %1").arg(s.trainLoss)));
            if (mode.contains("data-parallel")) { // the replicas stay one model, state and all
                QCOMPARE(int(s.divergence.size()), c.workers);
                for (const double d : s.divergence)
                    QVERIFY2(d == 0, qPrintable(what + QString(": divergence %1").arg(d)));
            }
            if (unshared) // the pitfall: the parent's copy, which is tested, never changes
                QVERIFY2(s.testAccuracy < 0.5, qPrintable(what));
            else
                QVERIFY2(s.testAccuracy > 0.65,
                         qPrintable(what + QString(": accuracy %1").arg(s.testAccuracy)));
        }
    }

    // The GPU modes train with SGD on the device: any other optimizer, or
    // Nesterov, is refused by name before the run (their validators'
    // checkDeviceOptimizer(); through validateExperiment() where this build
    // has the GPU modes: a build without CUDA refuses the modes themselves);
    // the CPU modes take them all.
    void gpuModesRefuseOtherOptimizers_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("cuda");
        QTest::newRow("gpu-hogwild") << QString("gpu-hogwild") << false;
        QTest::newRow("data-parallel on cuda") << QString("data-parallel") << true;
    }
    void gpuModesRefuseOtherOptimizers() {
        QFETCH(QString, mode);
        QFETCH(bool, cuda);
        ExperimentConfig base;
        base.mode = mode.toStdString();
        base.workers = 2;
        base.momentum = 0;
        if (cuda)
            base.device = Device::Cuda;
        const StrategyTraits* traits = findStrategy(base);
        QVERIFY(traits);
        const bool built = traits->unavailable.empty();
        QStringList mismatches; // where validateExperiment() says other than the check does
        auto issuesOf = [&](const std::vector<std::string>& flags) -> std::vector<ConfigIssue> {
            ExperimentConfig c = base;
            for (std::size_t i = 0; i < flags.size(); i += 2)
                applyFlag(c, flags[i],
                          flags[i + 1].empty() ? std::nullopt : std::optional(flags[i + 1]));
            std::vector<ConfigIssue> issues;
            checkDeviceOptimizer(c, c.mode, issues);
            if (built) { // the validation says each of them, and nothing else of these fields
                std::vector<std::string> said;
                for (const ConfigIssue& i : validateExperiment(c))
                    if (i.field == "optimizer" || i.field == "nesterov")
                        said.push_back(i.message);
                std::vector<std::string> checked;
                for (const ConfigIssue& i : issues)
                    checked.push_back(i.message);
                if (said != checked)
                    mismatches << QString::fromStdString(flags.at(1) + ": " +
                                                         (said.empty() ? "-" : said.front()));
            }
            return issues;
        };
        auto says = [](const std::vector<ConfigIssue>& issues, const char* field,
                       const std::string& words) {
            return std::any_of(issues.begin(), issues.end(), [&](const ConfigIssue& i) {
                return i.field == field && i.message.find(words) != std::string::npos;
            });
        };
        for (const char* kind : {"adam", "adamw", "rmsprop", "adagrad"}) {
            const auto issues = issuesOf({"--optimizer", kind});
            QVERIFY2(says(issues, "optimizer",
                          base.mode + " on the GPU takes --optimizer sgd, not " + kind),
                     kind);
        }
        const auto nesterov = issuesOf({"--momentum", "0.9", "--nesterov", ""});
        QVERIFY(says(nesterov, "nesterov", "without --nesterov"));
        QVERIFY(issuesOf({"--optimizer", "sgd"}).empty());
        // The CPU modes take every optimizer.
        for (const char* kind : {"adam", "adamw", "rmsprop", "adagrad"}) {
            ExperimentConfig cpu;
            cpu.mode = "data-parallel";
            applyFlag(cpu, "--optimizer", std::string(kind));
            QVERIFY(validateExperiment(cpu).empty());
        }
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(", ")));
        if (!built)
            qInfo("this build has no GPU modes: their validators' check tested alone");
    }

    // Each hyper-parameter belongs to its optimizers: set for another, it is
    // refused by name (the field table's needs), as torch would not take it.
    void hyperParametersBelongToTheirOptimizer() {
        ExperimentConfig c;
        c.mode = "serial";
        c.workers = 1;
        applyFlag(c, "--beta1", std::string("0.8"));
        auto issues = validateExperiment(c);
        QVERIFY(std::any_of(issues.begin(), issues.end(), [](const ConfigIssue& i) {
            return i.field == "beta1" &&
                   i.message.find("applies to --optimizer adam or adamw only") != std::string::npos;
        }));
        applyFlag(c, "--optimizer", std::string("adam"));
        QVERIFY(validateExperiment(c).empty());
        applyFlag(c, "--momentum", std::string("0.5"));
        issues = validateExperiment(c);
        QVERIFY(!issues.empty() && issues.front().field == "momentum");
        ExperimentConfig n;
        n.mode = "serial";
        n.workers = 1;
        n.momentum = 0;
        applyFlag(n, "--nesterov", std::nullopt);
        issues = validateExperiment(n);
        QVERIFY(!issues.empty() &&
                issues.front().message.find("nesterov needs a momentum") != std::string::npos);
    }
};

HWL_WORKER_TEST_MAIN(TestOptimizers)
#include "tst_optimizers.moc"
