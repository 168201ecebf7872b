// Tests for core/experimentconfig: the embedded defaults, the JSON round trip,
// validate() naming every bad field with its allowed range, mergeJson's
// errors, the experiment-file size limit, and the model-spec text round trip.
#include "config/experimentconfig.h"
#include "config/fields.h"
#include "model/modelspec.h"
#include "testpaths.h"
#include "testutil.h"
#include "util/errors.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using hwl::ConfigIssue;
using hwl::ExperimentConfig;
using hwl::InputError;

namespace {

// clang-format off
const char* const kFieldNames[] = {
    "model", "dataset", "mode", "workers", "epochs", "batch", "lr", "momentum", "weight-decay",
    "seed", "split", "test-fraction", "shuffle", "start-method", "share", "on-worker-failure",
    "init", "out", "transport", "sync-every", "bucket-mb", "drop-last", "hostfile", "mpirun-args",
    "reduce",
    "device", "replicas-per-gpu", "blocks", "update", "cuda-before-fork", "force-unsafe-fork",
    "lost-updates", "spawn-before-share", "loader-workers", "lr-schedule", "warmup-steps", "accumulate", "dropout",
    "normalize",
    "tensorboard", "resume", "optimizer", "nesterov", "beta1", "beta2", "eps", "alpha", "lr-decay",
    "initial-accumulator", "optimizer-state", "onnx-normalized-inputs", "target-accuracy",
    "target-loss", "train-past-target", "eval-every"};
// clang-format on

QString issuesText(const std::vector<ConfigIssue>& issues) {
    QStringList lines;
    for (const auto& i : issues)
        lines << QString::fromStdString(i.field + ": " + i.message);
    return lines.join(QLatin1String(" | "));
}

/// Compares every field, reporting the first that differs by name.
void compareConfigs(const ExperimentConfig& a, const ExperimentConfig& b) {
    for (const hwl::Field& f : hwl::experimentFields())
        QVERIFY2(f.get(a) == f.get(b), f.key);
}

/// Sets one field from text, bypassing mergeJson's own range checks so that
/// validate() sees out-of-range values.
void setField(ExperimentConfig& c, const QString& field, const QString& value) {
    const double number =
        value == QLatin1String("nan") ? std::numeric_limits<double>::quiet_NaN() : value.toDouble();
    const std::string text = value.toStdString();
    if (field == QLatin1String("model"))
        c.model = text;
    else if (field == QLatin1String("dataset"))
        c.dataset = text;
    else if (field == QLatin1String("mode"))
        c.mode = text;
    else if (field == QLatin1String("workers"))
        c.workers = value.toInt();
    else if (field == QLatin1String("epochs"))
        c.epochs = value.toInt();
    else if (field == QLatin1String("batch"))
        c.batch = value.toInt();
    else if (field == QLatin1String("lr"))
        c.lr = number;
    else if (field == QLatin1String("momentum"))
        c.momentum = number;
    else if (field == QLatin1String("weight-decay"))
        c.weightDecay = number;
    else if (field == QLatin1String("test-fraction"))
        c.testFraction = number;
    else
        qFatal("setField: unhandled field %s", qPrintable(field));
}

/// A config that is valid and fast to describe (no files involved).
ExperimentConfig baseConfig() {
    ExperimentConfig c = ExperimentConfig::defaults();
    c.dataset = "teacher:1000x20:4";
    c.model = "mlp:20-32-4";
    return c;
}

} // namespace

class TestExperimentConfig : public QObject {
    Q_OBJECT

private slots:
    void defaultsAreValid() {
        const ExperimentConfig c = ExperimentConfig::defaults();
        const auto issues = validateExperiment(c);
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
        validateExperimentOrThrow(c);
        // The struct's own initialisers (the library's quick baseline) agree
        // with the embedded file but for what the default experiment trains
        // Fashion-MNIST to 88% with: 25 epochs of batches of 128 at lr 0.03.
        ExperimentConfig baseline;
        QCOMPARE(c.epochs, 25);
        QCOMPARE(c.batch, 128);
        QCOMPARE(c.lr, 0.03);
        baseline.epochs = c.epochs;
        baseline.batch = c.batch;
        baseline.lr = c.lr;
        compareConfigs(baseline, c);
    }

    void defaultsMatchResourceFile() {
        QFile f(QString::fromUtf8(hwl::test::kSourceDir) + "/resources/experiments/default.json");
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
        QVERIFY2(doc.isObject(), qPrintable(err.errorString()));
        const QJsonObject o = doc.object();
        const ExperimentConfig c = ExperimentConfig::defaults();
        QCOMPARE(QString::fromStdString(c.model), o.value("model").toString());
        QCOMPARE(QString::fromStdString(c.dataset), o.value("dataset").toString());
        QCOMPARE(QString::fromStdString(c.mode), o.value("mode").toString());
        QCOMPARE(c.workers, o.value("workers").toInt(-1));
        QCOMPARE(c.epochs, o.value("epochs").toInt(-1));
        QCOMPARE(c.batch, o.value("batch").toInt(-1));
        QCOMPARE(c.lr, o.value("lr").toDouble(-1));
        QCOMPARE(c.momentum, o.value("momentum").toDouble(-1));
        QCOMPARE(c.weightDecay, o.value("weight-decay").toDouble(-1));
        QCOMPARE(c.seed, std::uint64_t(o.value("seed").toInteger(-1)));
        QCOMPARE(QString::fromLatin1(hwl::toString(c.split)), o.value("split").toString());
        QCOMPARE(c.testFraction, o.value("test-fraction").toDouble(-1));
        QCOMPARE(c.shuffle, o.value("shuffle").toBool(false));
        QCOMPARE(QString::fromStdString(c.init), o.value("init").toString());
        QCOMPARE(QString::fromStdString(c.out), o.value("out").toString());
        // And the embedded copy is the file's text.
        QCOMPARE(QJsonDocument::fromJson(ExperimentConfig::defaultJson()).object(), o);
    }

    void toJsonHasEveryField() {
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(ExperimentConfig{}.toJson()));
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object().size(), qsizetype(std::size(kFieldNames)));
        for (const char* name : kFieldNames)
            QVERIFY2(doc.object().contains(QLatin1String(name)), name);
    }

    void jsonRoundTrip_data() {
        QTest::addColumn<int>("variant");
        QTest::newRow("defaults") << 0;
        QTest::newRow("every field changed") << 1;
        QTest::newRow("extremes") << 2;
    }

    void jsonRoundTrip() {
        QFETCH(int, variant);
        ExperimentConfig c;
        if (variant == 1) {
            c.model = "mlp:20-64-32-4:tanh";
            c.dataset = "csv:/data/some file.csv";
            c.mode = "processes";
            c.startMethod = hwl::StartMethod::Spawn;
            c.share = false;
            c.onWorkerFailure = hwl::FailurePolicy::Continue;
            c.workers = 7;
            c.epochs = 13;
            c.batch = 100;
            c.lr = 0.1 + 0.2; // not exactly 0.3: needs a shortest round-trip dump
            c.momentum = 0.0;
            c.nesterov = true;
            c.weightDecay = 1e-5;
            c.optimizer = hwl::OptimizerKind::AdamW;
            c.beta1 = 0.85;
            c.beta2 = 0.995;
            c.eps = 1e-7;
            c.alpha = 0.9;
            c.lrDecay = 0.125;
            c.initialAccumulator = 0.5;
            c.seed = 0;
            c.split = hwl::DataSplit::Replicate;
            c.testFraction = 0.25;
            c.shuffle = false;
            c.lostUpdates = true;
            c.init = "/tmp/in \"quoted\".safetensors";
            c.out = "runs/ümlaut";
        } else if (variant == 2) {
            c.model = "embedding-bag:5000-32-4";
            c.dataset = "sparse-bow:1000x5000:4:20";
            c.mode = "serial";
            c.workers = 1;
            c.epochs = hwl::limits::kMaxEpochs;
            c.batch = hwl::limits::kMaxBatch;
            c.lr = 100;
            c.momentum = 0.999999;
            c.weightDecay = 1;
            c.seed = std::numeric_limits<std::uint64_t>::max();
            c.testFraction = 0;
        }
        const std::string json = c.toJson();
        QVERIFY(!json.empty() && json.back() == '\n');
        ExperimentConfig restored = baseConfig();
        restored.init = "something else";
        restored.out = "elsewhere";
        restored.mergeJson(json, "round trip");
        compareConfigs(restored, c);
        QCOMPARE(restored.toJson(), json);
    }

    void mergeJsonOverridesOnlyGivenFields() {
        ExperimentConfig c = ExperimentConfig::defaults();
        c.mergeJson(R"({"workers": 8, "lr": 0.5, "shuffle": false})", "partial");
        ExperimentConfig expected = ExperimentConfig::defaults();
        expected.workers = 8;
        expected.lr = 0.5;
        expected.shuffle = false;
        compareConfigs(c, expected);
        c.mergeJson("{}", "empty");
        compareConfigs(c, expected);
    }

    void validateReportsField_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("needle");
        QTest::newRow("workers 0") << "workers"
                                   << "0"
                                   << "1..256 (got 0)";
        QTest::newRow("workers 257") << "workers"
                                     << "257"
                                     << "1..256 (got 257)";
        QTest::newRow("epochs 0") << "epochs"
                                  << "0"
                                  << "1..100000 (got 0)";
        QTest::newRow("batch 0") << "batch"
                                 << "0"
                                 << "1..1048576 (got 0)";
        QTest::newRow("lr 0") << "lr"
                              << "0"
                              << "(0, 100]";
        QTest::newRow("lr -1") << "lr"
                               << "-1"
                               << "(0, 100]";
        QTest::newRow("lr NaN") << "lr"
                                << "nan"
                                << "(0, 100]";
        QTest::newRow("lr 1000") << "lr"
                                 << "1000"
                                 << "(0, 100]";
        QTest::newRow("momentum 1") << "momentum"
                                    << "1.0"
                                    << "[0, 1)";
        QTest::newRow("momentum -0.1") << "momentum"
                                       << "-0.1"
                                       << "[0, 1)";
        QTest::newRow("weight-decay 2") << "weight-decay"
                                        << "2"
                                        << "[0, 1]";
        QTest::newRow("test-fraction 1") << "test-fraction"
                                         << "1.0"
                                         << "[0, 1)";
        QTest::newRow("test-fraction -0.1") << "test-fraction"
                                            << "-0.1"
                                            << "[0, 1)";
        QTest::newRow("model one width") << "model"
                                         << "mlp:100"
                                         << "at least an input and an output width";
        QTest::newRow("model zero width") << "model"
                                          << "mlp:100-0-10"
                                          << "\"0\" is not a width in 1..";
        QTest::newRow("model bad activation") << "model"
                                              << "mlp:100-10:swish"
                                              << "unknown activation \"swish\"";
        QTest::newRow("model unknown kind") << "model"
                                            << "rnn:3"
                                            << "unknown model kind \"rnn\"";
        QTest::newRow("model embedding two sizes") << "model"
                                                   << "embedding-bag:10-2"
                                                   << "expected three sizes V-D-C";
        QTest::newRow("model one class") << "model"
                                         << "mlp:10-1"
                                         << "at least 2";
        QTest::newRow("model empty") << "model"
                                     << ""
                                     << "Accepted forms";
        QTest::newRow("dataset truncated") << "dataset"
                                           << "random:10x"
                                           << "expected random:ROWSxDIM:CLASSES";
        QTest::newRow("dataset unknown kind") << "dataset"
                                              << "nope:1"
                                              << "unknown kind \"nope\"";
        QTest::newRow("dataset one class") << "dataset"
                                           << "teacher:100x5:1"
                                           << "CLASSES must be from 2";
    }

    void validateReportsField() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, needle);
        ExperimentConfig c = baseConfig();
        QVERIFY(validateExperiment(c).empty());
        setField(c, field, value);
        const auto issues = validateExperiment(c);
        QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
        QCOMPARE(QString::fromStdString(issues[0].field), field);
        QVERIFY2(QString::fromStdString(issues[0].message).contains(needle),
                 qPrintable(issuesText(issues)));
        // The message does not repeat the field's name (it is shown at the field).
        QVERIFY2(!QString::fromStdString(issues[0].message).startsWith(field + ": "),
                 qPrintable(issuesText(issues)));
        // validateOrThrow carries the same text, prefixed with the field.
        HWL_VERIFY_THROWS(validateExperimentOrThrow(c), InputError,
                          (field + ": ").toStdString() + issues[0].message);
    }

    void serialModeRequiresOneWorker() {
        ExperimentConfig c = baseConfig();
        c.mode = "serial";
        c.workers = 2;
        auto issues = validateExperiment(c);
        QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
        QCOMPARE(issues[0].field, std::string("workers"));
        QVERIFY2(issues[0].message.find("serial mode runs exactly 1 worker (got 2)") !=
                     std::string::npos,
                 issues[0].message.c_str());
        c.workers = 1;
        QVERIFY(validateExperiment(c).empty());
        c.mode = "threads-locked";
        c.workers = 256;
        QVERIFY(validateExperiment(c).empty());
    }

    void boundariesAreValid() {
        ExperimentConfig c = baseConfig();
        c.workers = 256;
        c.epochs = hwl::limits::kMaxEpochs;
        c.batch = hwl::limits::kMaxBatch;
        c.lr = 100;
        c.momentum = 0;
        c.weightDecay = 1;
        c.testFraction = 0;
        auto issues = validateExperiment(c);
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
        c.workers = 1;
        c.epochs = 1;
        c.batch = 1;
        c.lr = 1e-12;
        c.momentum = 0.999;
        c.weightDecay = 0;
        c.testFraction = 0.999;
        issues = validateExperiment(c);
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
    }

    void severalIssuesTogether() {
        ExperimentConfig c = baseConfig();
        c.model = "rnn:3";
        c.dataset = "nope:1";
        c.workers = 0;
        c.epochs = 0;
        c.lr = -1;
        c.momentum = 1;
        const auto issues = validateExperiment(c);
        QVERIFY2(issues.size() == 6, qPrintable(issuesText(issues)));
        QStringList fields;
        for (const auto& i : issues)
            fields << QString::fromStdString(i.field);
        fields.sort();
        QCOMPARE(fields, QStringList({"dataset", "epochs", "lr", "model", "momentum", "workers"}));
        try {
            validateExperimentOrThrow(c);
            QFAIL("validateOrThrow accepted an invalid config");
        } catch (const InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(QLatin1String("invalid experiment:")), qPrintable(what));
            QCOMPARE(what.count(QLatin1Char('\n')), qsizetype(6)); // one line per issue
            for (const auto& i : issues)
                QVERIFY2(what.contains(QString::fromStdString(i.field + ": " + i.message)),
                         qPrintable(what));
        }
        // Serial mode with 0 workers: two separate workers problems.
        ExperimentConfig s = baseConfig();
        s.mode = "serial";
        s.workers = 0;
        const auto both = validateExperiment(s);
        QVERIFY2(both.size() == 2, qPrintable(issuesText(both)));
        QCOMPARE(both[0].field, std::string("workers"));
        QCOMPARE(both[1].field, std::string("workers"));
    }

    void mergeJsonErrors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("needle");
        QTest::newRow("malformed") << R"({"workers": 2)"
                                   << "not valid JSON";
        QTest::newRow("trailing comma") << R"({"workers": 2,})"
                                        << "not valid JSON";
        QTest::newRow("empty text") << ""
                                    << "not valid JSON";
        QTest::newRow("array") << "[1, 2]"
                               << "expected a JSON object";
        QTest::newRow("nested 100000 deep")
            << QString("{\"workers\": " + QString(100000, '[') + QString(100000, ']') + "}")
            << "nested more than 32 levels deep (at byte offset 43); an experiment file is one "
               "object";
        QTest::newRow("number overflow") << R"({"lr": 1e400})"
                                         << "not usable JSON: [json.exception.out_of_range.406] "
                                            "number overflow parsing '1e400' (numbers must fit "
                                            "a double)";
        QTest::newRow("byte-order mark")
            << QString::fromUtf8("\xef\xbb\xbf{\"wokers\": 2}") << "unknown field \"wokers\"";
        QTest::newRow("number") << "42"
                                << "expected a JSON object";
        QTest::newRow("string") << R"("workers")"
                                << "expected a JSON object";
        QTest::newRow("unknown field") << R"({"wokers": 2})"
                                       << "unknown field \"wokers\"";
        QTest::newRow("workers string") << R"({"workers": "4"})"
                                        << "field \"workers\" must be an integer (got \"4\")";
        QTest::newRow("workers float") << R"({"workers": 2.0})"
                                       << "field \"workers\" must be an integer";
        QTest::newRow("epochs float") << R"({"epochs": 2.5})"
                                      << "field \"epochs\" must be an integer (got 2.5)";
        QTest::newRow("batch bool") << R"({"batch": true})"
                                    << "field \"batch\" must be an integer";
        QTest::newRow("seed negative")
            << R"({"seed": -1})"
            << "field \"seed\" must be in 0..18446744073709551615 (got -1)";
        QTest::newRow("seed float") << R"({"seed": 1.5})"
                                    << "field \"seed\" must be a non-negative integer";
        QTest::newRow("workers 0") << R"({"workers": 0})"
                                   << "field \"workers\" must be in 1..256 (got 0)";
        QTest::newRow("workers 257") << R"({"workers": 257})"
                                     << "field \"workers\" must be in 1..256 (got 257)";
        QTest::newRow("workers huge") << R"({"workers": 4294967297})"
                                      << "field \"workers\" must be in 1..256 (got 4294967297)";
        QTest::newRow("epochs 0") << R"({"epochs": 0})"
                                  << "field \"epochs\" must be in 1..100000";
        QTest::newRow("batch too big") << R"({"batch": 1048577})"
                                       << "field \"batch\" must be in 1..1048576 (got 1048577)";
        QTest::newRow("lr string") << R"({"lr": "fast"})"
                                   << "field \"lr\" must be a number";
        QTest::newRow("momentum null") << R"({"momentum": null})"
                                       << "field \"momentum\" must be a number";
        QTest::newRow("model number") << R"({"model": 5})"
                                      << "field \"model\" must be a string";
        QTest::newRow("mode number") << R"({"mode": 3})"
                                     << "field \"mode\" must be a string";
        QTest::newRow("split bogus") << R"({"split": "x"})"
                                     << "\"shard\" or \"replicate\"";
        QTest::newRow("shuffle number") << R"({"shuffle": 1})"
                                        << "field \"shuffle\" must be true or false";
        QTest::newRow("out array") << R"({"out": ["a"]})"
                                   << "field \"out\" must be a string";
    }

    void bracketsInStringsDoNotNest() {
        ExperimentConfig c = ExperimentConfig::defaults();
        const std::string out = std::string(40, '[') + "\\\"{";
        c.mergeJson("{\"out\": \"" + out + "\"}", "exp.json");
        QCOMPARE(c.out, std::string(40, '[') + "\"{");
    }

    void mergeJsonErrors() {
        QFETCH(QString, json);
        QFETCH(QString, needle);
        ExperimentConfig c = ExperimentConfig::defaults();
        try {
            c.mergeJson(json.toStdString(), "exp.json");
            QFAIL("mergeJson accepted bad input");
        } catch (const InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(QLatin1String("exp.json: ")), qPrintable(what));
            QVERIFY2(what.contains(needle), qPrintable(what));
        }
    }

    void unknownFieldListsKnownFields() {
        ExperimentConfig c;
        try {
            c.mergeJson(R"({"learning-rate": 0.1})", "cfg");
            QFAIL("unknown field accepted");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("known fields:") != std::string::npos, e.what());
            const std::string list = what.substr(what.find("known fields:"));
            for (const char* name : kFieldNames)
                QVERIFY2(list.find(name) != std::string::npos,
                         qPrintable(QString::fromStdString(what + " lacks " + name)));
        }
    }

    void mergeJsonFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString good = dir.filePath("good.json");
        hwl::test::writeBytes(good, R"({"workers": 3, "model": "mlp:20-4"})");
        ExperimentConfig c = ExperimentConfig::defaults();
        c.mergeJsonFile(good.toStdString());
        QCOMPARE(c.workers, 3);
        QCOMPARE(c.model, std::string("mlp:20-4"));

        // Errors name the file.
        const QString bad = dir.filePath("bad.json");
        hwl::test::writeBytes(bad, R"({"workers": "many"})");
        HWL_VERIFY_THROWS(c.mergeJsonFile(bad.toStdString()), InputError,
                          "config \"" + bad.toStdString() + "\": field \"workers\"");
    }

    void mergeJsonFileMissing() {
        QTemporaryDir dir;
        const std::string missing = dir.filePath("absent.json").toStdString();
        ExperimentConfig c;
        HWL_VERIFY_THROWS(c.mergeJsonFile(missing), InputError, "\"" + missing + "\"");
        HWL_VERIFY_THROWS(c.mergeJsonFile(missing), InputError, "cannot be read");
    }

    void mergeJsonFileTooLarge() {
        QTemporaryDir dir;
        const QString path = dir.filePath("huge.json");
        // Valid JSON, just padded past the limit: the size alone rejects it.
        QByteArray text = R"({"workers": 3})";
        text += QByteArray((1 << 20) + 1 - text.size(), ' ');
        QCOMPARE(text.size(), qsizetype((1 << 20) + 1));
        hwl::test::writeBytes(path, text);
        ExperimentConfig c;
        HWL_VERIFY_THROWS(c.mergeJsonFile(path.toStdString()), InputError, "limit 1 MiB");
        HWL_VERIFY_THROWS(c.mergeJsonFile(path.toStdString()), InputError, "1048577 bytes");
        QCOMPARE(c.workers, 2); // untouched

        // Exactly 1 MiB is still accepted.
        text.chop(1);
        hwl::test::writeBytes(path, text);
        c.mergeJsonFile(path.toStdString());
        QCOMPARE(c.workers, 3);
    }

    void modeAndSplitText() {
        // Mode names are the registered strategies' names; unknown ones are refused.
        for (const char* m : {"serial", "threads", "threads-locked", "processes"}) {
            ExperimentConfig c = baseConfig();
            c.mergeJson(std::string(R"({"mode": ")") + m + "\"}", "m");
            QCOMPARE(c.mode, std::string(m));
        }
        for (const char* m : {"Threads", ""}) {
            ExperimentConfig c = baseConfig();
            c.mode = m;
            const auto issues = validateExperiment(c);
            QVERIFY(!issues.empty() && issues[0].field == "mode");
        }
        for (auto s : {hwl::DataSplit::Shard, hwl::DataSplit::Replicate})
            QVERIFY(hwl::parseDataSplit(hwl::toString(s)) == s);
        QVERIFY(!hwl::parseDataSplit("sharded"));
    }

    // The table every surface is made from: each JSON field once, with its
    // limits the ones the validator applies.
    void fieldTable() {
        QCOMPARE(hwl::experimentFields().size(), std::size(kFieldNames));
        for (const char* name : kFieldNames)
            QVERIFY2(hwl::findField(name), name);
        QCOMPARE(hwl::findField("workers")->max, double(hwl::limits::kMaxWorkers));
        QCOMPARE(QString::fromStdString(hwl::findField("lr")->rangeText()), QString("(0, 100]"));
        QCOMPARE(QString::fromStdString(hwl::findField("momentum")->rangeText()),
                 QString("[0, 1)"));
        QCOMPARE(hwl::findFlag("--no-share"), hwl::findField("share"));
        QVERIFY(!hwl::flagTakesValue("--shuffle"));
        QVERIFY(hwl::flagTakesValue("--lr"));
        ExperimentConfig c = baseConfig();
        hwl::applyFlag(c, "--no-shuffle", std::nullopt);
        hwl::applyFlag(c, "--lr", std::string("0.25"));
        QVERIFY(!c.shuffle);
        QCOMPARE(c.lr, 0.25);
        HWL_VERIFY_THROWS(hwl::applyFlag(c, "--workers", std::string("x")), InputError,
                          "--workers: expected an integer, got \"x\"");
        HWL_VERIFY_THROWS(hwl::applyFlag(c, "--workers", std::string("99999999999")), InputError,
                          "--workers: must be in 1..256 (got 99999999999)");
    }
};

QTEST_GUILESS_MAIN(TestExperimentConfig)
#include "strategy/validation.h"
#include "tst_experimentconfig.moc"
