// --trace FILE: the Chrome trace event format that ui.perfetto.dev opens.
// Every event well formed (name, ph, pid, tid; ts and dur for complete
// events), one named track per worker (threads in the run's process,
// process workers in their own), the workers' compute, wait and
// communicate spans covering their training time, the steps in the
// spans adding up to summary.json's, the lock's waits in threads-locked
// and the collective's in data-parallel; gzip when FILE ends in .gz; an
// interrupted run's trace whole; bad paths and several runs refused.
#include "clitest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

using namespace hwl::test;

namespace {

const QStringList kTraced = {
    "--dataset", "teacher:20000x50:4", "--model", "mlp:50-128-4", "--epochs", "4", "--quiet"};

} // namespace

class TestTrace : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    int counter_ = 0;

    QString fresh(const QString& name) { return tmp_.filePath(QString::number(counter_++) + name); }

    /// Runs `mode` traced; checks the trace against summary.json.
    void checkMode(const QStringList& mode, int workers, bool separateProcesses,
                   const char* mustHave = "compute") {
        const QString out = fresh("out"), file = fresh("run.trace.json");
        const Result r = runCli(
            kTraced + mode +
            QStringList{"--workers", QString::number(workers), "--out", out, "--trace", file});
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("trace: " + file + " ("), qPrintable(r.out));
        const Trace t = readTrace(readBytes(file.toStdString()));
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem));
        QCOMPARE(t.root["otherData"].toObject()["experiment"].toObject()["mode"].toString(),
                 readJsonObject(out + "/experiment.json")["mode"].toString());
        const QJsonObject summary = readJsonObject(out + "/summary.json");
        const QJsonObject final = summary["final"].toObject();
        const double busy = final["train_seconds"].toDouble() + final["eval_seconds"].toDouble();
        const QJsonArray workersJson = summary["workers"].toArray();
        std::set<qint64> pids;
        double first = 1e300, last = -1;
        for (int r = 0; r < workers; ++r) {
            const Track* track = workerTrack(t, r);
            QVERIFY2(track, qPrintable(QString("no track named worker %1").arg(r)));
            double spans = 0;
            for (const char* kind : {"compute", "wait", "communicate", "epoch gate", "paced"})
                spans += track->seconds.count(kind) ? track->seconds.at(kind) : 0;
            // From its first step to its leaving, without gaps.
            const QString where = QString("worker %1: %2 s of spans from %3 s to %4 s, start-up "
                                          "ended at %5 s")
                                      .arg(r)
                                      .arg(spans)
                                      .arg(track->first)
                                      .arg(track->last)
                                      .arg(track->startupEnd);
            QVERIFY2(spans >= 0.95 * (track->last - track->first), qPrintable(where));
            QVERIFY2(std::abs(track->first - track->startupEnd) < 0.001, qPrintable(where));
            first = std::min(first, track->first);
            last = std::max(last, track->last);
            QCOMPARE(track->steps, workersJson[r].toObject()["steps"].toInteger());
            QVERIFY2(track->seconds.count(mustHave), mustHave);
            // Every epoch ends at the gate while the test set is evaluated.
            QVERIFY2(track->seconds.count("epoch gate"), qPrintable(where));
            QVERIFY(
                track->seconds.count(separateProcesses ? "start-up (fork)" : "start-up (thread)"));
            for (const auto& [id, candidate] : t.tracks)
                if (&candidate == track)
                    pids.insert(id.first);
        }
        // Together, the run's training window and its evaluations.
        QVERIFY2(last - first >= 0.95 * busy && last - first <= 1.05 * busy + 0.002,
                 qPrintable(QString("the workers' spans cover %1 s, training and evaluating "
                                    "took %2 s")
                                .arg(last - first)
                                .arg(busy)));
        QCOMPARE(int(pids.size()), separateProcesses ? workers : 1);
    }

private slots:
    void threadsLocked() { checkMode({"--mode", "threads-locked"}, 2, false); }
    void processesFork() { checkMode({"--mode", "processes", "--start-method", "fork"}, 2, true); }
    void dataParallel() { checkMode({"--mode", "data-parallel"}, 2, false); }

    // Held to the pace: "paced", the user's choice, never "wait".
    void aPacedRunIsPaced() {
        const QString file = fresh("paced.json");
        const Result r = runCli({"--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4",
                                 "--epochs", "2", "--pace", "50", "--quiet", "--trace", file});
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        const Trace t = readTrace(readBytes(file.toStdString()));
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem));
        for (int w = 0; w < 2; ++w) {
            const Track* track = workerTrack(t, w);
            QVERIFY(track);
            auto seconds = [&](const char* kind) {
                return track->seconds.count(kind) ? track->seconds.at(kind) : 0.0;
            };
            QVERIFY2(seconds("paced") > 10 * (seconds("compute") + seconds("wait")),
                     qPrintable(QString("paced %1 s, compute %2 s, wait %3 s")
                                    .arg(seconds("paced"))
                                    .arg(seconds("compute"))
                                    .arg(seconds("wait"))));
        }
    }

    // Four workers on one lock, the update (which it guards) a third of a
    // step: they wait for it, and the trace says so (the epoch gate apart).
    void theLockShowsAsWaiting() {
        const QString file = fresh("locked.json");
        const Result r = runCli({"--dataset", "teacher:40000x50:4", "--model", "mlp:50-256-4",
                                 "--batch", "4", "--epochs", "2", "--quiet", "--mode",
                                 "threads-locked", "--workers", "4", "--trace", file});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const Trace t = readTrace(readBytes(file.toStdString()));
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem));
        double wait = 0, compute = 0;
        for (int w = 0; w < 4; ++w) {
            const Track* track = workerTrack(t, w);
            QVERIFY(track);
            wait += track->seconds.count("wait") ? track->seconds.at("wait") : 0;
            compute += track->seconds.at("compute");
        }
        QVERIFY2(wait > 0.05 * compute,
                 qPrintable(QString("wait %1 s, compute %2 s").arg(wait).arg(compute)));
    }

    void gzipWhenTheNameSaysSo() {
        const QString file = fresh("run.trace.json.gz");
        const Result r = runCli(kTraced + QStringList{"--trace", file});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QByteArray raw = readBytes(file.toStdString());
        QVERIFY(raw.startsWith("\x1f\x8b"));
        QProcess gunzip;
        gunzip.start("gzip", {"-dc", file});
        QVERIFY(gunzip.waitForFinished(30000));
        QCOMPARE(gunzip.exitCode(), 0);
        const Trace t = readTrace(gunzip.readAllStandardOutput());
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem));
        QVERIFY(workerTrack(t, 0) && workerTrack(t, 1));
    }

    // Ctrl-C: the run stops, the trace is whole and says so.
    void anInterruptedRunsTraceIsWhole() {
        const QString file = fresh("stopped.json");
        QProcess p;
        const QString out = startCliUntil(p,
                                          {"--dataset", "teacher:200000x50:4", "--model",
                                           "mlp:50-64-4", "--epochs", "1000", "--trace", file},
                                          "epoch 1  test");
        QVERIFY2(out.contains("epoch 1  test"), qPrintable(out));
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 128 + SIGINT);
        const Trace t = readTrace(readBytes(file.toStdString()));
        QVERIFY2(t.problem.isEmpty(), qPrintable(t.problem));
        QCOMPARE(t.root["hogwildLab"].toObject()["state"].toString(), QString("stopped"));
        QVERIFY(workerTrack(t, 0) && workerTrack(t, 1));
        QCOMPARE(QDir(tmp_.path()).entryList({QFileInfo(file).fileName() + ".tmp*"}).size(), 0);
    }

    void badTracesAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty name") << QStringList{"--trace", ""} << "--trace: needs a file name";
        QTest::newRow("a folder") << QStringList{"--trace", "/tmp"}
                                  << "trace: /tmp is a folder; give --trace a file name";
        QTest::newRow("no such folder")
            << QStringList{"--trace", "/nonexistent-folder/run.json"}
            << "cannot write trace file \"/nonexistent-folder/run.json\"";
        QTest::newRow("a sweep") << QStringList{"--trace", "t.json", "--sweep", "lr=0.1,0.2"}
                                 << "--trace: traces one run, and this makes 2";
        QTest::newRow("a comparison")
            << QStringList{"--trace", "t.json", "--preset", "hogwild-vs-locked"}
            << "--trace: traces one run";
    }
    void badTracesAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = runCli(kTraced + args);
        QVERIFY2(r.finished && r.code == 2, qPrintable(r.describe()));
        QVERIFY2(r.err.contains(message), qPrintable(r.describe()));
        QVERIFY2(!r.out.contains("epoch 1"), qPrintable(r.describe())); // nothing trained
        QVERIFY(!QFile::exists("t.json"));
    }
};

QTEST_GUILESS_MAIN(TestTrace)
#include "tst_trace.moc"
