// A mode is a strategy, registered: a strategy registered here, in the test
// binary, reaches every surface without any other change: the JSON reader
// and its messages, --mode and --help, the run description, the window's
// mode list (with the fields its traits name enabled), and a run.
#include "cli/commandline.h"
#include "config/fields.h"
#include "experimentform.h"
#include "run/run.h"
#include "strategy/hoststrategy.h"
#include "strategy/registry.h"
#include "util/errors.h"

#include "testutil.h"

#include <QCheckBox>
#include <QComboBox>
#include <QTest>

#include <mutex>

using namespace hwl;

namespace {

/// Threads behind one mutex, taking a failure policy: a set of settings no
/// built-in mode has.
class TestLockedThreads final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

protected:
    std::unique_ptr<UpdateRule> makeRule(const WorkerEnvironment& env,
                                         std::uint32_t) const override {
        return makeLockedUpdate(lock_, env.model.layout().total(), measureStaleness());
    }

private:
    mutable std::mutex lock_;
};

StrategyTraits testTraits() {
    StrategyTraits t;
    t.name = "test-locked";
    t.label = "test: locked threads";
    t.help = "a strategy the test binary registers";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::FailurePolicy);
    t.divergence = DivergenceKind::Staleness;
    return t;
}

ExperimentConfig small() {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:2000x20:4:8";
    c.mode = "test-locked";
    c.workers = 3;
    c.epochs = 2;
    c.momentum = 0;
    c.lr = 0.05;
    return c;
}

} // namespace

class TestStrategies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { registerStrategy({testTraits(), factoryOf<TestLockedThreads>()}); }

    void registeringTwiceIsRefused() {
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 registerStrategy({testTraits(), factoryOf<TestLockedThreads>()}));
    }

    void parsesFromJson() {
        ExperimentConfig c = ExperimentConfig::defaults();
        c.mergeJson(R"({"mode": "test-locked", "workers": 3})", "exp.json");
        QCOMPARE(c.mode, std::string("test-locked"));
        QVERIFY(c.validate().empty());
        // And the messages that list the modes list it.
        HWL_VERIFY_THROWS(c.mergeJson(R"({"mode": "bogus"})", "exp.json"), InputError,
                          "\"test-locked\"");
    }

    void parsesFromTheCommandLine() {
        const CommandLine cl = parseCommandLine({"--mode", "test-locked", "--workers=5"});
        QCOMPARE(cl.config.mode, std::string("test-locked"));
        QCOMPARE(cl.config.workers, 5);
        HWL_VERIFY_THROWS(parseCommandLine({"--mode", "nope"}), InputError, "test-locked");
    }

    void appearsInHelp() {
        const QString help = QString::fromStdString(helpText());
        QVERIFY2(help.contains("test-locked"), qPrintable(help));
        QVERIFY2(help.contains("a strategy the test binary registers"), qPrintable(help));
    }

    void describesTheRun() {
        ExperimentConfig c = small();
        QCOMPARE(describeMode(c), std::string("test-locked"));
        // Its traits take no start method and no share: share false is refused.
        c.share = false;
        const auto issues = c.validate();
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues[0].field, std::string("share"));
    }

    void appearsInTheWindowsModeList() {
        ui::ExperimentForm form;
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        QVERIFY(mode);
        const int i = mode->findText("test: locked threads");
        QVERIFY(i >= 0);
        QCOMPARE(mode->itemData(i).toString(), QString("test-locked"));
        QCOMPARE(mode->itemData(i, Qt::ToolTipRole).toString(),
                 QString("a strategy the test binary registers"));
        mode->setCurrentIndex(i);
        // The fields its traits name are enabled, the others not.
        QVERIFY(form.fieldWidget("workers")->isEnabled());
        QVERIFY(form.fieldWidget("on-worker-failure")->isEnabled());
        QVERIFY(!form.fieldWidget("start-method")->isEnabled());
        QVERIFY(!form.fieldWidget("share")->isEnabled());
        QCOMPARE(form.config().mode, std::string("test-locked"));
        QVERIFY2(form.isValid(), qPrintable(QStringList(form.problems().values()).join('\n')));
        // A round trip through the form keeps it.
        form.setConfig(small());
        QCOMPARE(mode->currentText(), QString("test: locked threads"));
        QCOMPARE(form.config().workers, 3);
    }

    void runs() {
        Run run(small());
        run.start();
        QVERIFY(run.wait(std::chrono::seconds(120)));
        const RunSummary s = run.summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 2);
        QCOMPARE(run.info().mode, std::string("test-locked"));
        QCOMPARE(s.samples, std::uint64_t(1800 * 2)); // shard: the 90% of 2000 rows not held out
        QVERIFY2(s.testAccuracy > 0.35,
                 qPrintable(QString::number(s.testAccuracy))); // chance: 0.25
    }
};

QTEST_MAIN(TestStrategies)
#include "tst_strategies.moc"
