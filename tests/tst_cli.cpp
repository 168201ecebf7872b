// End-to-end tests of the headless command line: runs the built hogwild-lab
// binary through QProcess and checks its exit status, its output, the files
// it writes, and that no shared-memory segment outlives it.
#include "io/tensorfile.h"
#include "testutil.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>
#include <map>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace {

const char* const kPython = "/usr/bin/python3";

/// The small, fast experiment most cases start from (well under a second).
const QStringList kSmall = {"--dataset", "teacher:2000x20:4", "--model", "mlp:20-32-4", "--epochs",
                            "2",         "--workers",         "2"};

const QStringList kOutputFiles = {"experiment.json", "metrics.csv", "weights.npz",
                                  "weights.safetensors"};

struct Result {
    bool started = false;
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int code = -1;
    qint64 pid = 0;
    QString out, err;
    QStringList shmLeftovers; ///< /dev/shm entries "hwl-<pid>-*" after exit

    QString describe() const {
        return QStringLiteral("exit %1 (%2)\n--- stdout ---\n%3--- stderr ---\n%4")
            .arg(code)
            .arg(status == QProcess::NormalExit ? "normal" : "crash")
            .arg(out, err);
    }
    QStringList lines() const { return out.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }
};

QStringList shmEntriesOf(qint64 pid) {
    if (pid <= 0)
        return {};
    return QDir(QStringLiteral("/dev/shm"))
        .entryList({QStringLiteral("hwl-%1-*").arg(pid)},
                   QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
}

void collect(QProcess& p, Result& r, int timeoutMs) {
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.status = p.exitStatus();
    r.code = p.exitCode();
    r.out += QString::fromUtf8(p.readAllStandardOutput());
    r.err += QString::fromUtf8(p.readAllStandardError());
    r.shmLeftovers = shmEntriesOf(r.pid);
}

/// Runs `hogwild-lab --headless ARGS` to the end.
Result runCli(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.setProgram(QStringLiteral(HWL_APP_BINARY));
    p.setArguments(QStringList{"--headless"} + args);
    Result r;
    p.start();
    r.started = p.waitForStarted(10000);
    if (!r.started)
        return r;
    r.pid = p.processId();
    collect(p, r, timeoutMs);
    return r;
}

QStringList dirEntries(const QString& dir) {
    QStringList entries =
        QDir(dir).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
    entries.sort();
    return entries;
}

QJsonObject readJsonObject(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

bool pythonCan(const char* module) {
    if (!QFileInfo::exists(QString::fromLatin1(kPython)))
        return false;
    QProcess p;
    p.start(QString::fromLatin1(kPython), {"-c", QStringLiteral("import %1").arg(module)});
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

struct PyResult {
    int code = -1;
    QByteArray out, err;
};

/// Runs an inline python script with `args`; stdout is returned.
PyResult runPython(const QString& script, const QStringList& args) {
    QProcess p;
    p.start(QString::fromLatin1(kPython), QStringList{"-c", script} + args);
    PyResult r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

/// Tensor name -> flat values, from a JSON object {"name": [v, ...]}.
std::map<std::string, std::vector<double>> valuesFromJson(const QJsonObject& o) {
    std::map<std::string, std::vector<double>> values;
    for (auto it = o.begin(); it != o.end(); ++it) {
        auto& v = values[it.key().toStdString()];
        for (const auto& x : it.value().toArray())
            v.push_back(x.toDouble());
    }
    return values;
}

std::map<std::string, std::vector<double>> valuesOf(const std::vector<hwl::Tensor>& tensors) {
    std::map<std::string, std::vector<double>> values;
    for (const auto& t : tensors)
        values[t.name] = std::vector<double>(t.data.begin(), t.data.end());
    return values;
}

} // namespace

/// Runs the CLI and checks that it ended on its own and left no segment behind.
#define RUN_CLI(r, ...)                                                                            \
    const Result r = runCli(__VA_ARGS__);                                                          \
    QVERIFY2(r.started, "hogwild-lab did not start: " HWL_APP_BINARY);                             \
    QVERIFY2(r.finished, qPrintable("hogwild-lab did not finish\n" + r.describe()));               \
    QVERIFY2(r.status == QProcess::NormalExit, qPrintable(r.describe()));                          \
    QVERIFY2(r.shmLeftovers.isEmpty(),                                                             \
             qPrintable("left in /dev/shm: " + r.shmLeftovers.join(", ") + "\n" + r.describe()))

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString baseOut_; ///< --out of the standard run made in initTestCase
    int outCounter_ = 0;
    QStringList baseArgs_; ///< its flags
    std::vector<hwl::Tensor> baseWeights_;

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(QStringLiteral(HWL_APP_BINARY)).isExecutable(), HWL_APP_BINARY);
        QVERIFY(tmp_.isValid());
        // One run with every flag set away from its default, shared by the
        // output, --init and python cases.
        baseOut_ = tmp_.filePath("base/nested");
        baseArgs_ = QStringList{"--dataset",
                                "teacher:2000x20:4",
                                "--model",
                                "mlp:20-32-4",
                                "--epochs",
                                "2",
                                "--workers",
                                "2",
                                "--mode",
                                "threads-locked",
                                "--batch",
                                "16",
                                "--lr",
                                "0.05",
                                "--momentum",
                                "0.5",
                                "--weight-decay",
                                "0.001",
                                "--seed",
                                "7",
                                "--split",
                                "replicate",
                                "--test-fraction",
                                "0.2",
                                "--no-shuffle",
                                "--out",
                                baseOut_};
        RUN_CLI(r, baseArgs_);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        baseWeights_ = hwl::readSafetensors((baseOut_ + "/weights.safetensors").toStdString());
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
             {"--config", "--mode", "--workers", "--model", "--dataset", "--epochs", "--batch",
              "--lr", "--momentum", "--weight-decay", "--seed", "--split", "--test-fraction",
              "--no-shuffle", "--init", "--out", "--quiet", "--help", "--version"}) {
            const QRegularExpression line(
                QStringLiteral("^  %1\\b").arg(QRegularExpression::escape(documented)),
                QRegularExpression::MultilineOption);
            QVERIFY2(r.out.contains(line), documented);
        }
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
        QVERIFY2(QRegularExpression(R"(^hogwild-lab \d+\.\d+\.\d+\n$)").match(r.out).hasMatch(),
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
        QCOMPARE(dirEntries(baseOut_), kOutputFiles); // no temp files left over

        // metrics.csv
        const QStringList csv = readLines(baseOut_ + "/metrics.csv");
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
        const QJsonObject e = readJsonObject(baseOut_ + "/experiment.json");
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
        QCOMPARE(e.value("out").toString(), baseOut_);

        // weights.safetensors: the PyTorch state_dict names and shapes.
        std::map<std::string, std::string> meta;
        const auto tensors =
            hwl::readSafetensors((baseOut_ + "/weights.safetensors").toStdString(), &meta);
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
        // The same --out again: files are replaced, still nothing else there.
        const QString out = tmp_.filePath("rerun");
        RUN_CLI(r1, kSmall + QStringList{"--out", out, "--epochs", "1"});
        QVERIFY2(r1.code == 0, qPrintable(r1.describe()));
        RUN_CLI(r2, kSmall + QStringList{"--out", out});
        QVERIFY2(r2.code == 0, qPrintable(r2.describe()));
        QVERIFY2(r2.out.contains("wrote " + out + "/{weights.safetensors"), qPrintable(r2.out));
        QCOMPARE(dirEntries(out), kOutputFiles);
        QCOMPARE(readJsonObject(out + "/experiment.json").value("epochs").toInt(), 2);
    }

    void initFromWeights() {
        const QString weights = baseOut_ + "/weights.safetensors";
        const QString out = tmp_.filePath("fromInit");
        // A vanishing learning rate: the result must be the loaded weights.
        RUN_CLI(r, kSmall + QStringList{"--init", weights, "--epochs", "1", "--lr", "1e-9", "--out",
                                        out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QCOMPARE(readJsonObject(out + "/experiment.json").value("init").toString(), weights);
        const auto after = hwl::readSafetensors((out + "/weights.safetensors").toStdString());
        QCOMPARE(after.size(), baseWeights_.size());
        for (std::size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].name, baseWeights_[i].name);
            QVERIFY(after[i].shape == baseWeights_[i].shape);
            for (std::size_t k = 0; k < after[i].data.size(); ++k)
                QVERIFY2(std::abs(after[i].data[k] - baseWeights_[i].data[k]) < 1e-4f,
                         after[i].name.c_str());
        }
    }

    void initShapeMismatch() {
        const QString weights = baseOut_ + "/weights.safetensors";
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
                                 << "--seed: expected a non-negative integer";
        QTest::newRow("mode bogus")
            << QStringList{"--mode", "bogus"}
            << "--mode: expected serial, threads, threads-locked, processes, gpu-data-parallel "
               "or gpu-hogwild, got \"bogus\"";
        QTest::newRow("split x") << QStringList{"--split", "x"}
                                 << "--split: expected shard or replicate, got \"x\"";
        QTest::newRow("serial with 2 workers") << QStringList{"--mode", "serial", "--workers", "2"}
                                               << "serial mode runs exactly 1 worker";
        QTest::newRow("bad model") << QStringList{"--model", "cnn:3"} << "unknown model kind";
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

    void outIsRegularFile() {
        const QString file = tmp_.filePath("occupied");
        hwl::test::writeBytes(file, "keep me");
        RUN_CLI(r, kSmall + QStringList{"--out", file});
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("out: \"" + file + "\" exists and is not a directory"),
                 qPrintable(r.describe()));
        QCOMPARE(hwl::test::readBytes(file.toStdString()), QByteArray("keep me"));
        // A directory below a regular file cannot be made either.
        RUN_CLI(r2, kSmall + QStringList{"--out", file + "/sub"});
        QVERIFY2(r2.code == 2, qPrintable(r2.describe()));
        QVERIFY2(r2.err.contains("out: cannot create directory"), qPrintable(r2.describe()));
        QVERIFY(QFileInfo(file).isFile());
        // Nothing was left next to it either (no temp files).
        const QStringList beside =
            QDir(tmp_.path()).entryList({"occupied*"}, QDir::AllEntries | QDir::Hidden);
        QCOMPARE(beside, QStringList{"occupied"});
    }

    void outUnwritableDirectory() {
        if (geteuid() == 0)
            QSKIP("running as root: permission bits do not stop writes");
        const QString dir = tmp_.filePath("readonly");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::setPermissions(dir, QFile::ReadOwner | QFile::ExeOwner));
        RUN_CLI(r, kSmall + QStringList{"--out", dir});
        QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("is not writable"), qPrintable(r.describe()));
        QVERIFY(dirEntries(dir).isEmpty());
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
        QVERIFY2(r.err.contains("lower --lr"), qPrintable(r.err));
        QVERIFY2(r.out.contains("summary: failed after"), qPrintable(r.out));
        // A failed run keeps its metrics and config but not its NaN weights.
        QVERIFY2(r.out.contains("no weights: the run failed"), qPrintable(r.out));
        QVERIFY(QFile::exists(out + "/metrics.csv"));
        QVERIFY(QFile::exists(out + "/experiment.json"));
        QVERIFY(!QFile::exists(out + "/weights.safetensors"));
        QVERIFY(!QFile::exists(out + "/weights.npz"));
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

    void interruptWritesPartialRun_data() {
        QTest::addColumn<bool>("withOut");
        QTest::addColumn<QStringList>("mode");
        QTest::newRow("with --out") << true << QStringList{};
        QTest::newRow("without --out") << false << QStringList{};
        // Ctrl-C in a terminal signals the whole process group, workers included:
        // they ignore it and the parent stops them in order.
        QTest::newRow("processes spawn, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "spawn"};
        QTest::newRow("processes forkserver, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "forkserver"};
        QTest::newRow("processes fork, Ctrl-C to the group")
            << true << QStringList{"--mode", "processes", "--start-method", "fork"};
    }

    void interruptWritesPartialRun() {
        QFETCH(bool, withOut);
        QFETCH(QStringList, mode);
        const QString out =
            tmp_.filePath(withOut ? "interrupted-" + QString::number(outCounter_++) : "unused");
        QStringList args = {"--headless", "--dataset",   "teacher:200000x50:4",
                            "--model",    "mlp:50-64-4", "--epochs",
                            "200",        "--workers",   "2"};
        args << mode;
        if (withOut)
            args << "--out" << out;
        QProcess p;
        p.setProgram(QStringLiteral(HWL_APP_BINARY));
        p.setArguments(args);
        p.setChildProcessModifier([] { setpgid(0, 0); }); // its own group, like a shell job
        p.start();
        QVERIFY(p.waitForStarted(10000));
        Result r;
        r.started = true;
        r.pid = p.processId();
        // Wait for the first finished epoch: the signal handler is installed by then.
        QString seen;
        QDeadlineTimer deadline(120000);
        while (!seen.contains("epoch 1  worker") && !deadline.hasExpired() &&
               p.state() == QProcess::Running) {
            p.waitForReadyRead(200);
            seen += QString::fromUtf8(p.readAllStandardOutput());
        }
        QVERIFY2(seen.contains("epoch 1  worker"), qPrintable(seen));
        QCOMPARE(p.state(), QProcess::Running);
        // While it runs its telemetry segment is there (so the check after exit means something).
        QVERIFY2(!shmEntriesOf(r.pid).isEmpty(),
                 "no hwl-<pid>-* segment in /dev/shm while running");
        QCOMPARE(::kill(mode.isEmpty() ? pid_t(r.pid) : -pid_t(r.pid), SIGINT), 0);
        collect(p, r, 120000);
        r.out = seen + r.out;
        QVERIFY2(r.finished, qPrintable(r.describe()));
        QVERIFY2(r.status == QProcess::NormalExit, qPrintable(r.describe()));
        QVERIFY2(r.code == 130, qPrintable(r.describe()));
        QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(r.shmLeftovers.join(", ")));
        QVERIFY2(r.err.contains("interrupted: stopped after"), qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: stopped after"), qPrintable(r.describe()));
        if (!withOut) {
            QVERIFY(!r.out.contains("wrote "));
            QVERIFY(!QFileInfo::exists(out));
            return;
        }
        QVERIFY2(r.out.contains("(partial run)"), qPrintable(r.describe()));
        QCOMPARE(dirEntries(out), kOutputFiles);
        std::map<std::string, std::string> meta;
        const auto tensors =
            hwl::readSafetensors((out + "/weights.safetensors").toStdString(), &meta);
        QCOMPARE(tensors.size(), std::size_t(4));
        const int completed = std::stoi(meta["epochs_completed"]);
        QVERIFY2(completed >= 0 && completed < 200, meta["epochs_completed"].c_str());
        const QStringList csv = readLines(out + "/metrics.csv");
        QVERIFY(!csv.isEmpty());
        QCOMPARE(csv.first(), QStringLiteral("worker,epoch,step,samples,loss,time,kind,divergence,"
                                             "accuracy"));
        QCOMPARE(csv.filter(",eval,").size(), qsizetype(completed));
        QCOMPARE(readJsonObject(out + "/experiment.json").value("epochs").toInt(), 200);
    }

    // At the system's limit on processes and threads, every place that
    // starts one (fork server, oneTBB, coordinator, worker threads and
    // processes) fails with status 1 and a message that says what to do:
    // never a crash, a hang or a segment left behind. The child runs as an
    // unused uid whose RLIMIT_NPROC is 1..8, so every start-up stage hits it.
    void processLimitIsExplained_data() {
        QTest::addColumn<QStringList>("mode");
        QTest::newRow("threads") << QStringList{"--mode", "threads", "--workers", "4"};
        QTest::newRow("fork") << QStringList{"--mode", "processes", "--start-method",
                                             "fork",   "--workers", "4"};
        QTest::newRow("forkserver")
            << QStringList{"--mode", "processes", "--start-method", "forkserver", "--workers", "4"};
    }
    void processLimitIsExplained() {
        QFETCH(QStringList, mode);
        if (::geteuid() != 0)
            QSKIP("needs root: an unprivileged process cannot switch to a fresh uid");
        int failures = 0;
        for (int limit = 1; limit <= 8; ++limit) {
            QProcess p;
            p.setProgram(QStringLiteral(HWL_APP_BINARY));
            p.setArguments(QStringList{"--headless", "--model", "mlp:20-8-4", "--dataset",
                                       "teacher:2000x20:4:8", "--epochs", "3"} +
                           mode);
            p.setWorkingDirectory(tmp_.path());
            p.setChildProcessModifier([limit] {
                rlimit l{};
                ::getrlimit(RLIMIT_NPROC, &l);
                l.rlim_cur = rlim_t(limit);
                const uid_t uid = 54321; // unused: the app's processes are its only ones
                if (::setrlimit(RLIMIT_NPROC, &l) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0)
                    ::_exit(77);
            });
            Result r;
            p.start();
            r.started = p.waitForStarted(10000);
            if (!r.started)
                QSKIP("the app cannot be started as an unprivileged uid here");
            r.pid = p.processId();
            collect(p, r, 60000);
            const QString where = QStringLiteral("limit %1: ").arg(limit) + r.describe();
            if (r.code == 77)
                QSKIP("cannot switch to a fresh uid with a process limit here");
            QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(where));
            QVERIFY2(r.code == 0 || r.code == 1, qPrintable(where));
            QVERIFY2(r.shmLeftovers.isEmpty(), qPrintable(where));
            if (r.code == 1) {
                ++failures;
                QVERIFY2(r.err.contains("ulimit -u") && r.err.contains("run fewer workers"),
                         qPrintable(where));
                QVERIFY2(!r.err.contains("terminate called"), qPrintable(where));
            }
        }
        QVERIFY(failures > 0); // a limit of 1 process leaves no room for any thread
    }

    void pythonReadsSafetensorsHeader() {
        if (!QFileInfo::exists(QString::fromLatin1(kPython)))
            QSKIP("/usr/bin/python3 is not installed");
        // A tiny reader with nothing but the standard library.
        const QString script = QStringLiteral(R"PY(
import json, struct, sys
path = sys.argv[1]
data = open(path, 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
assert (8 + n) % 8 == 0, 'header not padded to 8 bytes'
header = json.loads(data[8:8 + n].decode('utf-8'))
meta = header.pop('__metadata__', {})
assert all(isinstance(v, str) for v in meta.values())
body = data[8 + n:]
end = 0
values = {}
for name, info in sorted(header.items(), key=lambda kv: kv[1]['data_offsets'][0]):
    assert info['dtype'] == 'F32', info
    begin, stop = info['data_offsets']
    assert begin == end, 'gap or overlap before ' + name
    count = 1
    for d in info['shape']:
        count *= d
    assert stop - begin == 4 * count, name
    values[name] = list(struct.unpack('<%df' % count, body[begin:stop]))
    end = stop
assert end == len(body), 'trailing bytes'
print(json.dumps({'shapes': {k: v['shape'] for k, v in header.items()},
                  'meta': meta, 'values': values}))
)PY");
        const PyResult py = runPython(script, {baseOut_ + "/weights.safetensors"});
        QVERIFY2(py.code == 0, py.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(py.out).object();
        const QJsonObject shapes = o.value("shapes").toObject();
        QCOMPARE(shapes.size(), qsizetype(4));
        QCOMPARE(shapes.value("0.weight").toArray(), (QJsonArray{32, 20}));
        QCOMPARE(shapes.value("0.bias").toArray(), (QJsonArray{32}));
        QCOMPARE(shapes.value("2.weight").toArray(), (QJsonArray{4, 32}));
        QCOMPARE(shapes.value("2.bias").toArray(), (QJsonArray{4}));
        const QJsonObject meta = o.value("meta").toObject();
        QCOMPARE(meta.value("format").toString(), QStringLiteral("pt"));
        QCOMPARE(meta.value("model").toString(), QStringLiteral("mlp:20-32-4"));
        QVERIFY(valuesFromJson(o.value("values").toObject()) == valuesOf(baseWeights_));
    }

    void pythonNumpyLoadsNpz() {
        if (!pythonCan("numpy"))
            QSKIP("/usr/bin/python3 cannot import numpy (apt-get install python3-numpy)");
        const QString script = QStringLiteral(R"PY(
import json, sys
import numpy as np
with np.load(sys.argv[1]) as npz:
    out = {}
    for name in npz.files:
        a = npz[name]
        assert a.dtype == np.dtype('<f4'), a.dtype
        assert a.flags['C_CONTIGUOUS']
        out[name] = {'shape': list(a.shape), 'values': [float(x) for x in a.ravel()]}
print(json.dumps(out))
)PY");
        const PyResult py = runPython(script, {baseOut_ + "/weights.npz"});
        QVERIFY2(py.code == 0, py.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(py.out).object();
        QCOMPARE(o.size(), qsizetype(baseWeights_.size()));
        for (const auto& t : baseWeights_) {
            const QJsonObject entry = o.value(QString::fromStdString(t.name)).toObject();
            QVERIFY2(!entry.isEmpty(), t.name.c_str());
            std::vector<std::int64_t> shape;
            for (const auto& d : entry.value("shape").toArray())
                shape.push_back(d.toInteger());
            QVERIFY2(shape == t.shape, t.name.c_str());
            const QJsonArray values = entry.value("values").toArray();
            QCOMPARE(values.size(), qsizetype(t.data.size()));
            for (qsizetype i = 0; i < values.size(); ++i)
                QVERIFY2(values[i].toDouble() == double(t.data[std::size_t(i)]), t.name.c_str());
        }
    }

    void pythonTorchLoadsStateDict() {
        if (!pythonCan("torch"))
            QSKIP("/usr/bin/python3 cannot import torch (optional check)");
        const QString script = QStringLiteral(R"PY(
import json, struct, sys
import torch
from torch import nn
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
header = json.loads(data[8:8 + n])
header.pop('__metadata__', None)
body = data[8 + n:]
state = {}
for name, info in header.items():
    begin, end = info['data_offsets']
    t = torch.frombuffer(bytearray(body[begin:end]), dtype=torch.float32)
    state[name] = t.reshape(info['shape'])
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
model.load_state_dict(state, strict=True)
with torch.no_grad():
    y = model(torch.zeros(1, 20))
assert y.shape == (1, 4)
assert torch.equal(model[0].bias, state['0.bias'])
print('ok')
)PY");
        const PyResult py = runPython(script, {baseOut_ + "/weights.safetensors"});
        QVERIFY2(py.code == 0, py.err.constData());
        QCOMPARE(py.out.trimmed(), QByteArray("ok"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
