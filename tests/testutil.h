#pragma once
// Small helpers shared by the tests.
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include "enginetestutil.h"

#include "config/experimentconfig.h"
#include "config/fields.h"
#include "run/run.h"
#include "strategy/catalog.h"
#include "telemetry/sample.h"
#include "util/errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// QCOMPARE of run and worker states prints their names. (Their names are
// hwl::stateName(), not toString(): QTest would find a toString() by
// argument lookup, in every test, and free the static name it returns when
// a comparison fails.)
namespace QTest {
inline bool qCompare(hwl::WorkerState actual, hwl::WorkerState expected, const char* a,
                     const char* e, const char* file, int line) {
    return qCompare(QString::fromLatin1(hwl::stateName(actual)),
                    QString::fromLatin1(hwl::stateName(expected)), a, e, file, line);
}
inline bool qCompare(hwl::RunState actual, hwl::RunState expected, const char* a, const char* e,
                     const char* file, int line) {
    return qCompare(QString::fromLatin1(hwl::stateName(actual)),
                    QString::fromLatin1(hwl::stateName(expected)), a, e, file, line);
}
} // namespace QTest

namespace hwl::test {

/// Keeps a window test's settings (QSettings) and run list (runs.json under
/// $XDG_DATA_HOME) in `dir`, away from the user's. Call before any window.
inline void isolateSettings(const QString& dir) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir);
    qputenv("XDG_DATA_HOME", QDir(dir).filePath("data").toUtf8());
    QCoreApplication::setOrganizationName("HogwildLabTests");
}

/// A window test's own folder, with its settings and run list isolated in
/// it (isolateSettings()) from the moment the test object is made, before
/// any window: a member of the test class stands for the temporary folder
/// and the initTestCase() that each window test would otherwise write.
class IsolatedSettings : public QTemporaryDir {
public:
    IsolatedSettings() {
        if (!isValid())
            qFatal("cannot make a temporary folder for the test's settings: %s",
                   qPrintable(errorString()));
        isolateSettings(path());
    }
};

/// Writes raw bytes to a file (test fixtures); returns the path as std::filesystem::path.
inline std::filesystem::path writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write test fixture %s", qPrintable(path));
    f.write(bytes);
    f.close();
    return std::filesystem::path(path.toStdString());
}

/// An IDX train pair in `dir` (made if needed): one rows x cols image of
/// zeros, label 0.
inline void writeIdx(const QString& dir, char rows, char cols) {
    QDir().mkpath(dir);
    writeBytes(dir + "/train-images-idx3-ubyte", QByteArray::fromHex("0000080300000001000000") +
                                                     rows + QByteArray(3, '\0') + cols +
                                                     QByteArray(rows * cols, '\0'));
    writeBytes(dir + "/train-labels-idx1-ubyte", QByteArray::fromHex("000008010000000100"));
}

inline QByteArray readBytes(const std::filesystem::path& path) {
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

/// The message of the InputError that starting `c` throws (the checks a
/// run makes before it trains), or empty when it starts.
inline QString startRefusal(const hwl::ExperimentConfig& c) {
    try {
        hwl::Run run(c);
        run.start();
        run.wait(std::chrono::seconds(60));
    } catch (const hwl::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Why MPI runs cannot happen here (this build has no MPI, or mpirun is
/// missing), or empty when they can.
inline QString whyMpiCannotRun() {
    if (const std::string why = transportUnavailable(int(Transport::Mpi)); !why.empty())
        return QString::fromStdString(why);
    if (QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty())
        return QStringLiteral("mpirun is not on PATH (apt-get install openmpi-bin)");
    return {};
}

/// Fixture files in a temporary directory removed with the test object.
/// Test classes inherit it after QObject.
class Fixtures {
protected:
    QTemporaryDir tmp_;
    std::filesystem::path file(const QString& name, const QByteArray& bytes) {
        return writeBytes(tmp_.filePath(name), bytes);
    }
    std::filesystem::path subdir(const QString& name) {
        QDir(tmp_.path()).mkpath(name);
        return std::filesystem::path(tmp_.filePath(name).toStdString());
    }
};

/// Applies command-line flags to `c` as the CLI would ("--optimizer adam
/// --lr 0.01 --nesterov": a flag takes the next word as its value unless
/// that word is a flag too).
inline void applyFlags(hwl::ExperimentConfig& c, const QStringList& flags) {
    for (qsizetype i = 0; i < flags.size(); ++i) {
        const std::string flag = flags[i].toStdString();
        std::optional<std::string> value;
        if (i + 1 < flags.size() && !flags[i + 1].startsWith("--"))
            value = flags[++i].toStdString();
        hwl::applyFlag(c, flag, value);
    }
}

/// A generated dataset's spec ("kind:ROWSxCOLS:...") with at most `most`
/// rows; any other spec as it is. Tests that run presets cut their data so:
/// under AddressSanitizer the presets' full epochs took minutes each.
inline std::string fewerRows(const std::string& spec, std::uint64_t most) {
    const std::size_t colon = spec.find(':');
    const std::size_t x = colon == std::string::npos ? colon : spec.find('x', colon);
    if (x == std::string::npos)
        return spec;
    const std::string rows = spec.substr(colon + 1, x - colon - 1);
    if (rows.empty() || rows.find_first_not_of("0123456789") != std::string::npos)
        return spec;
    return spec.substr(0, colon + 1) +
           std::to_string(std::min<std::uint64_t>(std::stoull(rows), most)) + spec.substr(x);
}

} // namespace hwl::test

/// QVERIFY that `expr` throws `Type` whose what() contains `needle`.
#define HWL_VERIFY_THROWS(expr, Type, needle)                                                      \
    do {                                                                                           \
        bool thrown_ = false;                                                                      \
        try {                                                                                      \
            (void)(expr);                                                                          \
        } catch (const Type& e_) {                                                                 \
            thrown_ = true;                                                                        \
            const std::string what_ = e_.what();                                                   \
            if (what_.find(needle) == std::string::npos)                                           \
                QFAIL(qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"")                     \
                                     .arg(QString::fromStdString(what_),                           \
                                          QString::fromStdString(std::string(needle)))));          \
        }                                                                                          \
        if (!thrown_)                                                                              \
            QFAIL("expected " #Type " from " #expr);                                               \
    } while (false)
