// One judgement per value (issue 25): the command line and the experiment
// file accept and refuse the same values, with messages that name the
// field as that road spells it and give its limits. Each case here was
// answered wrongly before: the largest seed refused as a flag, a file's
// workers silently replaced by a mode's count, an out-of-range integer
// flag called "not an integer", a file given as an IDX folder called
// missing, an empty --out meaning "write nothing", and a split that
// data-parallel and gpu-hogwild silently ignored. The same pairs are
// fuzzed by tests/fuzz/fuzz_fields.cpp.
#include "cli/commandline.h"
#include "clitest.h"
#include "config/experimentconfig.h"
#include "config/fields.h"
#include "enginetestutil.h"
#include "util/errors.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace hwl;
using namespace hwl::test;

namespace {
std::string writeFile(const QTemporaryDir& dir, const char* name, const char* text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path.toStdString();
}
} // namespace

class TestJudgements : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

private slots:
    void theLargestSeedIsASeedOnBothRoads() {
        const CommandLine cl = parseCommandLine({"--seed", "18446744073709551615"});
        QCOMPARE(cl.config.seed, std::uint64_t(18446744073709551615ull));
        ExperimentConfig c;
        c.mergeJson(R"({"seed": 18446744073709551615})", "file");
        QCOMPARE(c.seed, cl.config.seed);
        // One past it, or below 0: refused on both, with the seed's range.
        for (const char* v : {"18446744073709551616", "-1"})
            QVERIFY2(refusal([&] {
                         parseCommandLine({"--seed", v});
                     }).startsWith("--seed: must be in 0..18446744073709551615 (got"),
                     v);
        QCOMPARE(
            refusal([&] { c.mergeJson(R"({"seed": -1})", "file"); }),
            QStringLiteral("file: field \"seed\" must be in 0..18446744073709551615 (got -1)"));
        QVERIFY(
            !refusal([&] { c.mergeJson(R"({"seed": 18446744073709551616})", "file"); }).isEmpty());
    }

    void aFilesWorkersAreChosenAsTheFlagIs() {
        const std::string file =
            writeFile(tmp_, "serial4.json", R"({"mode": "serial", "workers": 4})");
        const auto problems = [](const CommandLine& cl) {
            QString text;
            for (const ConfigIssue& i : validateExperiment(cl.config))
                text += QString::fromStdString(i.message);
            return text;
        };
        const QString file4 = problems(parseCommandLine({"--config", file}));
        const QString flag4 = problems(parseCommandLine({"--mode", "serial", "--workers", "4"}));
        QVERIFY2(file4.contains("serial mode runs exactly 1 worker (got 4)"), qPrintable(file4));
        QVERIFY2(flag4.contains("serial mode runs exactly 1 worker (got 4)"), qPrintable(flag4));
        // A file that leaves the count to the mode still gets serial's one.
        const std::string serial = writeFile(tmp_, "serial.json", R"({"mode": "serial"})");
        QCOMPARE(parseCommandLine({"--config", serial}).config.workers, 1);
        const std::string one =
            writeFile(tmp_, "serial1.json", R"({"mode": "serial", "workers": 1})");
        QCOMPARE(parseCommandLine({"--config", one}).config.workers, 1);
    }

    // `split` was read by every mode and used by serial and the Hogwild
    // modes only: data-parallel always shards. Said, not ignored.
    void aSplitItsModeDoesNotTakeIsRefused() {
        const auto problems = [](const CommandLine& cl) {
            QStringList text;
            for (const ConfigIssue& i : validateExperiment(cl.config))
                text << QString::fromStdString(i.field + ": " + i.message);
            return text.join('\n');
        };
        const std::string file = writeFile(tmp_, "dp-replicate.json",
                                           R"({"mode": "data-parallel", "split": "replicate"})");
        const QString fromFile = problems(parseCommandLine({"--config", file}));
        const QString fromFlag =
            problems(parseCommandLine({"--mode", "data-parallel", "--split", "replicate"}));
        QCOMPARE(fromFile, fromFlag);
        QVERIFY2(fromFlag.startsWith(
                     "split: split replicate applies to mode "
                     "serial, threads, threads-locked or processes only (data-parallel gives each "
                     "replica its own shard"),
                 qPrintable(fromFlag));
        // gpu-hogwild too, in a build that has it (its blocks share one walk).
        const CommandLine gpu = parseCommandLine({"--mode", "gpu-hogwild", "--split", "replicate"});
        ExperimentConfig gpuShard = gpu.config;
        gpuShard.split = DataSplit::Shard;
        if (whyGpuModeIsNotHere(gpuShard).empty())
            QVERIFY(problems(gpu).contains("split replicate applies to mode serial, threads"));
        // The modes that take it stay accepted, and the default where it is
        // not given; given, even at its default, it is refused (issue 50).
        for (const char* mode : {"serial", "threads", "threads-locked", "processes"})
            QVERIFY2(problems(parseCommandLine({"--mode", mode, "--split", "replicate"})).isEmpty(),
                     mode);
        QVERIFY(problems(parseCommandLine({"--mode", "data-parallel"})).isEmpty());
        QVERIFY(problems(parseCommandLine({"--mode", "data-parallel", "--split", "shard"}))
                    .startsWith("split: split shard applies to mode serial"));
        const Result run = runCli({"--mode", "data-parallel", "--workers", "2", "--split",
                                   "replicate", "--epochs", "1", "--quiet"});
        QCOMPARE(run.code, 2);
        QVERIFY(!run.out.contains("summary:"));
    }

    // Issue 50, point 9: --optimizer rmsprop --momentum 0.9 (torch's
    // RMSprop(momentum=0.9)) trained plain RMSprop while --momentum 0 was
    // refused: only values away from the default were judged. A field the
    // user gives is judged whatever its value, named as it was given.
    void aGivenFieldIsJudgedWhateverItsValue() {
        const auto refused = [](const std::vector<std::string>& args) {
            return refusal([&] { validateExperimentOrThrow(parseCommandLine(args).config); });
        };
        for (const char* optimizer : {"rmsprop", "adam", "adagrad"})
            for (const char* momentum : {"0.9", "0"}) {
                const QString why = refused({"--optimizer", optimizer, "--momentum", momentum});
                QVERIFY2(why.contains("\n  --momentum: momentum applies to --optimizer sgd only"),
                         qPrintable(why));
                QVERIFY2(why.contains("; drop it"), qPrintable(why));
                QVERIFY2(refused({"--optimizer", optimizer}).isEmpty(), optimizer);
            }
        QVERIFY(
            refused({"--optimizer", "rmsprop", "--momentum", "0"}).contains("RMSprop(momentum"));
        QVERIFY(refused({"--optimizer", "sgd", "--momentum", "0"}).isEmpty());
        // A file's key is given as the flag is, named by the file.
        const std::string file =
            writeFile(tmp_, "rmsprop.json", R"({"optimizer": "rmsprop", "momentum": 0.9})");
        QVERIFY2(refused({"--config", file})
                     .contains(QString::fromStdString("  config \"" + file + "\": field " +
                                                      "\"momentum\": momentum applies to")),
                 qPrintable(refused({"--config", file})));
        // The mode's fields and the model's too, at their defaults.
        QVERIFY(refused({"--mode", "threads", "--start-method", "forkserver"})
                    .contains("--start-method: start-method forkserver applies to mode processes"));
        QVERIFY(refused({"--mode", "serial", "--transport", "threads"})
                    .contains("--transport: transport threads applies to mode data-parallel"));
        QVERIFY(refused({"--model", "mlp:784-10", "--dropout", "0.5"})
                    .contains("--dropout: dropout applies to the model's dropout layers"));
        // What the mode judges itself stays its own: serial takes one worker.
        QVERIFY(refused({"--mode", "serial", "--workers", "1"}).isEmpty());
        const Result run = runCli(QStringList(kSmall) << "--optimizer"
                                                      << "rmsprop"
                                                      << "--momentum"
                                                      << "0.9"
                                                      << "--quiet");
        QCOMPARE(run.code, 2);
        QVERIFY2(!run.out.contains("summary:"), qPrintable(run.describe()));
    }

    // What a run writes for --config (its experiment.json, the window's
    // Save) holds the fields that apply, so it is read back without refusal.
    void anExperimentFileIsReadBackWithoutRefusal() {
        ExperimentConfig c;
        c.optimizer = OptimizerKind::RmsProp;
        c.mode = "serial";
        c.workers = 1;
        c.model = "mlp:784-10";
        const std::string file = writeFile(tmp_, "written.json", experimentFileJson(c).c_str());
        const CommandLine cl = parseCommandLine({"--config", file});
        QVERIFY(validateExperiment(cl.config).empty());
        QCOMPARE(experimentFileJson(cl.config), experimentFileJson(c));
        for (const char* key : {"\"momentum\"", "\"transport\"", "\"dropout\"", "\"blocks\""})
            QVERIFY2(experimentFileJson(c).find(key) == std::string::npos, key);
        // An earlier version's experiment.json listed every field, applying
        // or not: it stays usable with --config, its fields judged by value.
        const std::string old = writeFile(tmp_, "every-field.json", c.toJson().c_str());
        const CommandLine earlier = parseCommandLine({"--config", old});
        QVERIFY(validateExperiment(earlier.config).empty());
        c.momentum = 0.5; // away from its default where it does not apply: refused as before
        const std::string away = writeFile(tmp_, "every-field-away.json", c.toJson().c_str());
        QVERIFY(!validateExperiment(parseCommandLine({"--config", away}).config).empty());
    }

    // The mode's message lost where it came from ("mode: unknown mode"):
    // it names the flag, or the file and its field.
    void anUnknownModeSaysWhereItCameFrom() {
        const auto refused = [](const std::vector<std::string>& args) {
            return refusal([&] { validateExperimentOrThrow(parseCommandLine(args).config); });
        };
        QVERIFY2(refused({"--mode", "gpu"}).contains("\n  --mode: unknown mode \"gpu\"; expected"),
                 qPrintable(refused({"--mode", "gpu"})));
        const std::string file = writeFile(tmp_, "gpu.json", R"({"mode": "gpu"})");
        QVERIFY(refused({"--config", file})
                    .contains(QString::fromStdString("\n  config \"" + file +
                                                     "\": field \"mode\": unknown mode \"gpu\"")));
        const Result r = runCli({"--mode", "gpu", "--quiet"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--mode: unknown mode \"gpu\""), qPrintable(r.describe()));
    }

    void anIntegerPastTheFieldSaysItsRange() {
        QCOMPARE(refusal([] {
                     parseCommandLine({"--workers", "99999999999"});
                 }),
                 QStringLiteral("--workers: must be in 1..256 (got 99999999999) (see --help)"));
        QCOMPARE(refusal([] {
                     parseCommandLine({"--workers", "-99999999999999999999"});
                 }),
                 QStringLiteral(
                     "--workers: must be in 1..256 (got -99999999999999999999) (see --help)"));
        ExperimentConfig c;
        QCOMPARE(refusal([&] { c.mergeJson(R"({"workers": 99999999999})", "file"); }),
                 QStringLiteral("file: field \"workers\" must be in 1..256 (got 99999999999)"));
        // Not an integer at all: said so, on both roads.
        QVERIFY(refusal([] {
                    parseCommandLine({"--workers", "4x"});
                }).startsWith("--workers: expected an integer, got \"4x\""));
        QVERIFY(refusal([&] {
                    c.mergeJson(R"({"workers": "4"})", "file");
                }).contains("must be an integer"));
        // Within int32 but past the range: the experiment's own check says the same range.
        ExperimentConfig zero;
        zero.workers = 0;
        QCOMPARE(QString::fromStdString(validateExperiment(zero).front().message),
                 QStringLiteral("workers must be in 1..256 (got 0)"));
    }

    void aFileGivenAsAnIdxFolderIsNamedAsAFile() {
        const std::string file = writeFile(tmp_, "labels.bin", "not a folder");
        const Result r = runCli(
            {"--dataset", QString::fromStdString("idx:" + file), "--epochs", "1", "--quiet"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QString::fromStdString("idx: \"" + file +
                                                       "\" is a file, not a directory: name the "
                                                       "folder that holds the IDX files")),
                 qPrintable(r.describe()));
        QVERIFY(!r.err.contains("does not exist"));
    }

    void anEmptyPathIsAnError() {
        for (const char* flag : {"--out=", "--tensorboard=", "--init="}) {
            const Result r = runCli(QStringList(kSmall) << flag << "--quiet");
            QCOMPARE(r.code, 2);
            const QString name = QString(flag).chopped(1);
            QVERIFY2(r.err.contains(name + ": an empty path; name a"), qPrintable(r.describe()));
            QVERIFY(!r.out.contains("summary:")); // nothing trained
        }
        // In a file an empty path is what toJson() writes for "none".
        ExperimentConfig c;
        c.mergeJson(R"({"out": "", "tensorboard": "", "init": ""})", "file");
        QVERIFY(c.out.empty() && validateExperiment(c).empty());
    }

    // Every entry point names the flag a typo meant (--compare too, which
    // is read before the others), and the window sends a command-line flag
    // to --headless rather than saying only that it does not know it.
    void everyEntryPointSuggestsTheFlag() {
        RUN_CLI(headless, {"--compre", "x"});
        QVERIFY2(headless.code == 2 && headless.err.contains("did you mean --compare?"),
                 qPrintable(headless.describe()));
        const QList<QPair<QStringList, QString>> window{
            {{"--compre", "x"}, "error: --compre: unknown option; did you mean --compare?"},
            {{"--epoch", "3"}, "error: --epoch: unknown option; did you mean --epochs?"},
            {{"--presentaton"},
             "error: --presentaton: unknown option; did you mean "
             "--presentation?"},
            {{"--epochs", "3"},
             "error: --epochs is an option of the command line, not of the "
             "window: add --headless (hogwild-lab --headless --epochs ...)"}};
        for (const auto& [args, said] : window) {
            const Result r = runWindowApp(args, "offscreen");
            QVERIFY2(r.code == 2 && r.err.contains(said), qPrintable(said + "\n" + r.describe()));
        }
    }
};

QTEST_GUILESS_MAIN(TestJudgements)
#include "strategy/validation.h"
#include "tst_judgements.moc"
