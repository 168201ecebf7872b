// The command line under mpirun (`mpirun -np N hogwild-lab --headless --mode
// data-parallel --transport mpi ...`), over shared memory and over TCP:
// rank 0 alone speaks and writes --out, and its weights are the threads
// transport's bit for bit under both reductions (the default, Open MPI's
// collectives, and --reduce exact, rank 0's hub); every rank measures
// divergence exactly 0; options that contradict mpirun, a rank with
// another experiment, missing or different data on a rank's host are
// refused by name; a rank killed mid-run is named by rank 0 within seconds
// under either reduction;
// mpirun's SIGTERM (Ctrl-C) stops every rank at one step with the outputs
// written. Every case skips, with the reason, where MPI is not built or
// mpirun is missing; which launcher started a rank is read from a made-up
// environment (no MPI needed). (The engine side, mpirun started by a run, is in
// tst_dataparallel's MPI rows.)
#include "clitest.h"
#include "mpi/launcherenv.h"
#include "testpaths.h"

#include <QStandardPaths>

#include <map>
#include <set>

using namespace hwl::test;

namespace {

const QStringList kDataParallel = {
    "--mode",  "data-parallel", "--transport", "mpi", "--dataset", "teacher:2000x20:4",
    "--model", "mlp:20-32-4",   "--epochs",    "2",   "--quiet"};

/// A run long enough to be interrupted.
const QStringList kLong = {
    "--mode",  "data-parallel", "--transport", "mpi",  "--dataset", "teacher:40000x20:4:16",
    "--model", "mlp:20-32-4",   "--epochs",    "1000", "--quiet"};

QString mpirunPath() {
    return QStandardPaths::findExecutable(QStringLiteral("mpirun"));
}

#define SKIP_WITHOUT_MPI()                                                                         \
    do {                                                                                           \
        if (const QString why = whyMpiCannotRun(); !why.isEmpty())                                 \
            QSKIP(qPrintable(why));                                                                \
    } while (false)

/// mpirun's own options for a test on this machine.
QStringList mpirunOptions(const QStringList& extra = {}) {
    QStringList o;
    if (geteuid() == 0)
        o << "--allow-run-as-root";
    return o << "--oversubscribe" << extra;
}

/// One app context of mpirun: -np N [mpirun options] hogwild-lab --headless ARGS.
QStringList app(int ranks, const QStringList& args, const QStringList& contextOptions = {}) {
    return QStringList{"-np", QString::number(ranks)} + contextOptions +
           QStringList{QString::fromUtf8(hwl::test::kAppBinary), "--headless"} + args;
}

void startMpirun(QProcess& p, const QStringList& args) {
    p.setProgram(mpirunPath());
    p.setArguments(args);
    p.start();
}

Result runMpirun(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    startMpirun(p, args);
    Result r;
    r.started = p.waitForStarted(10000);
    if (r.started) {
        r.pid = p.processId();
        collect(p, r, timeoutMs);
    }
    return r;
}

int occurrences(const QString& text, const QString& needle) {
    return int(text.count(needle));
}

/// The pid of MPI rank `rank` among mpirun's children, or 0.
qint64 rankPid(qint64 mpirun, int rank) {
    const QString want = QStringLiteral("OMPI_COMM_WORLD_RANK=%1").arg(rank);
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile status(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!status.open(QIODevice::ReadOnly))
            continue;
        const QString stat = QString::fromUtf8(status.readAll());
        const QStringList fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 2 || fields[1].toLongLong() != mpirun)
            continue;
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        if (environ.open(QIODevice::ReadOnly) &&
            environ.readAll().split('\0').contains(want.toUtf8()))
            return pid;
    }
    return 0;
}

/// Waits until the running mpirun's rank 0 printed an epoch's test line.
bool waitForAnEpoch(QProcess& p, Result& r) {
    QDeadlineTimer deadline(60000);
    while (!deadline.hasExpired()) {
        p.waitForReadyRead(200);
        r.out += QString::fromUtf8(p.readAllStandardOutput());
        if (r.out.contains(QStringLiteral("epoch 1  test")))
            return true;
    }
    return false;
}

/// Starts `ranks` ranks of kLong writing to `out`, and waits for their first epoch.
bool startLongRun(QProcess& p, const QString& out, Result& r, int ranks = 2,
                  const QStringList& extra = {}, const QStringList& mpirunExtra = {}) {
    startMpirun(p,
                mpirunOptions(mpirunExtra) + app(ranks, kLong + extra + QStringList{"--out", out}));
    return p.waitForStarted(10000) && waitForAnEpoch(p, r);
}

} // namespace

class TestMpi : public QObject {
    Q_OBJECT

private slots:
    // Each launcher's variables, in a made-up environment (mpi/launcherenv.h):
    // the nearest launcher wins, torchrun and srun are not MPI launchers,
    // and ill-formed or contradictory values are refused by name.
    void launcherVariables_data() {
        QTest::addColumn<QStringList>("variables"); // NAME=VALUE
        QTest::addColumn<QString>("expected");      // launcher rank/size[/local] [mpi], or error
        QTest::newRow("none") << QStringList{"HOME=/root"} << "none";
        QTest::newRow("open mpi") << QStringList{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=4",
                                                 "OMPI_COMM_WORLD_LOCAL_SIZE=2", "PMIX_RANK=1"}
                                  << "mpirun 1/4/2 mpi";
        QTest::newRow("pmix alone") << QStringList{"PMIX_RANK=3"} << "mpirun 3/-/- mpi";
        QTest::newRow("mpich hydra")
            << QStringList{"PMI_RANK=2", "PMI_SIZE=3", "MPI_LOCALNRANKS=3"} << "mpiexec 2/3/3 mpi";
        QTest::newRow("torchrun") << QStringList{"RANK=1", "WORLD_SIZE=2", "LOCAL_WORLD_SIZE=2"}
                                  << "torchrun 1/2/2";
        QTest::newRow("slurm") << QStringList{"SLURM_PROCID=5", "SLURM_NTASKS=8"} << "srun 5/8/-";
        QTest::newRow("mpirun inside a slurm allocation")
            << QStringList{"SLURM_PROCID=0", "SLURM_NTASKS=2", "OMPI_COMM_WORLD_RANK=3",
                           "OMPI_COMM_WORLD_SIZE=4"}
            << "mpirun 3/4/- mpi";
        QTest::newRow("torchrun under srun")
            << QStringList{"SLURM_PROCID=1", "SLURM_NTASKS=2", "RANK=5", "WORLD_SIZE=8"}
            << "torchrun 5/8/-";
        QTest::newRow("RANK=abc") << QStringList{"RANK=abc", "WORLD_SIZE=2"}
                                  << "RANK=\"abc\": the launcher's rank variables must be whole "
                                     "numbers from 0";
        QTest::newRow("RANK=-1") << QStringList{"RANK=-1", "WORLD_SIZE=2"} << "RANK=\"-1\"";
        QTest::newRow("rank past the size")
            << QStringList{"PMI_RANK=4", "PMI_SIZE=4"}
            << "PMI_RANK=4, PMI_SIZE=4: rank 4 is not one of 4 ranks";
        QTest::newRow("a rank without its size")
            << QStringList{"RANK=1"} << "RANK=1: torchrun sets both RANK and WORLD_SIZE";
    }
    // On the command line: torchrun's variables are not an MPI job, which the
    // MPI transport refuses by name once MPI_Init made a job of one; a run
    // without --transport mpi under them is an ordinary run.
    void torchrunIsNotAnMpiJob() {
        SKIP_WITHOUT_MPI();
        const auto run = [](const QStringList& args) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("RANK", "0");
            env.insert("WORLD_SIZE", "2");
            p.setProcessEnvironment(env);
            p.setProgram(QString::fromUtf8(hwl::test::kAppBinary));
            p.setArguments(QStringList{"--headless"} + args);
            p.start();
            Result r;
            r.started = p.waitForStarted(10000);
            if (r.started)
                collect(p, r, 60000);
            return r;
        };
        const Result mpi = run(kDataParallel);
        QVERIFY2(mpi.code == 2, qPrintable(mpi.describe()));
        QVERIFY2(mpi.err.contains("error: transport: RANK=0, WORLD_SIZE=2 (torchrun), but MPI made "
                                  "this process rank 0 of 1: the launcher's processes are not "
                                  "one MPI job"),
                 qPrintable(mpi.describe()));
        const Result threads =
            run({"--dataset", "teacher:200x4:2", "--model", "mlp:4-2", "--epochs", "1", "--quiet"});
        QVERIFY2(threads.code == 0, qPrintable(threads.describe()));
    }

    void launcherVariables() {
        QFETCH(QStringList, variables);
        QFETCH(QString, expected);
        std::map<std::string, std::string> values;
        for (const QString& v : variables)
            values[v.section('=', 0, 0).toStdString()] = v.section('=', 1).toStdString();
        const hwl::mpi::Environment env = [&](const char* name) -> const char* {
            const auto it = values.find(name);
            return it == values.end() ? nullptr : it->second.c_str();
        };
        const auto text = [](const std::optional<std::uint32_t>& n) {
            return n ? QString::number(*n) : QStringLiteral("-");
        };
        QString got;
        try {
            const auto r = hwl::mpi::launcherRank(env);
            got = !r ? QStringLiteral("none")
                     : QStringLiteral("%1 %2/%3/%4%5")
                           .arg(QString::fromStdString(r->launcher))
                           .arg(r->rank)
                           .arg(text(r->size), text(r->localSize),
                                r->mpiLauncher ? QStringLiteral(" mpi") : QString());
        } catch (const hwl::InputError& e) {
            got = QString::fromUtf8(e.what());
        }
        QVERIFY2(got.startsWith(expected), qPrintable(got));
        // Asked about MPI launchers only, torchrun's and srun's are not read.
        if (!expected.contains(" mpi") && !expected.startsWith("PMI"))
            QVERIFY(!hwl::mpi::launcherRank(env, true));
    }

    // --reduce exact: rank 0's hub sums in rank order in double, as the
    // threads transport does.
    // Both reductions sum each element over the ranks in rank order in
    // double, as the threads transport does: rank 0's hub, or each rank its
    // block between Open MPI's alltoallv and allgatherv. At 3 ranks a float
    // sum in another order would differ.
    void sameWeightsAsThreads_data() {
        QTest::addColumn<QString>("reduce");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("options");
        const QStringList tcp = {"--mca", "btl", "self,tcp"};
        QTest::newRow("exact, shared memory") << "exact" << 2 << QStringList{};
        QTest::newRow("exact, tcp") << "exact" << 2 << tcp;
        QTest::newRow("mpi, shared memory") << "mpi" << 2 << QStringList{};
        QTest::newRow("mpi, 3 ranks, shared memory") << "mpi" << 3 << QStringList{};
        QTest::newRow("mpi, 3 ranks, tcp") << "mpi" << 3 << tcp;
    }
    void sameWeightsAsThreads() {
        SKIP_WITHOUT_MPI();
        QFETCH(QString, reduce);
        QFETCH(int, ranks);
        QFETCH(QStringList, options);
        QTemporaryDir dir;
        const QString mpi = dir.filePath("mpi"), threads = dir.filePath("threads");
        const Result r =
            runMpirun(mpirunOptions(options) +
                      app(ranks, kDataParallel + QStringList{"--reduce", reduce, "--out", mpi}));
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        // Rank 0 speaks for the job: one header, every rank's epochs.
        QCOMPARE(occurrences(r.out, "experiment: "), 1);
        const QString n = QString::number(ranks);
        QVERIFY2(r.out.contains("mode data-parallel (mpi), " + n + " workers"), qPrintable(r.out));
        QVERIFY2(r.out.contains("the " + n + " replicas ended bit-identical"), qPrintable(r.out));
        QCOMPARE(dirEntries(mpi), kProcessOutputFiles);
        QStringList args = kDataParallel;
        args[args.indexOf("mpi")] = "threads";
        RUN_CLI(t, args + QStringList{"--workers", n, "--out", threads});
        QCOMPARE(t.code, 0);
        QCOMPARE(readBytes((mpi + "/weights.safetensors").toStdString()),
                 readBytes((threads + "/weights.safetensors").toStdString()));
        // The metrics hold the other ranks' relayed samples too.
        QSet<QString> workers{"-1"};
        for (int rank = 0; rank < ranks; ++rank)
            workers.insert(QString::number(rank));
        QSet<QString> seen;
        for (const QString& line : readLines(mpi + "/metrics.csv").mid(1))
            seen.insert(line.section(',', 0, 0));
        QCOMPARE(seen, workers);
    }

    // A target stops every rank where met (epoch end, --eval-every's gate); its samples: the final.
    void aTargetStopsEveryRank_data() {
        QTest::addColumn<QString>("evalEvery");
        QTest::addColumn<QString>("reached");
        QTest::newRow("epoch ends") << "0"
                                    << "reached at epoch";
        QTest::newRow("every 20 steps") << "20"
                                        << "reached during epoch 1,";
    }
    void aTargetStopsEveryRank() {
        SKIP_WITHOUT_MPI();
        QFETCH(QString, evalEvery);
        QFETCH(QString, reached);
        QTemporaryDir dir;
        QStringList args =
            kDataParallel +
            QStringList{"--target-accuracy", "80", "--out", dir.path(), "--eval-every", evalEvery};
        args[args.indexOf("--epochs") + 1] = "12";
        args[args.indexOf("--dataset") + 1] = "teacher:20000x20:4";
        const Result r = runMpirun(mpirunOptions({}) + app(2, args));
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: target: test accuracy 80% " + reached),
                 qPrintable(r.out));
        const QJsonObject summary = readJsonObject(dir.filePath("summary.json"));
        const QJsonObject target = summary["target"].toObject();
        const QJsonObject final = summary["final"].toObject();
        QVERIFY(target["reached"].toBool());
        QVERIFY(final["epochs_completed"].toInt() < 12);
        QCOMPARE(target["during_epoch"].toBool(), evalEvery != "0");
        QCOMPARE(target["epochs"].toInt(),
                 final["epochs_completed"].toInt() + (evalEvery != "0" ? 1 : 0));
        QCOMPARE(target["samples"].toDouble(), final["samples"].toDouble());
        QCOMPARE(summary["state"].toString(), QString("finished"));
    }

    // The default, --reduce mpi: every rank holds the same bits, so each
    // measures its distance from the mean at exactly 0 every time; with
    // sync-every the last averaging makes them one model again.
    void mpiReductionKeepsReplicasIdentical_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("3 ranks, shared memory") << 3 << QStringList{};
        QTest::newRow("4 ranks, tcp") << 4 << QStringList{"--mca", "btl", "self,tcp"};
        QTest::newRow("3 ranks, sync-every 4") << 3 << QStringList{};
    }
    void mpiReductionKeepsReplicasIdentical() {
        SKIP_WITHOUT_MPI();
        QFETCH(int, ranks);
        QFETCH(QStringList, options);
        QTemporaryDir dir;
        // sync-every K: the replicas step alone between averagings (they
        // differ then) and the last averaging makes them one model again.
        const bool local = QString(QTest::currentDataTag()).contains("sync-every");
        QStringList args = kDataParallel + QStringList{"--out", dir.path()};
        if (local)
            args << "--sync-every"
                 << "4";
        const Result r = runMpirun(mpirunOptions(options) + app(ranks, args));
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains(QStringLiteral("mode data-parallel (mpi") +
                                (local ? ", sync every 4" : "") +
                                QStringLiteral("), %1 workers").arg(ranks)),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("the %1 replicas ended bit-identical").arg(ranks)),
                 qPrintable(r.describe()));
        QCOMPARE(dirEntries(dir.path()), kProcessOutputFiles);
        if (local)
            return;
        // Every rank's every measurement of its distance from the mean: 0.
        const QStringList lines = readLines(dir.filePath("metrics.csv"));
        QVERIFY(!lines.isEmpty());
        const int divergence = int(lines[0].split(',').indexOf("divergence"));
        QVERIFY2(divergence >= 0, qPrintable(lines[0]));
        QSet<QString> ranksSeen;
        for (const QString& line : lines.mid(1)) {
            if (line.section(',', 0, 0) == "-1")
                continue; // the run's own rows
            ranksSeen.insert(line.section(',', 0, 0));
            QVERIFY2(line.section(',', divergence, divergence).toDouble() == 0.0, qPrintable(line));
        }
        QCOMPARE(int(ranksSeen.size()), ranks);
    }

    void optionsThatContradictMpirunAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("workers") << (kDataParallel + QStringList{"--workers", "3"})
                                 << "error: workers: --workers 3 but mpirun started 2 ranks";
        QTest::newRow("hostfile")
            << (kDataParallel + QStringList{"--hostfile", hwl::test::kAppBinary})
            << "error: hostfile: this process was started by mpirun: give mpirun its options";
        QTest::newRow("another mode")
            << QStringList{"--mode", "threads", "--dataset", "teacher:2000x20:4"}
            << "error: transport: this process was started by mpirun, but the experiment does "
               "not use it";
    }
    void optionsThatContradictMpirunAreRefused() {
        SKIP_WITHOUT_MPI();
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = runMpirun(mpirunOptions() + app(2, args));
        QVERIFY2(r.finished && r.code != 0, qPrintable(r.describe()));
        QCOMPARE(occurrences(r.err, message), 1); // said once, by rank 0
    }

    void rankWithAnotherExperimentIsRefused() {
        SKIP_WITHOUT_MPI();
        // Both learning rates explicit: the message must not depend on the default.
        const Result r =
            runMpirun(mpirunOptions() + app(1, kDataParallel + QStringList{"--lr", "0.02"}) +
                      QStringList{":"} + app(1, kDataParallel + QStringList{"--lr", "0.05"}));
        QVERIFY2(r.finished && r.code != 0, qPrintable(r.describe()));
        const QRegularExpression expected(
            "error: rank 1 \\(pid \\d+\\) does not run rank 0's experiment on the same data: lr: "
            "\"0.05\" here, \"0.02\" on rank 0; give every rank the same options");
        QVERIFY2(expected.match(r.err).hasMatch(), qPrintable(r.describe()));
    }

    // Each rank's host reads the data itself: missing or different files
    // there are named (here two working directories stand for two hosts).
    void rankWithoutTheSameDataIsRefused_data() {
        QTest::addColumn<bool>("present");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << false
                                 << "error: rank 1 \\(pid \\d+\\) could not start: csv file "
                                    "\"data.csv\" cannot be read: No such file or directory";
        QTest::newRow("different")
            << true
            << "error: rank 1 \\(pid \\d+\\) does not run rank 0's experiment on the same data: "
               "training data: \"45 x 2, 2 classes, fingerprint [0-9a-f]{16}\" here, \"45 x 2, "
               "2 classes, fingerprint [0-9a-f]{16}\" on rank 0; give every rank the same "
               "options, and every host the same files at the same paths$";
    }
    void rankWithoutTheSameDataIsRefused() {
        SKIP_WITHOUT_MPI();
        QFETCH(bool, present);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QDir(dir.path()).mkpath("a");
        QDir(dir.path()).mkpath("b");
        QByteArray a, b;
        for (int i = 0; i < 50; ++i) {
            a += QByteArray::number(i % 2) + "," + QByteArray::number(i) + ",1\n";
            b += QByteArray::number(i % 2) + "," + QByteArray::number(i + 1) + ",1\n";
        }
        writeBytes(dir.filePath("a/data.csv"), a);
        if (present)
            writeBytes(dir.filePath("b/data.csv"), b);
        const QStringList args = {"--mode",  "data-parallel", "--transport",
                                  "mpi",     "--dataset",     "csv:data.csv",
                                  "--model", "mlp:2-4-2",     "--quiet"};
        const Result r = runMpirun(mpirunOptions() + app(1, args, {"-wdir", dir.filePath("a")}) +
                                   QStringList{":"} + app(1, args, {"-wdir", dir.filePath("b")}));
        QVERIFY2(r.finished && r.code != 0, qPrintable(r.describe()));
        QVERIFY2(QRegularExpression(message, QRegularExpression::MultilineOption)
                     .match(r.err)
                     .hasMatch(),
                 qPrintable(r.describe()));
    }

    // hogwild-lab starting mpirun itself: what it would pass, and what it
    // sets itself, are checked before anything starts (no mpirun needed).
    void launcherOptionsAreChecked_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("-np in mpirun-args")
            << QStringList{"--mpirun-args", "--mca btl self,tcp -np 4"}
            << "mpirun-args: mpirun-args \"--mca btl self,tcp -np 4\" refused: -np is set by "
               "hogwild-lab: use --workers";
        QTest::newRow("hostfile in mpirun-args")
            << QStringList{"--mpirun-args", "--hostfile hosts"}
            << "refused: --hostfile is set by hogwild-lab: use --hostfile";
        QTest::newRow("quotes") << QStringList{"--mpirun-args", "-x 'A=1'"}
                                << "refused: quotes and backslashes are not supported";
        QTest::newRow("missing hostfile")
            << QStringList{"--hostfile", "/nonexistent/hosts"}
            << "hostfile: hostfile \"/nonexistent/hosts\" is not a file (one host per line";
        QTest::newRow("hostfile without mpi")
            << QStringList{"--transport", "threads", "--hostfile", hwl::test::kAppBinary}
            << "hostfile: hostfile applies to --transport mpi only";
        QTest::newRow("reduce without mpi")
            << QStringList{"--transport", "processes", "--reduce", "exact"}
            << "reduce: reduce exact applies to --transport mpi only (threads and processes always "
               "average in rank order";
        QTest::newRow("unknown reduce")
            << QStringList{"--reduce", "ring"} << "--reduce: expected mpi or exact, got \"ring\"";
    }
    void launcherOptionsAreChecked() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        RUN_CLI(r, kDataParallel + QStringList{"--workers", "2"} + args);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.describe()));
    }

    // When mpirun itself fails, the cause it printed is quoted and its whole
    // output kept; after a good run no log is left.
    void mpirunFailureIsQuoted() {
        SKIP_WITHOUT_MPI();
        const QStringList args = kDataParallel + QStringList{"--workers", "2"};
        const QStringList logsBefore = QDir::temp().entryList({"hwl-mpirun-*.log"});
        RUN_CLI(good, args);
        QCOMPARE(good.code, 0);
        QCOMPARE(QDir::temp().entryList({"hwl-mpirun-*.log"}), logsBefore);
        RUN_CLI(r, args + QStringList{"--mpirun-args", "--mca btl nosuch"});
        QCOMPARE(r.code, 1);
        // What mpirun prints varies with its load (its help aggregation can
        // fail): the message quotes it, and the log kept holds all of it.
        const QRegularExpression expected(
            "error: mpirun \\(pid \\d+\\) exited with status [1-9]\\d* before rank 0 took a "
            "step: (.+) \\(all of its output: (" +
            QRegularExpression::escape(QDir::tempPath()) + "/hwl-mpirun-\\w+\\.log)\\)\n");
        const auto match = expected.match(r.err);
        QVERIFY2(match.hasMatch(), qPrintable(r.describe()));
        QFile log(match.captured(2));
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QString all = QString::fromUtf8(log.readAll()).simplified();
        const QString quoted = match.captured(1).left(40).simplified();
        QVERIFY2(all.contains(quoted), qPrintable(quoted));
        QVERIFY(log.remove());
    }

    // Under either reduction rank 0 sees a rank of its host gone (its pid)
    // while it waits, and names it; with 3 ranks the third, waiting in the
    // same reduction, leaves on rank 0's farewell.
    void killedRankIsNamed_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("reduce");
        QTest::newRow("mpi") << 2 << "mpi";
        QTest::newRow("mpi, 3 ranks") << 3 << "mpi";
        QTest::newRow("exact") << 2 << "exact";
        QTest::newRow("exact, 3 ranks") << 3 << "exact";
    }
    void killedRankIsNamed() {
        SKIP_WITHOUT_MPI();
        QFETCH(int, ranks);
        QFETCH(QString, reduce);
        QTemporaryDir dir;
        QProcess p;
        Result r;
        QVERIFY2(startLongRun(p, dir.path(), r, ranks, {"--reduce", reduce}), qPrintable(r.out));
        const qint64 victim = rankPid(p.processId(), 1);
        QVERIFY(victim > 0);
        QCOMPARE(::kill(pid_t(victim), SIGKILL), 0);
        collect(p, r, 60000); // within seconds; the bound only guards against a hang
        QVERIFY2(r.finished, qPrintable(r.describe()));
        const QRegularExpression expected(
            QStringLiteral("error: rank 1 \\(pid %1\\) (killed by SIGKILL after \\d+ steps|died "
                           "after \\d+ steps \\(mpirun's message says how\\))")
                .arg(victim));
        // stderr first: QTest cuts a long message, and the epochs on stdout
        // would hide the line this looks for (a rare failure in CI once).
        QVERIFY2(expected.match(r.err).hasMatch(),
                 qPrintable(QStringLiteral("exit %1, stderr:\n%2").arg(r.code).arg(r.err)));
        // What was trained is kept; a failed run has no weights.
        QCOMPARE(dirEntries(dir.path()),
                 (QStringList{"experiment.json", "manifest.json", "metrics.csv", "summary.json"}));
    }

    // --trace under mpirun: rank 0's file holds every rank's track (each
    // rank slices its time and relays the slices), each rank's steps.
    void aTraceHoldsEveryRank() {
        SKIP_WITHOUT_MPI();
        QTemporaryDir dir;
        const QString file = dir.filePath("mpi.trace.json");
        const Result r = runMpirun(
            mpirunOptions() +
            app(2, kDataParallel + QStringList{"--out", dir.filePath("out"), "--trace", file}));
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        const Trace t = readTrace(readBytes(file.toStdString()));
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem + "\n" + r.describe()));
        const QJsonArray workers =
            readJsonObject(dir.filePath("out/summary.json"))["workers"].toArray();
        std::set<qint64> pids;
        for (int rank = 0; rank < 2; ++rank) {
            const Track* track = nullptr;
            for (const auto& [id, candidate] : t.tracks)
                if (candidate.name.startsWith(QString("worker %1").arg(rank))) {
                    track = &candidate;
                    pids.insert(id.first);
                }
            QVERIFY2(track, qPrintable(QString("no track for rank %1").arg(rank)));
            QCOMPARE(track->steps, workers[rank].toObject()["steps"].toInteger());
            QVERIFY(track->seconds.count("compute") && track->seconds.at("compute") > 0);
            QVERIFY(track->seconds.count("start-up (mpirun)"));
        }
        QCOMPARE(int(pids.size()), 2); // two processes: the ranks
    }

    // Ctrl-C in mpirun's terminal: mpirun sends every rank SIGCONT, SIGTERM
    // a second later and SIGKILL a second after that, reading none of their
    // output meanwhile. The ranks agree to stop at one step, and rank 0
    // writes the partial run before it waits on its output (what it prints
    // then may be lost: summary.json says how the run ended). That printing
    // never holds the stop is tst_clisignals' unreadStdoutDoesNotHoldTheStop.
    void mpirunSigtermStopsEveryRank() {
        SKIP_WITHOUT_MPI();
        QTemporaryDir dir;
        QProcess p;
        Result r;
        QStringList args = kLong;
        args[args.indexOf("--epochs") + 1] = "100000"; // longer than the test
        startMpirun(p, mpirunOptions() + app(2, args + QStringList{"--out", dir.path()}));
        QVERIFY2(p.waitForStarted(10000) && waitForAnEpoch(p, r), qPrintable(r.out));
        QCOMPARE(::kill(pid_t(p.processId()), SIGTERM), 0);
        collect(p, r, 60000);
        QVERIFY2(r.finished, qPrintable(r.describe()));
        QVERIFY2(dirEntries(dir.path()) == kProcessOutputFiles,
                 qPrintable(dirEntries(dir.path()).join(' ') + "\n" + r.describe()));
        const QJsonObject summary = readJsonObject(dir.filePath("summary.json"));
        QCOMPARE(summary["state"].toString(), QString("stopped"));
        QVERIFY2(summary["remarks"].toArray().contains(
                     "the 2 replicas ended bit-identical, as they were at every step "
                     "(divergence from their mean: exactly 0)"),
                 qPrintable(QJsonDocument(summary["remarks"].toArray()).toJson()));
        for (const auto& w : summary["workers"].toArray())
            QCOMPARE(w.toObject()["steps"].toInteger(),
                     summary["workers"].toArray()[0].toObject()["steps"].toInteger());
    }
};

QTEST_GUILESS_MAIN(TestMpi)
#include "tst_mpi.moc"
