// The headless command line end to end (the built binary through QProcess):
// exit status, output, files written, no shared-memory segment left behind.
// Signals and limits: tst_clisignals; other tools reading files: tst_interop.
#include "clitest.h"
#include "launch/devices.h"
#include "preset/presets.h"
#include "testpaths.h"

#include <limits>

using namespace hwl::test;

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    BaseRun base_; ///< the standard run, made in initTestCase

private slots:
    void initTestCase() {
        base_.make();
        QVERIFY(tmp_.isValid());
    }

    void help_data() {
        QTest::addColumn<QString>("flag");
        QTest::newRow("--help") << "--help";
        QTest::newRow("-h") << "-h";
    }

    void help() {
        QFETCH(QString, flag);
        RUN_CLI(r, {flag});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY(r.err.isEmpty());
        QVERIFY(r.out.contains("Usage: hogwild-lab --headless [options]"));
        for (const char* documented :
             {"--config",        "--mode",         "--workers", "--model",
              "--dataset",       "--epochs",       "--batch",   "--lr",
              "--momentum",      "--weight-decay", "--seed",    "--split",
              "--test-fraction", "--no-shuffle",   "--init",    "--out",
              "--quiet",         "--help",         "--version", "--transport",
              "--hostfile",      "--mpirun-args"}) {
            const QRegularExpression line(
                QStringLiteral("^  %1\\b").arg(QRegularExpression::escape(documented)),
                QRegularExpression::MultilineOption);
            QVERIFY2(r.out.contains(line), documented);
        }
        for (const QString& line : r.out.split('\n')) // wrapped for a terminal
            QVERIFY2(line.size() <= 79, qPrintable(line));
        for (const char* exitCode : {"0 success", "1 failure", "2 invalid", "130 interrupted"})
            QVERIFY2(r.out.contains(exitCode), exitCode);
        // --help wins over the rest and runs nothing.
        RUN_CLI(r2, kSmall + QStringList{flag});
        QCOMPARE(r2.code, 0);
        QCOMPARE(r2.out, r.out);
    }

    void version() {
        RUN_CLI(r, {"--version"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(QRegularExpression(
                     R"(^hogwild-lab \d+\.\d+\.\d+\nCPU kernels: \S+ \([^\n]+\)[^\n]*\n$)")
                     .match(r.out)
                     .hasMatch(),
                 qPrintable(r.out));
        QVERIFY(r.err.isEmpty());
    }

    void successfulRun() {
        RUN_CLI(r, kSmall);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(!r.err.contains("error"), qPrintable(r.describe()));
        const QRegularExpression workerLine(R"(^epoch (\d+)  worker (\d+)  loss \d+\.\d+  \()");
        const QRegularExpression testLine(
            R"(^epoch (\d+)  test loss \d+\.\d+  accuracy \d+\.\d+%$)");
        QMap<QPair<int, int>, int> workerEpochs;
        QMap<int, int> testEpochs;
        int summaries = 0;
        bool rate = false;
        for (const QString& line : r.lines()) {
            if (const auto m = workerLine.match(line); m.hasMatch())
                ++workerEpochs[{m.captured(1).toInt(), m.captured(2).toInt()}];
            else if (const auto t = testLine.match(line); t.hasMatch())
                ++testEpochs[t.captured(1).toInt()];
            else if (line.startsWith("summary:")) {
                ++summaries;
                rate = rate || line.contains(QRegularExpression(R"(: [\d.]+[kM]? samples/s$)"));
            }
        }
        QMap<QPair<int, int>, int> expectedWorkers;
        for (int epoch = 1; epoch <= 2; ++epoch)
            for (int worker = 0; worker < 2; ++worker)
                expectedWorkers[{epoch, worker}] = 1;
        QCOMPARE(workerEpochs, expectedWorkers);
        QCOMPARE(testEpochs, (QMap<int, int>{{1, 1}, {2, 1}}));
        QVERIFY2(summaries >= 1 && rate, qPrintable(r.out));
        QVERIFY2(r.out.contains("summary: finished after 2 of 2 epochs"), qPrintable(r.out));
        QVERIFY2(r.out.contains("summary: final test accuracy"), qPrintable(r.out));
        QVERIFY(r.out.startsWith("experiment: mlp:20-32-4 on teacher:2000x20:4, mode threads, 2 "
                                 "workers, 2 epochs"));
        QVERIFY(!r.out.contains("wrote ")); // no --out, nothing written
    }

    void quietRun() {
        RUN_CLI(r, kSmall + QStringList{"--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(!r.out.contains("worker 0  loss"), qPrintable(r.out));
        QVERIFY(r.out.contains("summary:"));
    }

    void outputFiles() {
        QCOMPARE(dirEntries(base_.out), kOutputFiles); // no temp files left over

        // metrics.csv
        const QStringList csv = readLines(base_.out + "/metrics.csv");
        QVERIFY(!csv.isEmpty());
        QCOMPARE(csv.first(), QStringLiteral("worker,epoch,step,samples,loss,time,kind,divergence,"
                                             "accuracy"));
        QMap<int, int> evalRows;
        QSet<QPair<int, int>> epochRows;
        for (int i = 1; i < csv.size(); ++i) {
            const QStringList cells = csv[i].split(',');
            QVERIFY2(cells.size() == 9, qPrintable(csv[i]));
            const QString kind = cells[6];
            QVERIFY2(kind == "step" || kind == "epoch" || kind == "eval", qPrintable(csv[i]));
            if (kind == "eval") {
                QCOMPARE(cells[0], QStringLiteral("-1"));
                ++evalRows[cells[1].toInt()];
                const double accuracy = cells[8].toDouble();
                QVERIFY2(accuracy >= 0 && accuracy <= 1, qPrintable(csv[i]));
            } else if (kind == "epoch") {
                epochRows.insert({cells[1].toInt(), cells[0].toInt()});
            }
        }
        QCOMPARE(evalRows, (QMap<int, int>{{1, 1}, {2, 1}}));
        QCOMPARE(epochRows, (QSet<QPair<int, int>>{{1, 0}, {1, 1}, {2, 0}, {2, 1}}));

        // experiment.json records the flags.
        const QJsonObject e = readJsonObject(base_.out + "/experiment.json");
        QCOMPARE(e.value("model").toString(), QStringLiteral("mlp:20-32-4"));
        QCOMPARE(e.value("dataset").toString(), QStringLiteral("teacher:2000x20:4"));
        QCOMPARE(e.value("mode").toString(), QStringLiteral("threads-locked"));
        QCOMPARE(e.value("workers").toInt(), 2);
        QCOMPARE(e.value("epochs").toInt(), 2);
        QCOMPARE(e.value("batch").toInt(), 16);
        QCOMPARE(e.value("lr").toDouble(), 0.05);
        QCOMPARE(e.value("momentum").toDouble(), 0.5);
        QCOMPARE(e.value("weight-decay").toDouble(), 0.001);
        QCOMPARE(e.value("seed").toInteger(), qint64(7));
        QCOMPARE(e.value("split").toString(), QStringLiteral("replicate"));
        QCOMPARE(e.value("test-fraction").toDouble(), 0.2);
        QCOMPARE(e.value("shuffle"), QJsonValue(false));
        QCOMPARE(e.value("init").toString(), QString());
        QCOMPARE(e.value("out").toString(), base_.out);

        // weights.safetensors: the PyTorch state_dict names and shapes.
        std::map<std::string, std::string> meta;
        const auto tensors =
            hwl::readSafetensors((base_.out + "/weights.safetensors").toStdString(), &meta);
        std::map<std::string, std::vector<std::int64_t>> shapes;
        for (const auto& t : tensors) {
            shapes[t.name] = t.shape;
            for (float v : t.data)
                QVERIFY2(std::isfinite(v), t.name.c_str());
        }
        const std::map<std::string, std::vector<std::int64_t>> expected = {
            {"0.weight", {32, 20}}, {"0.bias", {32}}, {"2.weight", {4, 32}}, {"2.bias", {4}}};
        QVERIFY(shapes == expected);
        QCOMPARE(meta["model"], std::string("mlp:20-32-4"));
        QCOMPARE(meta["dataset"], std::string("teacher:2000x20:4"));
        QCOMPARE(meta["epochs_completed"], std::string("2"));
    }

    void rerunOverwritesOutputs() {
        // The same --out again with --overwrite (without it: tst_clioutputs):
        // files are replaced, still nothing else there.
        const QString out = tmp_.filePath("rerun");
        RUN_CLI(r1, kSmall + QStringList{"--out", out, "--epochs", "1"});
        QVERIFY2(r1.code == 0, qPrintable(r1.describe()));
        RUN_CLI(r2, kSmall + QStringList{"--out", out, "--overwrite"});
        QVERIFY2(r2.code == 0, qPrintable(r2.describe()));
        QVERIFY2(r2.out.contains("wrote " + out + "/{weights.safetensors"), qPrintable(r2.out));
        QCOMPARE(dirEntries(out), kOutputFiles);
        QCOMPARE(readJsonObject(out + "/experiment.json").value("epochs").toInt(), 2);
    }

    void initFromWeights() {
        const QString weights = base_.out + "/weights.safetensors";
        const QString out = tmp_.filePath("fromInit");
        // A vanishing learning rate: the result must be the loaded weights.
        RUN_CLI(r, kSmall + QStringList{"--init", weights, "--epochs", "1", "--lr", "1e-9", "--out",
                                        out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QCOMPARE(readJsonObject(out + "/experiment.json").value("init").toString(), weights);
        const auto after = hwl::readSafetensors((out + "/weights.safetensors").toStdString());
        QCOMPARE(after.size(), base_.weights.size());
        for (std::size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].name, base_.weights[i].name);
            QVERIFY(after[i].shape == base_.weights[i].shape);
            for (std::size_t k = 0; k < after[i].data.size(); ++k)
                QVERIFY2(std::abs(after[i].data[k] - base_.weights[i].data[k]) < 1e-4f,
                         after[i].name.c_str());
        }
    }

    void initShapeMismatch() {
        const QString weights = base_.out + "/weights.safetensors";
        const QString out = tmp_.filePath("mismatch");
        RUN_CLI(r, QStringList{"--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4",
                               "--epochs", "1", "--init", weights, "--out", out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(weights), qPrintable(r.describe()));
        QVERIFY2(r.err.contains("\"0.weight\" has shape [32, 20] but the model needs [16, 20]"),
                 qPrintable(r.describe()));
        QVERIFY2(r.err.contains("\"0.bias\" has shape [32] but the model needs [16]"),
                 qPrintable(r.describe()));
        QVERIFY2(r.err.contains("\"2.weight\" has shape [4, 32] but the model needs [4, 16]"),
                 qPrintable(r.describe()));
        QVERIFY2(!r.err.contains("\"2.bias\""), qPrintable(r.describe())); // that one fits
        QVERIFY(!QFileInfo::exists(out));
    }

    // Weights that hold NaN or Inf are bad input (exit 2, naming the file
    // and the tensor), not a training failure with advice about --lr.
    void initWithNonFiniteWeightsIsRefused() {
        for (const float bad :
             {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
            auto tensors = base_.weights;
            tensors[2].data[5] = bad;
            const QString weights = tmp_.filePath("nonfinite.safetensors");
            std::vector<hwl::TensorRef> refs;
            for (const auto& t : tensors)
                refs.push_back({t.name, t.shape, t.data.data()});
            hwl::writeSafetensors(weights.toStdString(), refs);
            RUN_CLI(r, kSmall + QStringList{"--epochs", "1", "--init", weights});
            QCOMPARE(r.code, 2);
            const QString expected =
                QStringLiteral("error: init: weights file \"%1\" cannot start this "
                               "model:\n  tensor \"%2\" holds %3 at element 5")
                    .arg(weights, QString::fromStdString(tensors[2].name),
                         std::isnan(bad) ? "NaN" : "Inf");
            QVERIFY2(r.err.contains(expected), qPrintable(r.describe()));
        }
    }

    // The window's own options: help and version work without a display;
    // a bad preset lists the real ones, a bad --config says why.
    void windowOptionsAnywhere() {
        for (const QString flag : {"--help", "--version"}) {
            const Result r = runWindowApp({flag});
            QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
            QVERIFY2(r.out.contains(flag == "--help" ? "Usage:" : "Hogwild Lab 0.1"),
                     qPrintable(r.describe()));
        }
        const Result none = runWindowApp({});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("no display to open the window on"), qPrintable(none.err));
        const Result preset = runWindowApp({"--preset", "nope"}, "offscreen");
        QCOMPARE(preset.code, 2);
        QVERIFY2(preset.err.contains("error: no preset named \"nope\"; the presets are "
                                     "hogwild-vs-locked, forgot-to-share"),
                 qPrintable(preset.err));
        const Result config = runWindowApp({"--config", "/nonexistent/x.json"}, "offscreen");
        QCOMPARE(config.code, 2);
        QVERIFY2(config.err.contains("error: config \"/nonexistent/x.json\": cannot be read"),
                 qPrintable(config.err));
    }

    // A picture taken while the data still loads: saved, then the app
    // quits (it used to wait forever for the run that never started).
    void screenshotWhileLoadingQuits() {
        const QString json = tmp_.filePath("slow.json");
        writeBytes(json, R"({"dataset": "teacher:300000x100:4", "model": "mlp:100-16-4"})");
        const QString png = tmp_.filePath("loading.png");
        const Result r = runWindowApp({"--config", json, "--screenshot", png, "--after", "0.05"});
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        QVERIFY(QFileInfo(png).size() > 0);
    }

    void everyInvalidFieldIsReportedAtOnce() {
        RUN_CLI(r, {"--workers", "0", "--epochs", "0", "--lr", "-3", "--batch", "0"});
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        for (const char* needle :
             {"workers: workers must be in 1..256 (got 0)",
              "epochs: epochs must be in 1..100000 (got 0)", "lr: lr must be a number in (0, 100]",
              "batch: batch must be in 1..1048576 (got 0)"})
            QVERIFY2(r.err.contains(QLatin1String(needle)), qPrintable(r.err));
    }

    void invalidInput_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("needle");
        QTest::newRow("unknown option")
            << QStringList{"--frobnicate"} << "--frobnicate: unknown option";
        QTest::newRow("stray argument") << QStringList{"stray"} << "stray: unexpected argument";
        QTest::newRow("--worker") << QStringList{"--worker", "4"} << "did you mean --workers?";
        QTest::newRow("--no-shufle") << QStringList{"--no-shufle"} << "did you mean --no-shuffle?";
        QTest::newRow("after --") << QStringList{"--", "--epochs"}
                                  << "--epochs: unexpected argument";
        QTest::newRow("its fix") << QStringList{"x.json"}
                                 << "give a file with its flag (--config x.json";
        QTest::newRow("-value") << QStringList{"--config", "-x.json"}
                                << "config \"-x.json\": cannot";
        QTest::newRow("missing value") << QStringList{"--epochs"} << "--epochs: needs a value";
        QTest::newRow("value for a switch")
            << QStringList{"--no-shuffle=yes"} << "--no-shuffle: takes no value";
        QTest::newRow("workers abc")
            << QStringList{"--workers", "abc"} << "--workers: expected an integer, got \"abc\"";
        QTest::newRow("workers 0")
            << QStringList{"--workers", "0"} << "workers must be in 1..256 (got 0)";
        QTest::newRow("workers=257")
            << QStringList{"--workers=257"} << "workers must be in 1..256 (got 257)";
        QTest::newRow("epochs 0") << QStringList{"--epochs", "0"}
                                  << "epochs must be in 1..100000 (got 0)";
        QTest::newRow("batch 1.5")
            << QStringList{"--batch", "1.5"} << "--batch: expected an integer";
        QTest::newRow("lr -1") << QStringList{"--lr", "-1"} << "lr must be a number in (0, 100]";
        QTest::newRow("lr abc") << QStringList{"--lr", "abc"} << "--lr: expected a number";
        QTest::newRow("momentum 1")
            << QStringList{"--momentum", "1"} << "momentum must be a number in [0, 1)";
        QTest::newRow("seed -3") << QStringList{"--seed", "-3"}
                                 << "--seed: must be in 0..18446744073709551615 (got -3)";
        QTest::newRow("mode bogus")
            << QStringList{"--mode", "bogus"}
            << "mode: unknown mode \"bogus\"; expected one of \"serial\", \"threads\", "
               "\"threads-locked\", \"processes\", \"data-parallel\", \"gpu-hogwild\"";
        QTest::newRow("split x") << QStringList{"--split", "x"}
                                 << "--split: expected shard or replicate, got \"x\"";
        QTest::newRow("serial with 2 workers") << QStringList{"--mode", "serial", "--workers", "2"}
                                               << "serial mode runs exactly 1 worker";
        QTest::newRow("bad model") << QStringList{"--model", "rnn:3"} << "unknown model kind";
        QTest::newRow("bad dataset")
            << QStringList{"--dataset", "nope:1"} << "unknown kind \"nope\"";
        QTest::newRow("missing csv")
            << QStringList{"--dataset", "csv:/nonexistent.csv"} << "/nonexistent.csv";
        QTest::newRow("model too narrow for data")
            << QStringList{"--model", "mlp:10-4"}
            << "mlp:10-4 does not fit dataset teacher:2000x20:4: the model's input width is 10 "
               "but the dataset has 20 features: make the model's first width 20";
        QTest::newRow("too few classes")
            << QStringList{"--model", "mlp:20-32-2"} << "make the model's last width at least 4";
        QTest::newRow("missing init")
            << QStringList{"--init", "/nonexistent.safetensors"} << "/nonexistent.safetensors";
        QTest::newRow("out under /proc") << QStringList{"--out", "/proc/forbidden"}
                                         << "out: cannot create directory \"/proc/forbidden\"";
    }

    // "--" ends the flags: nothing after it is one, and nothing after it at all runs as usual.
    void doubleDashEndsTheFlags() {
        RUN_CLI(r, kSmall + QStringList{"--"});
        QVERIFY2(r.code == 0 && r.out.contains("summary:"), qPrintable(r.describe()));
    }

    void invalidInput() {
        QFETCH(QStringList, extra);
        QFETCH(QString, needle);
        RUN_CLI(r, kSmall + extra);
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.startsWith("error: "), qPrintable(r.describe()));
        QVERIFY2(r.err.contains(needle), qPrintable(r.describe()));
        QVERIFY2(!r.out.contains("summary:"), qPrintable(r.describe())); // nothing trained
        QVERIFY(!QFileInfo::exists("/proc/forbidden"));
    }

    void configFile() {
        const QString config = tmp_.filePath("serial3.json");
        hwl::test::writeBytes(config, R"({"dataset": "teacher:2000x20:4", "model": "mlp:20-8-4",
                                          "workers": 3, "epochs": 3, "lr": 0.02})");
        // Flags override the file wherever --config stands.
        const QString out = tmp_.filePath("fromConfig");
        RUN_CLI(r, {"--epochs", "1", "--config", config, "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("experiment: mlp:20-8-4 on teacher:2000x20:4, mode threads, 3 "
                                "workers, 1 epoch,"),
                 qPrintable(r.out));
        QVERIFY(r.out.contains("epoch 1  worker 2  loss"));
        const QJsonObject e = readJsonObject(out + "/experiment.json");
        QCOMPARE(e.value("workers").toInt(), 3);
        QCOMPARE(e.value("epochs").toInt(), 1);
        QCOMPARE(e.value("lr").toDouble(), 0.02);
    }

    void configErrors_data() {
        QTest::addColumn<QByteArray>("content"); // empty: the file does not exist
        QTest::addColumn<QString>("needle");
        QTest::newRow("missing file") << QByteArray() << "cannot be read";
        QTest::newRow("invalid JSON") << QByteArray(R"({"workers": 2,)") << "not valid JSON";
        QTest::newRow("not an object") << QByteArray("[]") << "expected a JSON object";
        QTest::newRow("unknown field")
            << QByteArray(R"({"threads": 2})") << "unknown field \"threads\"; known fields: model";
        QTest::newRow("a typo of a field")
            << QByteArray(R"({"lrr": 0.1})")
            << "unknown field \"lrr\"; did you mean \"lr\"? (known fields: model";
        QTest::newRow("workers as string")
            << QByteArray(R"({"workers": "2"})") << "field \"workers\" must be an integer";
        QTest::newRow("workers out of range")
            << QByteArray(R"({"workers": 0})") << "field \"workers\" must be in 1..256 (got 0)";
    }

    void configErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QString, needle);
        const QString path =
            tmp_.filePath(QStringLiteral("config-%1.json")
                              .arg(QString::fromLatin1(QTest::currentDataTag()).replace(' ', '-')));
        if (!content.isEmpty())
            hwl::test::writeBytes(path, content);
        RUN_CLI(r, kSmall + QStringList{"--config", path});
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("config \"" + path + "\""), qPrintable(r.describe()));
        QVERIFY2(r.err.contains(needle), qPrintable(r.describe()));
    }

    void divergingRun() {
        const QString out = tmp_.filePath("diverged");
        RUN_CLI(r, {"--dataset", "random:2000x20:4", "--model", "mlp:20-64-4", "--lr", "100",
                    "--epochs", "2", "--workers", "2", "--out", out});
        QVERIFY2(r.code == 1, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("error: training diverged: the loss became "),
                 qPrintable(r.describe()));
        // The loss really was not finite.
        QVERIFY2(QRegularExpression(R"(the loss became -?(nan|inf))").match(r.err).hasMatch(),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("lower the learning rate (--lr)"), qPrintable(r.err));
        QVERIFY2(r.out.contains("summary: failed after"), qPrintable(r.out));
        // A failed run keeps its metrics and config but not its NaN weights.
        QVERIFY2(r.out.contains("no weights: the run failed"), qPrintable(r.out));
        QVERIFY(QFile::exists(out + "/metrics.csv") && QFile::exists(out + "/experiment.json"));
        QFile summary(out + "/summary.json"); // says why it failed
        QVERIFY(summary.open(QIODevice::ReadOnly) &&
                summary.readAll().contains("\"failure\": \"training diverged"));
        QVERIFY(!QFile::exists(out + "/weights.safetensors") &&
                !QFile::exists(out + "/weights.npz"));
        // Workers that never stepped say so instead of a negative start-up time.
        QVERIFY2(!r.out.contains("-1000"), qPrintable(r.out));
    }

    void configMustBeARegularFile() {
        RUN_CLI(r, {"--config", tmp_.path()});
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("is not a regular file"), qPrintable(r.err));
        const QString fifo = tmp_.filePath("fifo.json");
        QCOMPARE(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        RUN_CLI(f, {"--config", fifo}); // must not block reading a FIFO
        QVERIFY2(f.code == 2, qPrintable(f.describe()));
        QVERIFY2(f.err.contains("is not a regular file"), qPrintable(f.err));
    }

    void serialDefaultsToOneWorker() {
        RUN_CLI(r, {"--dataset", "teacher:2000x20:4", "--model", "mlp:20-32-4", "--epochs", "2",
                    "--mode", "serial"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("mode serial, 1 worker, 2 epochs"), qPrintable(r.out));
        QVERIFY(r.out.contains("epoch 1  worker 0  loss"));
        QVERIFY(r.out.contains("epoch 2  worker 0  loss"));
        QVERIFY(!r.out.contains("worker 1  loss"));
        // --workers 1 explicitly is the same thing.
        RUN_CLI(r1, {"--dataset", "teacher:2000x20:4", "--model", "mlp:20-32-4", "--epochs", "1",
                     "--mode", "serial", "--workers", "1"});
        QVERIFY2(r1.code == 0, qPrintable(r1.describe()));
    }

    // --list-presets, with or without --headless: every preset by id and name,
    // its explanation as plain text (no tag, entities decoded) for a terminal.
    void presetsAreListed() {
        RUN_CLI(r, {"--list-presets"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const Result w = runWindowApp({"--list-presets"});
        QVERIFY2(w.code == 0, qPrintable(w.describe()));
        QCOMPARE(w.out, r.out);
        static const QRegularExpression markup("</?[A-Za-z][^<>]*>|&[a-z]+;|&#[0-9]+;");
        QVERIFY2(!r.out.contains(markup) && r.out.contains("num_workers > 0"),
                 qPrintable(r.out.mid(r.out.indexOf(markup) - 80, 200)));
        const std::vector<hwl::Preset> all = hwl::presets();
        QVERIFY(all.size() >= 6);
        for (const hwl::Preset& p : all) {
            const QString heading = QString::fromStdString(p.id + "  (" + p.name + ")");
            QVERIFY2(r.out.contains("\n" + heading + "\n"), qPrintable(heading));
            QVERIFY2(
                QRegularExpression("^[a-z0-9-]+$").match(QString::fromStdString(p.id)).hasMatch(),
                p.id.c_str());
        }
        for (const QString& line : r.out.split('\n'))
            QVERIFY2(line.size() <= 80, qPrintable(line));
    }

    // --preset ID runs that preset headless (scripts and CI can run each),
    // a comparison each of its runs; flags after it change it (each run);
    // the pitfall scenes that are refused or fail do as their presets say
    // (tst_clipresets has the comparisons' tables and the pitfalls' messages).
    void everyPresetRunsHeadless() {
        for (const hwl::Preset& p : hwl::presets()) {
            const QString id = QString::fromStdString(p.id);
            const QString model = QString::fromStdString(p.config.model);
            // A CNN epoch of Fashion-MNIST takes 90 s under ASan: 2,000 rows of its shape
            // here; generated data cut to 20,000 rows (200,000 took minutes a preset).
            const std::string data = model.startsWith("cnn:")
                                         ? "teacher:2000x784:10"
                                         : hwl::test::fewerRows(p.config.dataset, 20000);
            RUN_CLI(r, QStringList{"--preset", id, "--epochs", "1", "--quiet", "--pace", "0",
                                   "--dataset", QString::fromStdString(data)});
            const QString first = p.compare.empty() ? QString()
                                                    : QStringLiteral("== run 1 of %1: %2 ==\n")
                                                          .arg(p.compare.size())
                                                          .arg(p.compare.front().label.c_str());
            QVERIFY2(r.out.startsWith(first + "experiment: " + model + " on "),
                     qPrintable(r.describe()));
            if (p.config.cudaBeforeFork) {
                QVERIFY2(r.code == 2 && r.err.contains("start-method fork refused"),
                         qPrintable(r.describe()));
                continue;
            }
            if (p.config.loaderWorkers > 0) {
                QVERIFY2(r.code == 2 && r.err.contains("refused: nested processes"),
                         qPrintable(r.describe()));
                continue;
            }
            if (p.config.spawnBeforeShare) {
                QVERIFY2(r.code == 1 && r.err.contains("cannot open segment"),
                         qPrintable(r.describe()));
                continue;
            }
            QVERIFY2(r.code == 0, qPrintable(id + "\n" + r.describe()));
            const int runs = std::max<int>(1, int(p.compare.size()));
            QVERIFY2(r.out.count("summary: finished after 1 of 1 epochs") == runs,
                     qPrintable(r.describe()));
            for (std::size_t i = 0; i < p.compare.size(); ++i)
                QVERIFY2(r.out.contains(QStringLiteral("== run %1 of %2: %3 ==\nexperiment: ")
                                            .arg(i + 1)
                                            .arg(p.compare.size())
                                            .arg(p.compare[i].label.c_str())),
                         qPrintable(r.describe()));
        }
        // Later flags change the preset, wherever --preset stands.
        RUN_CLI(changed,
                {"--workers", "2", "--preset", "forgot-to-share", "--epochs", "1", "--quiet"});
        QVERIFY2(changed.code == 0, qPrintable(changed.describe()));
        QVERIFY2(changed.out.contains("mode processes (fork, NOT shared), 2 workers, 1 epoch"),
                 qPrintable(changed.out));
    }

    void unknownPresetIsRefused() {
        RUN_CLI(r, {"--preset", "no-such-scene"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--preset: no preset named \"no-such-scene\"; the presets are "),
                 qPrintable(r.err));
        for (const hwl::Preset& p : hwl::presets())
            QVERIFY2(r.err.contains(QString::fromStdString(p.id)), p.id.c_str());
        QVERIFY(r.out.isEmpty());
    }

    // The GPU modes where no GPU can run them (this machine: nvcc, no GPU):
    // each refused before anything starts with the reason, and the
    // CUDA-before-fork pitfall refused, or shown with --force-unsafe-fork.
    void gpuModesSayWhyTheyCannotRun() {
        RUN_CLI(list, {"--list-devices"});
        if (list.code == 0)
            QSKIP("this machine has a CUDA device: tst_gpu runs the GPU modes");
        QCOMPARE(list.code, 1);
        const QString why = hwl::cudaBuilt()
                                ? QStringLiteral("no CUDA device: cudaGetDeviceCount returned")
                                : QStringLiteral("not built: ");
        QVERIFY2(list.out.contains("the GPU modes cannot run here: ") && list.out.contains(why),
                 qPrintable(list.describe()));
        const QStringList small{"--dataset",  "teacher:500x20:4", "--model",
                                "mlp:20-8-4", "--epochs",         "1"};
        for (const QStringList& mode :
             {QStringList{"--mode", "gpu-hogwild", "--momentum", "0"},
              QStringList{"--mode", "data-parallel", "--device", "cuda"}}) {
            RUN_CLI(r, small + mode);
            QVERIFY2(r.code == 2 && r.err.contains(why), qPrintable(r.describe()));
            QVERIFY(r.shmLeftovers.isEmpty());
        }
        RUN_CLI(cpu, small + QStringList{"--mode", "threads", "--device", "cuda"});
        QVERIFY2(cpu.code == 2 &&
                     cpu.err.contains("device cuda applies to mode data-parallel only"),
                 qPrintable(cpu.describe()));
        const QStringList pitfall = small + QStringList{"--mode", "processes", "--start-method",
                                                        "fork", "--cuda-before-fork"};
        RUN_CLI(refused, pitfall);
        QVERIFY2(refused.code == 2 && refused.err.contains("already initialised CUDA") &&
                     refused.err.contains("spawn or forkserver"),
                 qPrintable(refused.describe()));
        RUN_CLI(forced, pitfall + QStringList{"--force-unsafe-fork"});
        QVERIFY2(forced.out.contains("pitfall: ") && forced.out.contains("CUDA before fork"),
                 qPrintable(forced.describe()));
        if (hwl::cudaBuilt()) // each forked worker's CUDA call failed, and said how
            QVERIFY2(forced.code == 1 &&
                         forced.out.contains("CUDA fails in it: cudaFree(0) returned"),
                     qPrintable(forced.describe()));
        else // no CUDA to touch: the workers trained
            QVERIFY2(forced.code == 0, qPrintable(forced.describe()));
        QVERIFY(forced.shmLeftovers.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
