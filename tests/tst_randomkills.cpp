// 30 runs of the command line killed at random moments: SIGKILL, SIGTERM,
// SIGINT or SIGHUP, to the parent, to one of its other processes (a worker,
// the fork server) or to the whole process group, under every start method.
// Whatever the moment (loading, training, stopping, writing), once the run's
// last process is gone: no process of it is left, no temporary file is in
// --out, no segment of it is in /dev/shm (after SIGKILL to the whole group
// nothing of the run can act: the next run removes its segments, checked
// here), the exit code says what happened, and --out holds either every
// output or none of the weights. The moments come from a seeded generator:
// HWL_KILL_SEED=N reruns one sequence, HWL_KILL_RUNS=N sets the count.
#include "clitest.h"
#include "io/runmanifest.h"
#include "run/outputfolder.h"
#include "store/sharedsegment.h"
#include "testpaths.h"

#include <QDirIterator>

#include <random>
#include <set>
#include <thread>

using namespace hwl::test;

namespace {

/// The live (not zombie) processes of process group `pgid`, from /proc.
std::set<pid_t> liveProcessesOf(pid_t pgid) {
    std::set<pid_t> pids;
    QDirIterator it("/proc", QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        bool ok = false;
        const pid_t pid = pid_t(it.next().section('/', -1).toInt(&ok));
        if (!ok)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const auto close = text.lastIndexOf(')');
        if (close < 0)
            continue;
        // After "(comm)": state ppid pgrp ...
        const QList<QByteArray> fields = text.mid(close + 2).split(' ');
        if (fields.size() > 2 && fields[0] != "Z" && fields[2].toInt() == pgid)
            pids.insert(pid);
    }
    return pids;
}

QStringList segmentsOf(const std::set<pid_t>& pids) {
    QStringList all;
    for (const pid_t pid : pids)
        all += shmEntriesOf(pid);
    return all;
}

QStringList temporariesIn(const QString& dir) {
    return QDir(dir).entryList({"*.tmp-*"}, QDir::Files | QDir::Hidden | QDir::System);
}

const char* signalName(int sig) {
    switch (sig) {
    case SIGKILL:
        return "SIGKILL";
    case SIGTERM:
        return "SIGTERM";
    case SIGINT:
        return "SIGINT";
    default:
        return "SIGHUP";
    }
}

enum class Target { Parent, Child, Group };

struct Kill {
    QString method;
    int signal;
    Target target;
    int afterMs;
    QString describe() const {
        static const char* const targets[] = {"the parent", "another process", "the group"};
        return QStringLiteral("%1, %2 to %3 after %4 ms")
            .arg(method, signalName(signal), targets[int(target)])
            .arg(afterMs);
    }
};

int envInt(const char* name, int fallback) {
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok ? v : fallback;
}

} // namespace

class TestRandomKills : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

    /// One run, one kill; fails the test (naming the kill) on a breach.
    void killOnce(const Kill& k, int index) {
        const QString out = tmp_.filePath(QStringLiteral("run-%1").arg(index));
        QProcess p;
        p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
        p.setArguments({"--headless", "--mode", "processes", "--start-method", k.method,
                        "--dataset", "teacher:20000x20:4", "--model", "mlp:20-32-4", "--epochs",
                        "100000", "--workers", "2", "--out", out, "--quiet"});
        p.setChildProcessModifier([] { setpgid(0, 0); }); // its own group, like a shell job
        p.start();
        QVERIFY(p.waitForStarted(10000));
        const pid_t parent = pid_t(p.processId());
        std::this_thread::sleep_for(std::chrono::milliseconds(k.afterMs));
        std::set<pid_t> seen = liveProcessesOf(parent);
        seen.insert(parent);
        const bool childless = seen.size() == 1;
        pid_t victim = k.target == Target::Group ? -parent : parent;
        if (k.target == Target::Child)
            for (const pid_t pid : seen)
                if (pid != parent)
                    victim = pid; // the last one: a worker, or the fork server
        ::kill(victim, k.signal);
        // A signal a run ignores (a worker ignores the group's signals, a
        // stopping run finishes its step): end it the way a user would.
        const bool endedAtOnce = p.waitForFinished(3000);
        if (!endedAtOnce) {
            for (const pid_t pid : liveProcessesOf(parent))
                seen.insert(pid);
            ::kill(parent, SIGTERM);
        }
        Result r;
        r.pid = parent;
        collect(p, r, 60000);
        r.finished = r.finished || endedAtOnce;
        QVERIFY2(r.finished, qPrintable(k.describe() + ": the run hung\n" + r.describe()));
        // No orphan: every process of the group ends within seconds.
        QTRY_VERIFY2_WITH_TIMEOUT(liveProcessesOf(parent).empty(),
                                  qPrintable(k.describe() + ": processes left"), 15000);
        // Nobody of the run was left to act (the next run cleans up): the whole
        // group was killed, or the parent was before it had a child (a child
        // kill falls back to the parent when none existed yet).
        const bool groupKilled = k.target == Target::Group && k.signal == SIGKILL;
        const bool parentAlone = victim == parent && k.signal == SIGKILL && childless;
        if (groupKilled || parentAlone) {
            hwl::SharedSegment::cleanupStaleSegments();
            hwl::settleRunFolder(out.toStdString()); // what the next run's claim does
        }
        QVERIFY2(segmentsOf(seen).isEmpty(),
                 qPrintable(k.describe() + ": segments left: " + segmentsOf(seen).join(", ")));
        QVERIFY2(temporariesIn(out).isEmpty(),
                 qPrintable(k.describe() + ": temporaries left: " + temporariesIn(out).join(", ")));
        const QStringList files = dirEntries(out);
        QVERIFY2(files.isEmpty() || files == kOutputFiles || files == kProcessOutputFiles ||
                     files == QStringList({"experiment.json", "manifest.json", "metrics.csv",
                                           "summary.json"}),
                 qPrintable(k.describe() + ": --out holds " + files.join(", ")));
        QVERIFY2(files.isEmpty() || hwl::checkRunFolder(out.toStdString(), true).whole(),
                 qPrintable(k.describe() + ": --out is not a whole run"));
        // The exit says what happened: a signal's number, 1 for a failed
        // run (a worker killed), 0 never (the run was far from its end).
        // Killed by the signal itself: SIGKILL, or any signal that came
        // before the command line was read (nothing of the run existed).
        const bool killedByKernel = r.status == QProcess::CrashExit;
        const bool toParent = victim == parent || victim == -parent;
        QVERIFY2(killedByKernel ? toParent && (k.signal == SIGKILL || !QFileInfo::exists(out))
                                : (r.code == 1 || r.code > 128),
                 qPrintable(k.describe() + "\n" + r.describe()));
        if (!killedByKernel && r.code > 128 && files.size() >= kProcessOutputFiles.size())
            QVERIFY2(r.out.contains("(partial run)"), qPrintable(r.describe()));
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void killedAtRandomLeavesNothing() {
        const int seed = envInt("HWL_KILL_SEED", 20261201);
        const int runs = envInt("HWL_KILL_RUNS", 30);
        std::mt19937 rng(static_cast<unsigned>(seed));
        const QStringList methods = {"fork", "spawn", "forkserver"};
        const int stopSignals[] = {SIGKILL, SIGTERM, SIGINT, SIGHUP};
        qInfo("seed %d, %d runs (HWL_KILL_SEED, HWL_KILL_RUNS)", seed, runs);
        for (int i = 0; i < runs; ++i) {
            const Kill k{methods[i % 3], stopSignals[rng() % 4], Target(rng() % 3),
                         int(rng() % 1500)};
            qInfo("run %d: %s", i + 1, qPrintable(k.describe()));
            killOnce(k, i);
            if (QTest::currentTestFailed())
                return;
        }
    }
};

QTEST_GUILESS_MAIN(TestRandomKills)
#include "tst_randomkills.moc"
