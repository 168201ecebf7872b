// A mode is a strategy, registered: a strategy registered here, in the test
// binary, reaches every surface without any other change: the JSON reader
// and its messages, --mode and --help, the run description, the window's
// mode list (with the fields its traits name enabled), and a run.
#include "cli/commandline.h"
#include "config/fields.h"
#include "form/experimentform.h"
#include "launch/devices.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "strategy/hoststrategy.h"
#include "strategy/registry.h"
#include "util/errors.h"

#include "testutil.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>

#include <atomic>

using namespace hwl;

namespace {

std::atomic<int> gRulesMade{0};

/// Hogwild threads that count the update rules they make (so a run proves
/// it ran this strategy) and take a failure policy: a set of settings no
/// built-in mode has. Like every mode that trains host parameters it derives
/// from HostStrategy (strategy/hoststrategy.h), which owns the parts it needs
/// (strategy/hostparts.h): here the run's one store and data.
class CountingStrategy final : public HostStrategy {
public:
    using HostStrategy::HostStrategy;

    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override {
        ++gRulesMade;
        auto rule = makeHogwildUpdate(env.model.layout().total(), config_.workers > 1,
                                      countedUpdates(env, rank));
        return hostSetup(env, rank, std::move(rule));
    }
};

StrategyTraits testTraits() {
    StrategyTraits t;
    t.name = "test-counting";
    t.label = "test: counting threads";
    t.help = "a strategy the test binary registers";
    t.settings = unsigned(StrategySetting::Workers) | unsigned(StrategySetting::FailurePolicy);
    t.divergence = DivergenceKind::Staleness;
    return t;
}

ExperimentConfig small() {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:2000x20:4:8";
    c.mode = "test-counting";
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
    void initTestCase() {
        // Its own validation on top of what the traits say: odd worker counts only.
        auto odd = [](const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
            if (c.workers % 2 == 0)
                issues.push_back({"workers", "test-counting runs an odd number of workers (got " +
                                                 std::to_string(c.workers) + ")"});
        };
        registerStrategy({testTraits(), factoryOf<CountingStrategy>(), odd});
    }

    void itsValidatorReachesEverySurface() {
        ExperimentConfig c = small();
        c.workers = 4;
        const auto issues = validateExperiment(c);
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues[0].field, std::string("workers"));
        HWL_VERIFY_THROWS(Run{c}, InputError,
                          "test-counting runs an odd number of workers (got 4)");
        ui::ExperimentForm form;
        form.setConfig(c);
        QVERIFY(!form.isValid());
        QVERIFY(form.problems().value("workers").contains("an odd number of workers"));
        c.workers = 3;
        form.setConfig(c);
        QVERIFY(form.isValid());
    }

    void registeringTwiceIsRefused() {
        QVERIFY_THROWS_EXCEPTION(
            std::logic_error, registerStrategy({testTraits(), factoryOf<CountingStrategy>(), {}}));
    }

    void parsesFromJson() {
        ExperimentConfig c = ExperimentConfig::defaults();
        c.mergeJson(R"({"mode": "test-counting", "workers": 3})", "exp.json");
        QCOMPARE(c.mode, std::string("test-counting"));
        QVERIFY(validateExperiment(c).empty());
        // And the messages that list the modes list it: a file's unknown
        // mode is refused with the experiment (the modes are the strategies').
        c.mergeJson(R"({"mode": "bogus"})", "exp.json");
        const auto issues = validateExperiment(c);
        QVERIFY(!issues.empty() && issues[0].field == "mode" &&
                issues[0].message.find("\"test-counting\"") != std::string::npos);
    }

    void parsesFromTheCommandLine() {
        const CommandLine cl = parseCommandLine({"--mode", "test-counting", "--workers=5"});
        QCOMPARE(cl.config.mode, std::string("test-counting"));
        QCOMPARE(cl.config.workers, 5);
        HWL_VERIFY_THROWS(validateExperimentOrThrow(parseCommandLine({"--mode", "nope"}).config),
                          InputError, "test-counting");
    }

    void appearsInHelp() {
        const QString help = QString::fromStdString(helpText());
        QVERIFY2(help.contains("test-counting"), qPrintable(help));
        QVERIFY2(help.contains("a strategy the test binary registers"), qPrintable(help));
    }

    void describesTheRun() {
        ExperimentConfig c = small();
        QCOMPARE(describeMode(c), std::string("test-counting"));
        // Its traits take no start method and no share: share false is refused.
        c.share = false;
        const auto issues = validateExperiment(c);
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues[0].field, std::string("share"));
    }

    void appearsInTheWindowsModeList() {
        ui::ExperimentForm form;
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        QVERIFY(mode);
        const int i = mode->findText("test: counting threads");
        QVERIFY(i >= 0);
        QCOMPARE(mode->itemData(i).toString(), QString("test-counting"));
        QCOMPARE(mode->itemData(i, Qt::ToolTipRole).toString(),
                 QString("a strategy the test binary registers"));
        mode->setCurrentIndex(i);
        // The fields its traits name are enabled, the others not.
        QVERIFY(form.fieldWidget("workers")->isEnabled());
        QVERIFY(form.fieldWidget("on-worker-failure")->isEnabled());
        QVERIFY(!form.fieldWidget("start-method")->isEnabled());
        QVERIFY(!form.fieldWidget("share")->isEnabled());
        QCOMPARE(form.config().mode, std::string("test-counting"));
        qobject_cast<QSpinBox*>(form.fieldWidget("workers"))->setValue(3); // its validator: odd
        QVERIFY2(form.isValid(), qPrintable(QStringList(form.problems().values()).join('\n')));
        // A round trip through the form keeps it.
        form.setConfig(small());
        QCOMPARE(mode->currentText(), QString("test: counting threads"));
        QCOMPARE(form.config().workers, 3);
    }

    void runs() {
        gRulesMade = 0;
        Run run(small());
        run.start();
        QVERIFY(run.wait(std::chrono::seconds(120)));
        const RunSummary s = run.summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.epochsCompleted, 2);
        QCOMPARE(run.info().mode, std::string("test-counting"));
        QCOMPARE(gRulesMade.load(), 3);               // one per worker: this strategy ran them
        QCOMPARE(s.samples, std::uint64_t(1800 * 2)); // shard: the 90% of 2000 rows not held out
        QVERIFY2(s.testAccuracy > 0.35,
                 qPrintable(QString::number(s.testAccuracy))); // chance: 0.25
    }

    void gpuModesSayWhyTheyCannotRun() {
        // Built without CUDA: gpu-hogwild and the cuda device are listed,
        // disabled, and say why in their visible text. Built with it: they
        // are enabled, and choosing one shows the devices a child found, or
        // why there is none (no GPU here: error 35), at the device field.
        ui::ExperimentForm form;
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        auto* device = qobject_cast<QComboBox*>(form.fieldWidget("device"));
        auto* model = qobject_cast<QStandardItemModel*>(mode->model());
        QVERIFY(model && device);
        const int hogwild = mode->findData(QString("gpu-hogwild"));
        QVERIFY(hogwild >= 0);
        const QString reason = QString::fromStdString(hwl::cudaNotBuiltReason());
        if (!hwl::cudaBuilt()) {
            QVERIFY(!(model->item(hogwild)->flags() & Qt::ItemIsEnabled));
            QVERIFY(mode->itemText(hogwild).contains(reason));
            QVERIFY(device->itemText(1).contains(reason));
        } else {
            QVERIFY(model->item(hogwild)->flags() & Qt::ItemIsEnabled);
            mode->setCurrentIndex(hogwild);
            auto* note = form.findChild<QLabel*>("devicesNote");
            QVERIFY(note && !note->text().isEmpty());
            // The form's background probe answers: the devices, or why none.
            QTRY_VERIFY_WITH_TIMEOUT(form.gpuAvailabilityKnown(), 35000);
            const hwl::DeviceList list = hwl::listDevices();
            if (list.devices.empty())
                QCOMPARE(
                    form.problems().value("mode"),
                    ui::ExperimentForm::noGpuSentence(QString::fromStdString(list.unavailable)));
            else
                QVERIFY2(note->text().contains(QString::fromStdString(list.devices[0].name)),
                         qPrintable(note->text()));
        }
        for (const QString text :
             {"serial", "threads (Hogwild)", "threads (locked)", "processes (Hogwild)"}) {
            const int i = mode->findText(text);
            QVERIFY2(i >= 0, qPrintable(text));
            QVERIFY(model->item(i)->flags() & Qt::ItemIsEnabled);
        }
    }
};

int main(int argc, char** argv) {
    // The form's device probe runs this program in the probe role.
    if (int code = 0; runWorkerRoleIfRequested(argc, argv, code))
        return code;
    QApplication app(argc, argv);
    TestStrategies t;
    return QTest::qExec(&t, argc, argv);
}
#include "strategy/validation.h"
#include "tst_strategies.moc"
