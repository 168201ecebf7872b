// A run folder is all or nothing (docs/tests.md, "Crash tests"): the program
// is stopped at every persistence point of writing a run (each file made,
// piece written, fsync, rename, folder made or removed) in turn, with SIGKILL
// and, separately, with ENOSPC injected there (util/persistence.h's test
// hook). After each, the folder holds the old whole run or the new whole run:
// directly, or once the next claim has settled what the crash left (a
// staging folder removed, a committed run moved into place), and nothing
// else is left behind.
#include "clitest.h"
#include "io/runmanifest.h"
#include "run/outputfolder.h"
#include "testpaths.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <filesystem>

using namespace hwl::test;
namespace fs = std::filesystem;

namespace {

const QStringList kTiny = {"--dataset", "teacher:200x4:2", "--model", "mlp:4-8-2", "--epochs",
                           "1",         "--mode",          "serial"};

/// Runs the program quietly with `env` added; the result.
Result runWith(const QStringList& args, const QMap<QString, QString>& env) {
    return runCliWith(QStringList{"--quiet"} + args, env, 60000);
}

/// The seed of the run in `dir` as its experiment.json says (-1: none).
int seedIn(const QString& dir) {
    QFile f(dir + "/experiment.json");
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return QJsonDocument::fromJson(f.readAll()).object()["seed"].toInt(-1);
}

/// The steps of a run of `args`, as the trace lists them (`into` is used up).
QStringList tracedSteps(const QStringList& args) {
    const Result r = runWith(args, {{"HWL_TEST_TRACE_PERSISTENCE", "1"}});
    QStringList steps;
    static const QRegularExpression line("^persistence point (\\d+): (.*)$",
                                         QRegularExpression::MultilineOption);
    for (auto it = line.globalMatch(r.err); it.hasNext();)
        steps << it.next().captured(2);
    return steps;
}

/// Replaces `to` with a copy of `from` (a whole run), or removes it when `from` is empty.
void copyRun(const QString& from, const QString& to) {
    std::error_code ec;
    fs::remove_all(to.toStdString(), ec);
    if (!from.isEmpty())
        fs::copy(from.toStdString(), to.toStdString(), fs::copy_options::recursive, ec);
}

/// What is left in `dir` that is not a run file (staging, commit, temporaries).
QStringList leftovers(const QString& dir) {
    QStringList extra;
    for (const QString& name : dirEntries(dir))
        if (!kOutputFiles.contains(name))
            extra << name;
    return extra;
}

} // namespace

class TestCrashPoints : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString old_;        ///< a whole run of seed 1
    QStringList steps_;  ///< the persistence steps of replacing it with seed 2
    int commitStep_ = 0; ///< the step that commits (rename to .hwl-commit), 1-based

    QStringList replacing(const QString& out) const {
        return kTiny + QStringList{"--seed", "2", "--overwrite", "--out", out};
    }

    /// The folder after the next claim settled it: the old run (seed 1) or,
    /// once step `k` passed the commit, the new (seed 2), whole, and nothing else.
    void checkSettled(const QString& out, int k, const QString& how) {
        const std::string said = hwl::settleRunFolder(out.toStdString());
        const hwl::FolderCheck check = hwl::checkRunFolder(out.toStdString(), true);
        QVERIFY2(
            check.whole(),
            qPrintable(how + ": " + QString::fromStdString(trustText(out.toStdString(), check))));
        QCOMPARE(seedIn(out), k > commitStep_ ? 2 : 1);
        QVERIFY2(leftovers(out).isEmpty(), qPrintable(how + ": " + leftovers(out).join(", ")));
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        old_ = tmp_.filePath("old");
        const Result first = runWith(kTiny + QStringList{"--seed", "1", "--out", old_}, {});
        QVERIFY2(first.code == 0, qPrintable(first.describe()));
        const QString traced = tmp_.filePath("traced");
        copyRun(old_, traced);
        steps_ = tracedSteps(replacing(traced));
        commitStep_ = int(steps_.indexOf(QRegularExpression("^rename .*/\\.hwl-commit$"))) + 1;
        QVERIFY2(steps_.size() >= 40 && commitStep_ > 30, qPrintable(steps_.join('\n')));
        QCOMPARE(seedIn(traced), 2);
        qInfo("%lld persistence points in replacing a run; the commit is point %d",
              qlonglong(steps_.size()), commitStep_);
    }

    // SIGKILL at each point of --overwrite: before the commit, the old run
    // is whole in place (a staging folder beside it); from the commit on,
    // the new run is whole in .hwl-commit or in place. The next claim
    // leaves exactly one whole run.
    void killedAtEveryPointOfAReplacingRun() {
        const QString out = tmp_.filePath("killed");
        int crashes = 0;
        for (int k = 1; k <= steps_.size(); ++k) {
            copyRun(old_, out);
            const Result r = runWith(replacing(out), {{"HWL_TEST_CRASH_AT", QString::number(k)}});
            const QString how = QStringLiteral("killed at %1 (%2)").arg(k).arg(steps_[k - 1]);
            QVERIFY2(r.status == QProcess::CrashExit, qPrintable(how + "\n" + r.describe()));
            ++crashes;
            const bool journal = QFileInfo::exists(out + "/.hwl-commit");
            if (!journal) // no commit under way: a whole run in place
                QVERIFY2(hwl::checkRunFolder(out.toStdString(), true).whole(), qPrintable(how));
            QVERIFY2(journal || k <= commitStep_ || seedIn(out) == 2, qPrintable(how));
            checkSettled(out, k, how);
        }
        QCOMPARE(crashes, steps_.size());
    }

    // ENOSPC at each point: before the commit, the run commits nothing,
    // says so (exit 1) and removes its staging folder itself; after it, the
    // run is committed and the next claim moves it into place; once it is
    // in place, only the folder's sync can still fail the run.
    void fullDiskAtEveryPointOfAReplacingRun() {
        const QString out = tmp_.filePath("full");
        for (int k = 1; k <= steps_.size(); ++k) {
            copyRun(old_, out);
            const Result r = runWith(replacing(out), {{"HWL_TEST_FAIL_AT", QString::number(k)}});
            const QString how = QStringLiteral("ENOSPC at %1 (%2)").arg(k).arg(steps_[k - 1]);
            // Removing the empty .hwl-commit once the run is in place is
            // tidying: its failure costs nothing (the next claim removes it).
            const bool tidying =
                steps_[k - 1].startsWith("remove ") && steps_[k - 1].endsWith("/.hwl-commit");
            QVERIFY2(r.code == (tidying ? 0 : 1) && r.status == QProcess::NormalExit,
                     qPrintable(how + "\n" + r.describe()));
            QVERIFY2(tidying || r.err.contains("No space left on device"),
                     qPrintable(how + r.describe()));
            if (k <= commitStep_) {
                QVERIFY2(leftovers(out).isEmpty(),
                         qPrintable(how + ": " + leftovers(out).join(", ")));
                QCOMPARE(seedIn(out), 1);
            }
            checkSettled(out, k, how);
        }
    }

    // SIGKILL at each point of a run into a new folder: the folder is then
    // empty (or holds only a staging folder) or holds the whole new run.
    void killedAtEveryPointOfAFirstRun() {
        const QString out = tmp_.filePath("first");
        const QStringList args = kTiny + QStringList{"--seed", "2", "--out", out};
        copyRun({}, out);
        const int points = int(tracedSteps(args).size());
        QVERIFY(points > commitStep_);
        for (int k = 1; k <= points; ++k) {
            copyRun({}, out);
            const Result r = runWith(args, {{"HWL_TEST_CRASH_AT", QString::number(k)}});
            QVERIFY2(r.status == QProcess::CrashExit, qPrintable(r.describe()));
            hwl::settleRunFolder(out.toStdString());
            const hwl::FolderCheck check = hwl::checkRunFolder(out.toStdString(), true);
            const QString how = QStringLiteral("first run killed at %1").arg(k);
            QVERIFY2(check.whole() ? seedIn(out) == 2 : check.trust == hwl::FolderTrust::Empty,
                     qPrintable(how));
            QVERIFY2(leftovers(out).isEmpty(), qPrintable(how + ": " + leftovers(out).join(", ")));
        }
    }

    // A sweep whose first run could not commit its files (a full disk) or
    // was killed while writing them keeps nothing of that run: started
    // again, it settles the folder, makes that run again and keeps the
    // finished one (where before it kept a run without weights, or refused
    // the folder as "another experiment's").
    void aSweepMakesAgainARunThatWasNotCommitted() {
        for (const char* hook : {"HWL_TEST_FAIL_AT", "HWL_TEST_CRASH_AT"}) {
            const QString out = tmp_.filePath(QStringLiteral("sweep-%1").arg(hook));
            const QStringList args = kTiny + QStringList{"--sweep", "lr=0.1,0.2", "--out", out};
            const QString traced = tmp_.filePath("sweep-traced");
            copyRun({}, traced);
            const QStringList steps =
                tracedSteps(kTiny + QStringList{"--sweep", "lr=0.1,0.2", "--out", traced});
            const int k = int(steps.indexOf(QRegularExpression("^write .*/lr=0\\.1/\\.hwl-staging-"
                                                               "\\d+/weights\\.npz$"))) +
                          1;
            QVERIFY2(k > 0, qPrintable(steps.join('\n')));
            const Result first = runWith(args, {{hook, QString::number(k)}});
            const bool killed = QString(hook) == "HWL_TEST_CRASH_AT";
            QVERIFY2(killed ? first.status == QProcess::CrashExit : first.code == 1,
                     qPrintable(first.describe()));
            const Result again = runWith(args, {});
            QVERIFY2(again.code == 0, qPrintable(again.describe()));
            QVERIFY2(!again.out.contains("lr=0.1: finished before, kept"),
                     qPrintable(again.describe()));
            if (!killed) // run 2 was made after run 1's failure: kept now
                QVERIFY2(again.out.contains("lr=0.2: finished before, kept"),
                         qPrintable(again.describe()));
            if (killed)
                QVERIFY2(again.out.contains("the unfinished files of a run that was interrupted"),
                         qPrintable(again.describe()));
            for (const char* run : {"/lr=0.1", "/lr=0.2"}) {
                QVERIFY(hwl::checkRunFolder((out + run).toStdString(), true).whole());
                QVERIFY2(leftovers(out + run).isEmpty(),
                         qPrintable(leftovers(out + run).join(",")));
            }
        }
    }

    // Two runs started at once into one new folder: one writes its run,
    // the other is refused, and the folder is never removed under the one
    // that holds it (a refused run removed the folder it had made).
    void twoRunsAtOnceIntoANewFolder() {
        for (int i = 0; i < 60; ++i) {
            const QString out = tmp_.filePath(QStringLiteral("race-%1").arg(i));
            QProcess a, b;
            for (QProcess* p : {&a, &b}) {
                p->setProgram(QString::fromUtf8(kAppBinary));
                p->setArguments(QStringList{"--headless", "--quiet"} + kTiny +
                                QStringList{"--out", out});
                p->start();
            }
            QVERIFY(a.waitForFinished(60000) && b.waitForFinished(60000));
            const QList<int> codes{a.exitCode(), b.exitCode()};
            QVERIFY2(codes.contains(0) && codes.contains(2),
                     qPrintable(QStringLiteral("pair %1: exits %2 and %3\n%4\n%5")
                                    .arg(i)
                                    .arg(codes[0])
                                    .arg(codes[1])
                                    .arg(QString::fromUtf8(a.readAllStandardError()),
                                         QString::fromUtf8(b.readAllStandardError()))));
            QVERIFY2(hwl::checkRunFolder(out.toStdString(), true).whole(), qPrintable(out));
        }
    }

    // The next run into a folder a crash left says what it settled.
    void theNextRunSaysWhatItSettled() {
        const QString out = tmp_.filePath("next");
        copyRun(old_, out);
        runWith(replacing(out), {{"HWL_TEST_CRASH_AT", QString::number(commitStep_ + 3)}});
        QVERIFY(QFileInfo::exists(out + "/.hwl-commit"));
        const Result r =
            runWith(kTiny + QStringList{"--seed", "3", "--overwrite", "--out", out}, {});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("out: moved into place the run that an interrupted process had "
                                "written to " +
                                out),
                 qPrintable(r.describe()));
        copyRun(old_, out);
        runWith(replacing(out), {{"HWL_TEST_CRASH_AT", "5"}});
        const Result s =
            runWith(kTiny + QStringList{"--seed", "3", "--overwrite", "--out", out}, {});
        QVERIFY2(s.out.contains(QRegularExpression(
                     "out: removed .*/\\.hwl-staging-\\d+, the unfinished files of a run that "
                     "was interrupted while writing them")),
                 qPrintable(s.describe()));
        QCOMPARE(seedIn(out), 3);
        QVERIFY(leftovers(out).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCrashPoints)
#include "tst_crashpoints.moc"
