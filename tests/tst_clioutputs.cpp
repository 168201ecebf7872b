// The --out folder of the command line, end to end: checked and locked
// before training (a file or folder in the way, an unwritable folder,
// another run writing into it), written file by file after it (a failed
// write named, an earlier complete file kept), stale temporaries of dead
// writers removed, a writer killed mid-write leaving nothing, paths that
// are not UTF-8, and summary.json's account of the run.
#include "clitest.h"
#include "io/atomicfile.h"
#include "io/runmanifest.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <csignal>
#include <filesystem>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hwl::test;

class TestCliOutputs : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

    /// Runs the shell `script` as root of a mount namespace of its own, with
    /// MNT (an empty folder for a small tmpfs), DIR (its parent, for what the
    /// script keeps), APP (the program) and SMALL (kSmall) set, plus `more`.
    /// The script's stderr when it failed; empty when it ran to its end.
    QString inMountNamespace(const QString& dir, const QString& script,
                             const QMap<QString, QString>& more = {}) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MNT", dir + "/mnt");
        env.insert("DIR", dir);
        env.insert("APP", QString::fromUtf8(hwl::test::kAppBinary));
        env.insert("SMALL", kSmall.join(' '));
        for (auto it = more.begin(); it != more.end(); ++it)
            env.insert(it.key(), it.value());
        p.setProcessEnvironment(env);
        p.start("unshare", {"-rm", "/bin/sh", "-c", script});
        if (!p.waitForFinished(120000))
            return "the script did not end";
        return p.exitCode() == 0 ? QString()
                                 : QString::fromUtf8(p.readAllStandardError()) + " (exit " +
                                       QString::number(p.exitCode()) + ")";
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // A run whose loss ran away stays finite, finishes, and is called
    // diverged in its summary line and in summary.json (issue 49). Sigmoid
    // hidden units keep it finite on every build and kernel (the logits
    // grow with the rate, not without bound): the test loss ends tens of
    // times its start whatever the rounding.
    void aFiniteBlowUpIsDivergedInSummaryJson() {
        const QString out = tmp_.filePath("blowup");
        RUN_CLI(r, {"--dataset", "teacher:8000x20:4:16", "--model", "mlp:20-32-4:sigmoid", "--mode",
                    "serial", "--lr", "100", "--momentum", "0", "--batch", "32", "--epochs", "2",
                    "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: diverged: the test loss ended at "), qPrintable(r.out));
        QFile file(out + "/summary.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(doc["state"].toString(), QString("finished"));
        QCOMPARE(doc["outcome"].toString(), QString("diverged"));
        QVERIFY(doc["outcome_reason"].toString().startsWith("the test loss ended at "));
        const QJsonObject final = doc["final"].toObject();
        QVERIFY(final["start_loss"].toDouble() > 1.3);
        QVERIFY2(final["test_loss"].toDouble() > 5 * final["start_loss"].toDouble(),
                 qPrintable(QString::number(final["test_loss"].toDouble())));
    }

    // summary.json says what ran, where and when, and what it reached: the
    // figures agree with the run's own summary lines and with each other.
    void summaryJsonAccountsForTheRun() {
        const QString out = tmp_.filePath("summary");
        RUN_CLI(r, {"--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4", "--epochs", "2",
                    "--workers", "2", "--mode", "threads", "--lost-updates", "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QFile file(out + "/summary.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error{};
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(doc["format"].toString(), QString("hogwild-lab run summary"));
        QCOMPARE(doc["format_version"].toInt(), 1);
        const QJsonObject program = doc["program"].toObject();
        QVERIFY(QRegularExpression(R"(^\d+\.\d+\.\d+$)")
                    .match(program["version"].toString())
                    .hasMatch());
        QVERIFY(program["cpu_kernels"].toString().startsWith("CPU kernels: "));
        QVERIFY(doc["host"].toObject()["cpus"].toInt() >= 1);
        const QRegularExpression iso(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$)");
        QVERIFY(iso.match(doc["started"].toString()).hasMatch());
        QVERIFY(iso.match(doc["ended"].toString()).hasMatch());
        QVERIFY(doc["started"].toString() <= doc["ended"].toString()); // ISO sorts as time
        QCOMPARE(doc["state"].toString(), QString("finished"));
        QCOMPARE(doc["outcome"].toString(), QString("learned"));
        QVERIFY(!doc.contains("outcome_reason"));
        QVERIFY(doc["mode"].toString().startsWith("threads"));
        QFile experiment(out + "/experiment.json");
        QVERIFY(experiment.open(QIODevice::ReadOnly));
        // experiment.json holds the fields that apply (the --config it is
        // read back by refuses the others, whatever their value); summary.json
        // holds every field, the same values.
        const QJsonObject applied = QJsonDocument::fromJson(experiment.readAll()).object();
        QJsonObject every = doc["experiment"].toObject();
        for (const QString& key : applied.keys())
            QCOMPARE(every.take(key), applied.value(key));
        QVERIFY2(every.contains("transport") && every.contains("momentum") == false &&
                     every.contains("start-method") && !every.contains("workers"),
                 qPrintable(QStringList(every.keys()).join(", ")));

        const QJsonObject final = doc["final"].toObject();
        QCOMPARE(final["epochs_completed"].toInt(), 2);
        const auto m = QRegularExpression(R"(final test accuracy ([0-9.]+)%)").match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QVERIFY(std::fabs(final["test_accuracy"].toDouble() * 100 - m.captured(1).toDouble()) <
                0.006);
        const QJsonArray workers = doc["workers"].toArray();
        QCOMPARE(workers.size(), 2);
        double samples = 0, writes = 0;
        for (int rank = 0; rank < 2; ++rank) {
            const QJsonObject w = workers[rank].toObject();
            QCOMPARE(w["rank"].toInt(), rank);
            QCOMPARE(w["state"].toString(), QString("finished"));
            QVERIFY(w["samples"].toDouble() > 0 && w["samples_per_second"].toDouble() > 0);
            QVERIFY(w["startup_seconds"].toDouble() >= 0);
            QVERIFY(w["lost_updates"].toDouble() <= w["update_writes"].toDouble());
            samples += w["samples"].toDouble();
            writes += w["update_writes"].toDouble();
        }
        QCOMPARE(final["samples"].toDouble(), samples);
        QVERIFY(writes > 0);
        QCOMPARE(final["update_writes"].toDouble(), writes);
        QVERIFY(final["samples_per_second"].toDouble() > 0);
    }

    // A writer killed with SIGKILL halfway through its file (here: by itself,
    // from inside the byte producer) leaves nothing in the folder: the bytes go
    // to an unnamed file (O_TMPFILE) that only gets a name once complete. (A
    // named temporary used to stay behind until the next run into the folder.)
    void writerKilledMidWriteLeavesNothing() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path file = dir.filePath("weights.safetensors").toStdString();
        const pid_t child = fork();
        if (child == 0) {
            hwl::writeFileAtomically(file, [](const hwl::ByteSink& sink) {
                sink(std::string(1 << 20, 'x'));
                ::kill(::getpid(), SIGKILL);
            });
            _exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        QCOMPARE(
            QDir(dir.path())
                .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
            QStringList());
    }

    // A run interrupted while writing (killed, or a full disk) leaves a
    // temporary sibling; the next run into that folder removes it, and
    // leaves those of writers still running alone.
    void staleTemporariesAreRemoved() {
        const QString out = tmp_.filePath("stale");
        QVERIFY(QDir().mkpath(out));
        QProcess gone;
        gone.start("/bin/true");
        QVERIFY(gone.waitForStarted(10000));
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished(10000));
        const QString stale = QStringLiteral("weights.safetensors.tmp-%1-3").arg(deadPid);
        const QString live =
            QStringLiteral("metrics.csv.tmp-%1-1").arg(QCoreApplication::applicationPid());
        for (const QString& name : {stale, live})
            writeBytes(out + "/" + name, "half a file");
        RUN_CLI(r, kSmall + QStringList{"--epochs", "1", "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("out: removed 1 temporary file that an interrupted run left in"),
                 qPrintable(r.out));
        QVERIFY(!QFileInfo::exists(out + "/" + stale));
        QVERIFY(QFileInfo::exists(out + "/" + live));
    }

    // Paths are bytes: a data file and an --out folder whose names are not
    // UTF-8 train and write every output (the JSON files hold U+FFFD for
    // the stray bytes), with threads and with spawned workers. (A shell
    // makes the names: a QString cannot hold those bytes.)
    void pathsThatAreNotUtf8() {
        for (const QString mode : {"threads", "processes --start-method spawn"}) {
            QProcess sh;
            sh.setWorkingDirectory(tmp_.path());
            sh.setProgram("/bin/bash");
            sh.setArguments(
                {"-c",
                 QStringLiteral("d=$(printf 'd\\xff.csv'); o=$(printf 'o\\xfe'); rm -rf \"$o\"; "
                                "printf '1,2,3\\n0,1,1\\n1,2,2\\n0,3,1\\n' > \"$d\"; "
                                "'%1' --headless --model mlp:2-2 --dataset \"csv:$d\" "
                                "--epochs 1 --quiet --mode %2 --out \"$o\" && ls \"$o\"; "
                                "s=$?; rm -rf \"$o\" \"$d\"; exit $s")
                     .arg(QString::fromUtf8(hwl::test::kAppBinary), mode)});
            sh.start();
            QVERIFY(sh.waitForFinished(60000));
            const QString out = QString::fromUtf8(sh.readAllStandardOutput());
            QVERIFY2(sh.exitCode() == 0, qPrintable(out + sh.readAllStandardError()));
            for (const char* file : {"experiment.json", "metrics.csv", "model.onnx", "weights.npz",
                                     "weights.safetensors"})
                QVERIFY2(out.contains(QLatin1String(file) + "\n"), qPrintable(out));
        }
    }

    // --out is checked before training: a folder where an output file goes
    // is refused at once (exit 2), nothing trained.
    void outputPlaceTakenIsRefusedBeforeTraining() {
        const QString out = tmp_.filePath("taken");
        QVERIFY(QDir().mkpath(out + "/weights.npz"));
        RUN_CLI(r, kSmall + QStringList{"--out", out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("error: out: \"" + out +
                                "/weights.npz\" is a directory, where "
                                "the run writes its weights.npz; move it away or choose another "
                                "--out"),
                 qPrintable(r.describe()));
        QVERIFY2(!r.out.contains("epoch 1"), qPrintable(r.out));
    }

    // A write that fails after training is exit 1, names the file, commits
    // nothing (a run's files are all or none) and leaves the earlier run in
    // the folder whole, with no staging folder or temporary behind. (The
    // failure: the test hook fails the second persistence point, the
    // creation of the first file, with ENOSPC.)
    void failedWriteAfterTrainingKeepsWhatWasComplete() {
        const QString out = tmp_.filePath("failedWrite");
        const QStringList args = kSmall + QStringList{"--out", out};
        RUN_CLI(first, args);
        QCOMPARE(first.code, 0);
        const QByteArray before = readBytes((out + "/weights.safetensors").toStdString());
        const QByteArray manifest = readBytes((out + "/manifest.json").toStdString());
        qputenv("HWL_TEST_FAIL_AT", "2");
        RUN_CLI(r, args + QStringList{"--seed", "7", "--overwrite"});
        qunsetenv("HWL_TEST_FAIL_AT");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.contains("wrote nothing into " + out +
                                ": it keeps what it held (a run's files are written all or "
                                "none; see the error)"),
                 qPrintable(r.describe()));
        QVERIFY2(r.err.contains("error: out: could not write weights.safetensors: cannot write "
                                "weights file \"" +
                                out + "/weights.safetensors\": No space left on device"),
                 qPrintable(r.describe()));
        QCOMPARE(readBytes((out + "/weights.safetensors").toStdString()), before);
        QCOMPARE(readBytes((out + "/manifest.json").toStdString()), manifest);
        QVERIFY(hwl::checkRunFolder(out.toStdString(), true).whole());
        QCOMPARE(dirEntries(out), kOutputFiles); // no staging folder, no temporary
    }

    // A finished run is never replaced unasked: the second run into its
    // folder is refused before it trains, with the three ways on; with
    // --overwrite it replaces it; --resume DIR continues it in place.
    void secondRunIntoAFinishedRunIsRefused() {
        const QString out = tmp_.filePath("finished");
        RUN_CLI(first, kSmall + QStringList{"--out", out});
        QCOMPARE(first.code, 0);
        const QByteArray weights = readBytes((out + "/weights.safetensors").toStdString());
        RUN_CLI(second, kSmall + QStringList{"--out", out, "--lr", "0.5"});
        QCOMPARE(second.code, 2);
        QVERIFY2(second.err.contains("error: out: \"" + out +
                                     "\" already holds a run (weights.safetensors, weights.npz, "
                                     "model.onnx, optimizer.safetensors, metrics.csv, "
                                     "experiment.json, summary.json, manifest.json); to keep "
                                     "it, choose a new "
                                     "--out folder; to continue it, --resume " +
                                     out + "; to replace it, add --overwrite"),
                 qPrintable(second.describe()));
        QVERIFY2(!second.out.contains("epoch 1"), qPrintable(second.describe()));
        QCOMPARE(readBytes((out + "/weights.safetensors").toStdString()), weights);
        RUN_CLI(third, kSmall + QStringList{"--out", out, "--lr", "0.5", "--overwrite"});
        QCOMPARE(third.code, 0);
        QVERIFY2(third.out.contains("out: replacing the run in " + out + " (--overwrite)"),
                 qPrintable(third.describe()));
        QVERIFY(readBytes((out + "/weights.safetensors").toStdString()) != weights);
        QVERIFY(readBytes((out + "/experiment.json").toStdString()).contains("\"lr\": 0.5"));
        RUN_CLI(resumed, {"--resume", out, "--epochs", "3"});
        QVERIFY2(resumed.code == 0, qPrintable(resumed.describe()));
        QVERIFY(readBytes((out + "/experiment.json").toStdString()).contains("\"epochs\": 3"));
    }

    // A run that replaces another and fails writes no weights: the replaced
    // run's are removed with it, not left beside the failed run's summary;
    // one that continues the folder's own run keeps that run instead.
    void replacedRunLeavesNoFileOfTheOldOne() {
        const QString out = tmp_.filePath("replaced");
        RUN_CLI(first, kSmall + QStringList{"--out", out});
        QCOMPARE(first.code, 0);
        RUN_CLI(diverged, {"--dataset", "teacher:2000x16:4", "--model", "mlp:16-64-4", "--epochs",
                           "3", "--lr", "100", "--momentum", "0.99", "--out", out, "--overwrite"});
        QCOMPARE(diverged.code, 1);
        QVERIFY2(diverged.out.contains("removed the replaced run's weights.safetensors, "
                                       "weights.npz, model.onnx, optimizer.safetensors; no "
                                       "weights: the run failed"),
                 qPrintable(diverged.describe()));
        QCOMPARE(dirEntries(out),
                 (QStringList{"experiment.json", "manifest.json", "metrics.csv", "summary.json"}));
        // Resumed in place and failing, a run keeps the checkpoint it
        // continued: nothing of the failed run replaces it.
        RUN_CLI(base, {"--dataset", "teacher:2000x16:4", "--model", "mlp:16-64-4", "--mode",
                       "serial", "--epochs", "2", "--out", out, "--overwrite"});
        QCOMPARE(base.code, 0);
        const QByteArray weights = readBytes((out + "/weights.safetensors").toStdString());
        RUN_CLI(failing, {"--resume", out, "--epochs", "5", "--lr", "100", "--momentum", "0.99"});
        QCOMPARE(failing.code, 1);
        QVERIFY2(failing.out.contains("wrote nothing into " + out +
                                      ": it keeps the run this one continued"),
                 qPrintable(failing.describe()));
        QCOMPARE(readBytes((out + "/weights.safetensors").toStdString()), weights);
        QVERIFY(hwl::checkRunFolder(out.toStdString(), true).whole());
    }

    // A disk that fills during a run (an 8 MiB tmpfs in a mount namespace of
    // its own, filled while the run is stopped) leaves the earlier run's
    // files whole, names the file that could not be written, and leaves no
    // staging folder or temporary.
    void fullDiskKeepsTheEarlierFiles() {
        if (QProcess::execute("unshare", {"-rm", "true"}) != 0)
            QSKIP("needs a mount namespace (unshare -rm) to mount a small tmpfs");
        const QString dir = tmp_.filePath("fullDisk"), mnt = dir + "/mnt";
        QVERIFY(QDir().mkpath(mnt));
        const QString script = QStringLiteral(R"(set -e
mount -t tmpfs -o size=8m tmpfs "$MNT"
"$APP" --headless $SMALL --out "$MNT/run" > "$DIR/first.txt" 2>&1
mkdir "$DIR/before" && cp "$MNT"/run/* "$DIR/before/"
"$APP" --headless $LONG --overwrite --out "$MNT/run" > "$DIR/second.txt" 2>&1 &
pid=$!
until grep -q "^epoch 1 " "$DIR/second.txt"; do kill -0 $pid; sleep 0.05; done
kill -STOP $pid
dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true
kill -CONT $pid
kill -INT $pid
code=0; wait $pid || code=$?; echo $code > "$DIR/second.code"
ls -A "$MNT/run" > "$DIR/listing"
mkdir "$DIR/after" && cp "$MNT"/run/* "$DIR/after/"
)");
        const QString failed = inMountNamespace(
            dir, script,
            {{"LONG", "--dataset teacher:40000x20:4 --model mlp:20-32-4 --epochs 1000"}});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        const QString second = QString::fromUtf8(readBytes((dir + "/second.txt").toStdString()));
        QCOMPARE(readBytes((dir + "/second.code").toStdString()).trimmed(), QByteArray("1"));
        QVERIFY2(second.contains("wrote nothing into " + mnt +
                                 "/run: it keeps what it held (a run's files are written all or "
                                 "none; see the error)"),
                 qPrintable(second));
        QVERIFY2(second.contains(QRegularExpression(
                     "error: out: could not write [a-z.]+: .*No space left on device \\(free "
                     "space on that disk, or choose an --out on another; an earlier file of "
                     "that name is kept whole\\)")),
                 qPrintable(second));
        for (const QString& file : kOutputFiles)
            QCOMPARE(readBytes((dir + "/after/" + file).toStdString()),
                     readBytes((dir + "/before/" + file).toStdString()));
        QCOMPARE(QString::fromUtf8(readBytes((dir + "/listing").toStdString()))
                     .split('\n', Qt::SkipEmptyParts),
                 kOutputFiles); // no temporary left
    }

    // A sweep folder records its grid (sweep.json): another grid into it is
    // refused before any run, its sweep.csv untouched, also where only an
    // older sweep.csv says what it held; --overwrite replaces it.
    void anotherGridIntoASweepFolderIsRefused() {
        const QString out = tmp_.filePath("grid");
        const QStringList tiny{"--dataset", "teacher:200x4:2", "--model", "mlp:4-8-2", "--epochs",
                               "1",         "--mode",          "serial",  "--quiet",   "--out",
                               out};
        RUN_CLI(first, tiny + QStringList{"--sweep", "lr=0.1,0.2", "--sweep", "seed=1,2"});
        QVERIFY2(first.code == 0, qPrintable(first.describe()));
        const QByteArray table = readBytes((out + "/sweep.csv").toStdString());
        const QJsonObject grid = readJsonObject(out + "/sweep.json");
        QCOMPARE(grid["keys"].toArray().size(), 2);
        QCOMPARE(grid["runs"].toArray().size(), 4);
        for (int legacy = 0; legacy < 2; ++legacy) {
            if (legacy)
                QVERIFY(QFile::remove(out + "/sweep.json")); // a sweep written before sweep.json
            RUN_CLI(other, tiny + QStringList{"--sweep", "lr=0.5"});
            QCOMPARE(other.code, 2);
            QVERIFY2(other.err.contains("error: --sweep: \"" + out +
                                        "\" holds another sweep, over lr, seed (4 runs: "
                                        "lr=0.1,seed=1, lr=0.1,seed=2, lr=0.2,seed=1, "
                                        "lr=0.2,seed=2), where this one is over lr (1 run: "
                                        "lr=0.5); to keep it, choose a new --out folder; to "
                                        "replace it, add --overwrite"),
                     qPrintable(other.describe()));
            QCOMPARE(readBytes((out + "/sweep.csv").toStdString()), table);
        }
        RUN_CLI(replaced, tiny + QStringList{"--sweep", "lr=0.5", "--overwrite"});
        QVERIFY2(replaced.code == 0 &&
                     replaced.out.contains("sweep: replacing the sweep in " + out +
                                           " (--overwrite); the runs of its grid that this one "
                                           "does not make stay in their folders: (4 runs: "),
                 qPrintable(replaced.describe()));
        QCOMPARE(readJsonObject(out + "/sweep.json")["runs"].toArray().size(), 1);
        // A sweep refused before it starts (a run folder of another
        // experiment in its way) records no grid.
        const QString blocked = tmp_.filePath("grid-blocked");
        RUN_CLI(other, tiny.mid(0, tiny.size() - 1) + QStringList{blocked + "/lr=0.1"});
        QCOMPARE(other.code, 0);
        RUN_CLI(refused, tiny.mid(0, tiny.size() - 1) +
                             QStringList{blocked, "--sweep", "lr=0.1,0.2", "--epochs", "2"});
        QCOMPARE(refused.code, 2);
        QVERIFY(!QFile::exists(blocked + "/sweep.json"));
    }

    // The free-space check counts the run's own sizes: a small run fits a
    // 2 MiB disk (a fixed 4 MiB allowance refused it), a large one is
    // refused before training, and the refusal leaves no folder behind.
    void spaceCheckCountsTheRunsSizes() {
        if (QProcess::execute("unshare", {"-rm", "true"}) != 0)
            QSKIP("needs a mount namespace (unshare -rm) to mount a small tmpfs");
        const QString dir = tmp_.filePath("space"), mnt = dir + "/mnt";
        QVERIFY(QDir().mkpath(mnt));
        const QString script = QStringLiteral(R"(set -e
mount -t tmpfs -o size=2m tmpfs "$MNT"
"$APP" --headless $SMALL --quiet --out "$MNT/small" > "$DIR/small.txt" 2>&1 || true
"$APP" --headless $SMALL --model mlp:20-10000-4 --quiet --out "$MNT/large/a/b" > "$DIR/large.txt" 2>&1 || true
ls -A "$MNT" > "$DIR/listing"
)");
        const QString failed = inMountNamespace(dir, script);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        const QString small = QString::fromUtf8(readBytes((dir + "/small.txt").toStdString()));
        QVERIFY2(small.contains("wrote " + mnt + "/small/{"), qPrintable(small));
        const QString large = QString::fromUtf8(readBytes((dir + "/large.txt").toStdString()));
        QVERIFY2(large.contains(QRegularExpression("error: out: the outputs need about [0-9.]+ MiB "
                                                   "but only [0-9.]+ MiB is free in")),
                 qPrintable(large));
        QVERIFY2(!large.contains("epoch 1"), qPrintable(large));
        QCOMPARE(QString::fromUtf8(readBytes((dir + "/listing").toStdString())).trimmed(),
                 QString("small")); // the refused run's folders are gone, parents too
    }

    // One run owns its --out folder while it lives, from before it loads
    // anything: a second is refused.
    void secondRunIntoTheSameFolderIsRefused() {
        const QString out = tmp_.filePath("owned");
        QProcess first;
        const QString seen = startCliUntil(first,
                                           {"--dataset", "teacher:40000x20:4", "--model",
                                            "mlp:20-32-4", "--epochs", "1000", "--out", out},
                                           "epoch 1 ");
        QVERIFY2(seen.contains("epoch 1 "), qPrintable(seen));
        RUN_CLI(second, kSmall + QStringList{"--out", out});
        ::kill(pid_t(first.processId()), SIGINT);
        QVERIFY(first.waitForFinished(60000));
        QCOMPARE(second.code, 2);
        QVERIFY2(second.err.contains("error: out: another hogwild-lab run is writing into \"" +
                                     out + "\"; wait for it to end or choose another --out"),
                 qPrintable(second.describe()));
        QCOMPARE(first.exitCode(), 130);
        QCOMPARE(dirEntries(out), kOutputFiles);
        // Claimed before loading: a run still loading its data holds the
        // folder, so a fast run started just after it is refused at once
        // (it used to pass the check, finish, and be replaced by the slow one).
        const QString raced = tmp_.filePath("raced");
        QProcess slow;
        const QString loading = startCliUntil(
            slow, {"--dataset", "teacher:400000x20:4", "--model", "mlp:20-32-4", "--out", raced},
            "experiment: ");
        ::kill(pid_t(slow.processId()), SIGSTOP); // held where it is: most often loading
        QVERIFY2(loading.contains("experiment: "), qPrintable(loading));
        RUN_CLI(fast, kSmall + QStringList{"--out", raced});
        ::kill(pid_t(slow.processId()), SIGCONT);
        ::kill(pid_t(slow.processId()), SIGINT);
        QVERIFY(slow.waitForFinished(60000));
        QVERIFY2(fast.code == 2 && fast.err.contains("another hogwild-lab run is writing into"),
                 qPrintable(fast.describe()));
        QVERIFY2(!fast.out.contains("epoch 1"), qPrintable(fast.describe()));
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
};

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "tst_clioutputs.moc"
