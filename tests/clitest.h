#pragma once
// What the command-line tests share: running the built hogwild-lab binary
// through QProcess (exit status, output, leftover shared memory), reading
// what it wrote, and running python on it.
#include "io/tensorfile.h"
#include "testpaths.h"
#include "testutil.h"
#include "util/errors.h"

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

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace hwl::test {

/// The message of the InputError `f` throws, or "" when it throws none.
template <class F>
QString refusal(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

inline const char* const kPython = "/usr/bin/python3";

/// The small, fast experiment most cases start from (well under a second).
inline const QStringList kSmall = {
    "--dataset", "teacher:2000x20:4", "--model", "mlp:20-32-4", "--epochs", "2", "--workers", "2"};

/// A run with every experiment flag set away from its default, writing to `out`.
inline QStringList everyFlagChanged(const QString& out) {
    return {"--dataset",
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
            out};
}

/// What --out holds after a run of a mode that keeps its optimizer's state
/// (serial, threads, threads-locked: optimizer.safetensors, for --resume).
inline const QStringList kOutputFiles = {"experiment.json", "manifest.json",         "metrics.csv",
                                         "model.onnx",      "optimizer.safetensors", "summary.json",
                                         "weights.npz",     "weights.safetensors"};
/// The same for the other modes (their workers' momentum ends with them).
inline const QStringList kProcessOutputFiles = {
    "experiment.json", "manifest.json", "metrics.csv",        "model.onnx",
    "summary.json",    "weights.npz",   "weights.safetensors"};

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

inline QStringList shmEntriesOf(qint64 pid) {
    if (pid <= 0)
        return {};
    return QDir(QStringLiteral("/dev/shm"))
        .entryList({QStringLiteral("hwl-%1-*").arg(pid)},
                   QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
}

inline void collect(QProcess& p, Result& r, int timeoutMs) {
    // Already over (a caller's own wait may have seen it end): finished, as
    // waitForFinished() answers false for a process that is no longer running.
    r.finished = p.state() == QProcess::NotRunning || p.waitForFinished(timeoutMs);
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
inline Result runCli(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
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

/// Runs `hogwild-lab --headless ARGS` to the end with `env` added to the
/// environment (the crash tests' hooks, TMPDIR).
inline Result runCliWith(const QStringList& args, const QMap<QString, QString>& env,
                         int timeoutMs = 120000) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
    p.setArguments(QStringList{"--headless"} + args);
    Result r;
    p.start();
    r.started = p.waitForStarted(10000);
    if (r.started) {
        r.pid = p.processId();
        collect(p, r, timeoutMs);
    }
    return r;
}

/// Runs `hogwild-lab ARGS` (the window's options) to the end, without a
/// display unless `platform` names a Qt platform (e.g. "offscreen").
inline Result runWindowApp(const QStringList& args, const QString& platform = {}) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(var);
    if (!platform.isEmpty())
        env.insert("QT_QPA_PLATFORM", platform);
    p.setProcessEnvironment(env);
    p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
    p.setArguments(args);
    Result r;
    p.start();
    r.started = p.waitForStarted(10000);
    if (r.started) {
        r.pid = p.processId();
        collect(p, r, 60000);
    }
    return r;
}

/// Starts `hogwild-lab --headless ARGS` in `p` and reads its stdout until it
/// has printed `marker`; returns what it printed so far (without the marker
/// when it did not start, or fell silent for 30 s first).
inline QString startCliUntil(QProcess& p, const QStringList& args, const QString& marker) {
    p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
    p.setArguments(QStringList{"--headless"} + args);
    p.start();
    QString seen;
    if (!p.waitForStarted(10000))
        return seen;
    while (!seen.contains(marker) && p.waitForReadyRead(30000))
        seen += QString::fromUtf8(p.readAllStandardOutput());
    return seen;
}

inline QStringList dirEntries(const QString& dir) {
    QStringList entries =
        QDir(dir).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
    entries.sort();
    return entries;
}

inline QJsonObject readJsonObject(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

inline QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

inline bool pythonCan(const char* module) {
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
inline PyResult runPython(const QString& script, const QStringList& args) {
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
inline std::map<std::string, std::vector<double>> valuesFromJson(const QJsonObject& o) {
    std::map<std::string, std::vector<double>> values;
    for (auto it = o.begin(); it != o.end(); ++it) {
        auto& v = values[it.key().toStdString()];
        for (const auto& x : it.value().toArray())
            v.push_back(x.toDouble());
    }
    return values;
}

inline std::map<std::string, std::vector<double>>
valuesOf(const std::vector<hwl::Tensor>& tensors) {
    std::map<std::string, std::vector<double>> values;
    for (const auto& t : tensors)
        values[t.name] = std::vector<double>(t.data.begin(), t.data.end());
    return values;
}

/// The rows of a data-driven test over every CPU mode: column "mode", the
/// flags that choose it (MPI's row: skip it where whyMpiCannotRun() says).
inline void addEveryCpuModeRows() {
    QTest::addColumn<QStringList>("mode");
    QTest::newRow("serial") << QStringList{"--mode", "serial", "--workers", "1"};
    QTest::newRow("threads") << QStringList{"--mode", "threads", "--workers", "2"};
    QTest::newRow("threads-locked") << QStringList{"--mode", "threads-locked"};
    QTest::newRow("processes, fork")
        << QStringList{"--mode", "processes", "--start-method", "fork"};
    QTest::newRow("processes, spawn")
        << QStringList{"--mode", "processes", "--start-method", "spawn"};
    QTest::newRow("processes --no-share") << QStringList{"--mode", "processes", "--no-share"};
    QTest::newRow("data-parallel, threads")
        << QStringList{"--mode", "data-parallel", "--transport", "threads"};
    QTest::newRow("data-parallel, processes")
        << QStringList{"--mode", "data-parallel", "--transport", "processes"};
    QTest::newRow("data-parallel, mpi")
        << QStringList{"--mode", "data-parallel", "--transport", "mpi"};
}

/// The flags of a run compared with a PyTorch reference: `model` on
/// `dataset`, serial, in file order, without dropout or a test split, from
/// the reference's `init` weights, with the epochs, batch, lr and momentum
/// of its settings.json, into `out`.
inline QStringList parityRunArgs(const QString& model, const QString& dataset,
                                 const QJsonObject& settings, const QString& init,
                                 const QString& out) {
    return {"--model",
            model,
            "--dataset",
            dataset,
            "--test-fraction",
            "0",
            "--no-shuffle",
            "--dropout",
            "0",
            "--mode",
            "serial",
            "--workers",
            "1",
            "--epochs",
            QString::number(settings["epochs"].toInt()),
            "--batch",
            QString::number(settings["batch"].toInt()),
            "--lr",
            QString::number(settings["lr"].toDouble()),
            "--momentum",
            QString::number(settings["momentum"].toDouble()),
            "--init",
            init,
            "--out",
            out};
}

/// A safetensors file's tensors: name -> values (and its metadata into `meta`).
inline std::map<std::string, std::vector<float>>
tensorsOf(const QString& file, std::map<std::string, std::string>* meta = nullptr) {
    std::map<std::string, std::vector<float>> out;
    for (Tensor& t : readSafetensors(file.toStdString(), meta))
        out[t.name] = std::move(t.data);
    return out;
}

/// The largest difference between a's tensors and b's of the same names
/// (infinity when b lacks one or its size differs).
inline double largestDifference(const std::map<std::string, std::vector<float>>& a,
                                const std::map<std::string, std::vector<float>>& b) {
    double worst = 0;
    for (const auto& [name, values] : a) {
        const auto other = b.find(name);
        if (other == b.end() || other->second.size() != values.size())
            return INFINITY;
        for (std::size_t i = 0; i < values.size(); ++i)
            worst = std::max(worst, double(std::abs(values[i] - other->second[i])));
    }
    return worst;
}

} // namespace hwl::test

/// Runs the CLI and checks that it ended on its own and left no segment behind.
#define RUN_CLI(r, ...)                                                                            \
    const Result r = runCli(__VA_ARGS__);                                                          \
    QVERIFY2(r.started,                                                                            \
             qPrintable(QStringLiteral("hogwild-lab did not start: ") + hwl::test::kAppBinary));   \
    QVERIFY2(r.finished, qPrintable("hogwild-lab did not finish\n" + r.describe()));               \
    QVERIFY2(r.status == QProcess::NormalExit, qPrintable(r.describe()));                          \
    QVERIFY2(r.shmLeftovers.isEmpty(),                                                             \
             qPrintable("left in /dev/shm: " + r.shmLeftovers.join(", ") + "\n" + r.describe()))

namespace hwl::test {

/// The run with every flag off its default (everyFlagChanged) that a test
/// makes once and shares between its output, --init and python cases.
struct BaseRun {
    QTemporaryDir tmp;
    QString out;      ///< its --out, tmp/base/nested
    QStringList args; ///< its flags
    std::vector<hwl::Tensor> weights;

    /// For initTestCase: checks that hogwild-lab is built, then makes the run.
    void make() {
        QVERIFY2(QFileInfo(QString::fromUtf8(kAppBinary)).isExecutable(), kAppBinary);
        QVERIFY(tmp.isValid());
        out = tmp.filePath("base/nested");
        args = everyFlagChanged(out);
        RUN_CLI(r, args);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        weights = hwl::readSafetensors((out + "/weights.safetensors").toStdString());
    }
};

/// --trace's file, read (tst_trace, tst_mpi): one track per (pid, tid).
struct Track {
    QString name;
    std::map<QString, double> seconds; ///< per event name
    qint64 steps = 0;
    double first = 1e300, last = -1; ///< the spans after start-up: first start, last end (s)
    double startupEnd = -1;          ///< s
};

/// The trace's events, checked one by one; its tracks by (pid, tid).
struct Trace {
    QJsonObject root;
    std::map<std::pair<qint64, qint64>, Track> tracks;
    QString problem; ///< the first ill-formed event, or empty
};

inline Trace readTrace(const QByteArray& bytes) {
    Trace t;
    QJsonParseError error;
    t.root = QJsonDocument::fromJson(bytes, &error).object();
    if (error.error != QJsonParseError::NoError) {
        t.problem = "not JSON: " + error.errorString();
        return t;
    }
    for (const auto& v : t.root["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        const QString ph = e["ph"].toString();
        const bool complete = ph == "X";
        if (!e["name"].isString() || (ph != "X" && ph != "M") || !e["pid"].isDouble() ||
            !e["tid"].isDouble() ||
            (complete && (!e["ts"].isDouble() || !e["dur"].isDouble() || e["ts"].toDouble() < 0 ||
                          e["dur"].toDouble() < 0))) {
            t.problem = "ill-formed: " + QJsonDocument(e).toJson(QJsonDocument::Compact);
            return t;
        }
        Track& track = t.tracks[{e["pid"].toInteger(), e["tid"].toInteger()}];
        if (e["name"] == "thread_name")
            track.name = e["args"].toObject()["name"].toString();
        if (complete) {
            const double ts = e["ts"].toDouble() * 1e-6, dur = e["dur"].toDouble() * 1e-6;
            track.seconds[e["name"].toString()] += dur;
            track.steps += e["args"].toObject()["steps"].toInteger();
            if (e["name"].toString().startsWith("start-up")) {
                track.startupEnd = ts + dur;
            } else {
                track.first = std::min(track.first, ts);
                track.last = std::max(track.last, ts + dur);
            }
        }
    }
    return t;
}

inline const Track* workerTrack(const Trace& t, int rank) {
    for (const auto& [id, track] : t.tracks)
        if (track.name == QString("worker %1").arg(rank))
            return &track;
    return nullptr;
}

} // namespace hwl::test
