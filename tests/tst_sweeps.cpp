// Sweeps (config/sweep.h, docs/command-line.md#sweeps): the grid's cross product in its
// order, labels and folders, each value judged by its field's own check on
// both roads (--sweep and the file's "sweep"), every run validated before
// the first starts, the limits; and end to end on the command line: a run
// per combination in DIR/<label>, a failed run recorded while the sweep
// goes on, and sweep.csv (io/runstable.h) saying what each run reached;
// --repeat and the table of runs made (io/runscompare.h, --compare).
#include "cli/commandline.h"
#include "clitest.h"
#include "config/fields.h"
#include "config/sweep.h"
#include "io/runscompare.h"
#include "io/runstable.h"
#include "util/errors.h"
#include "util/spelling.h"

#include <QThread>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>

#include <sys/stat.h>

using namespace hwl;
using namespace hwl::test;

namespace {
/// A run as summary.json would give it: `fields` (JSON text) and figures.
FolderRun folderRun(const std::string& label, std::map<std::string, std::string> fields,
                    double accuracy, double samplesPerSecond) {
    FolderRun r;
    r.label = label;
    r.fields = std::move(fields);
    r.run.label = label;
    r.run.started = true;
    r.run.summary.state = RunState::Finished;
    r.run.summary.evaluated = std::isfinite(accuracy);
    r.run.summary.testAccuracy = accuracy;
    r.run.summary.samplesPerSecond = samplesPerSecond;
    return r;
}

QStringList labels(const std::vector<PresetRun>& runs) {
    QStringList out;
    for (const PresetRun& r : runs)
        out << QString::fromStdString(r.label);
    return out;
}
} // namespace

class TestSweeps : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // The cross product, the first axis slowest, each run set to its values
    // and nothing else changed; out gets the label's folder, tensorboard stays.
    void gridIsTheCrossProductInOrder() {
        ExperimentConfig c;
        c.out = "/tmp/o";
        c.tensorboard = "/tmp/tb";
        c.lr = 0.5;
        addSweepAxis(c.sweep, parseSweepFlag("workers=1,2,4"));
        addSweepAxis(c.sweep, parseSweepFlag("mode=threads,processes"));
        addSweepAxis(c.sweep, parseSweepFlag("momentum=0.5"));
        const std::vector<PresetRun> runs = sweepRuns(c);
        QCOMPARE(
            labels(runs),
            QStringList(
                {"workers=1,mode=threads,momentum=0.5", "workers=1,mode=processes,momentum=0.5",
                 "workers=2,mode=threads,momentum=0.5", "workers=2,mode=processes,momentum=0.5",
                 "workers=4,mode=threads,momentum=0.5", "workers=4,mode=processes,momentum=0.5"}));
        QCOMPARE(runs[3].config.workers, 2);
        QCOMPARE(runs[3].config.mode, std::string("processes"));
        QCOMPARE(runs[3].config.momentum, 0.5);
        QCOMPARE(runs[3].config.lr, 0.5);
        QVERIFY(runs[3].config.sweep.empty());
        QCOMPARE(runs[3].config.out, std::string("/tmp/o/workers=2,mode=processes,momentum=0.5"));
        // One logdir for them all: each run makes its folder there (io/tensorboardlogdir.h).
        QCOMPARE(runs[3].config.tensorboard, std::string("/tmp/tb"));
        QCOMPARE(sweepKeys(c), (std::vector<std::string>{"workers", "mode", "momentum"}));
    }

    // Labels write values as a flag takes them back (the shortest text that
    // reads as the same number); a folder name keeps no "/".
    void labelsAndFolders() {
        QCOMPARE(sweepValueText(FieldValue(0.1)), std::string("0.1"));
        QCOMPARE(sweepValueText(FieldValue(1e-7)), std::string("1e-07"));
        QCOMPARE(sweepValueText(FieldValue(std::uint64_t(18446744073709551615u))),
                 std::string("18446744073709551615"));
        QCOMPARE(sweepValueText(FieldValue(false)), std::string("false"));
        QCOMPARE(sweepFolderName("dataset=idx:/data/mnist,lr=0.1"),
                 std::string("dataset=idx:_data_mnist,lr=0.1"));
        QCOMPARE(sweepFolderName(std::string("a\0b", 3)), std::string("a_b"));
        ExperimentConfig c;
        c.out = "o";
        addSweepAxis(c.sweep,
                     parseSweepFlag("init=" + std::string(150, 'x') + "," + std::string(151, 'y')));
        const auto runs = sweepRuns(c);
        QCOMPARE(runs[1].config.out, std::string("o/run-2")); // too long for a folder name
    }

    // Each road judges a value as the field does, and says which value of
    // which field is wrong; what a grid cannot hold is refused.
    void refusals_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("message");
        QTest::newRow("no =") << "workers"
                              << "--sweep: expected FIELD=VALUE,VALUE,...";
        QTest::newRow("no field") << "=1,2"
                                  << "--sweep: expected FIELD=VALUE";
        QTest::newRow("unknown") << "bogus=1"
                                 << "no experiment field is called \"bogus\"";
        QTest::newRow("a typo of a field") << "worker=1,2"
                                           << "--sweep: no experiment field is called "
                                              "\"worker\"; did you mean \"workers\"? (the fields";
        QTest::newRow("out") << "out=a,b"
                             << "\"out\" cannot be swept";
        QTest::newRow("tensorboard") << "tensorboard=a,b"
                                     << "\"tensorboard\" cannot be swept";
        QTest::newRow("empty value") << "batch=1,,2"
                                     << "--sweep batch: an empty value";
        QTest::newRow("trailing comma") << "batch=1,"
                                        << "--sweep batch: an empty value";
        QTest::newRow("integer") << "workers=two"
                                 << "--sweep workers: expected an integer";
        QTest::newRow("number") << "lr=fast"
                                << "--sweep lr: expected a number";
        QTest::newRow("choice") << "split=both"
                                << "--sweep split: expected ";
        QTest::newRow("switch") << "shuffle=yes"
                                << "--sweep shuffle: expected true or false";
    }
    // The one "did you mean" rule (util/spelling.h) that the flags, the file's
    // fields and --sweep share: a swap counts one edit, and only a typo-sized
    // distance (a third of the typed length, at least 1) suggests anything.
    void nearestNameIsForTyposOnly() {
        QCOMPARE(editDistance("wokrers", "workers"), std::size_t(1));
        QCOMPARE(editDistance("", "lr"), std::size_t(2));
        const std::vector<std::string> known = {"workers", "lr", "lr-schedule", "batch"};
        QCOMPARE(nearestName("worker", known).value_or("-"), std::string("workers"));
        QCOMPARE(nearestName("bach", known).value_or("-"), std::string("batch"));
        QCOMPARE(nearestName("lrr", known).value_or("-"), std::string("lr"));
        QVERIFY(!nearestName("frobnicate", known));
        QVERIFY(!nearestName("workers", known)); // known: nothing to suggest
        QVERIFY(!nearestName("wrk", known));     // 4 edits from "workers"
    }
    void refusals() {
        QFETCH(QString, flag);
        QFETCH(QString, message);
        const QString why = refusal([&] { parseSweepFlag(flag.toStdString()); });
        QVERIFY2(why.startsWith(message) || why.contains(message), qPrintable(why));
    }

    void gridLimits() {
        ExperimentConfig c;
        addSweepAxis(c.sweep, parseSweepFlag("epochs=1,2,1"));
        QVERIFY(refusal([&] { sweepRuns(c); }).contains("\"epochs\" lists 1 twice"));
        std::vector<SweepAxis> twice;
        addSweepAxis(twice, parseSweepFlag("batch=1"));
        QVERIFY(refusal([&] {
                    addSweepAxis(twice, parseSweepFlag("batch=2"));
                }).contains("\"batch\" is swept twice"));
        ExperimentConfig big;
        std::string values;
        for (int i = 1; i <= 40; ++i)
            values += (i > 1 ? "," : "") + std::to_string(i);
        addSweepAxis(big.sweep, parseSweepFlag("seed=" + values));
        addSweepAxis(big.sweep, parseSweepFlag("batch=" + values));
        QVERIFY(refusal([&] { sweepRuns(big); }).contains("more than 1000 runs")); // 40 x 40
        big.sweep[1] = parseSweepFlag("batch=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                                      "21,22,23,24,25");
        QCOMPARE(sweepRuns(big).size(), std::size_t(1000)); // 40 x 25: the most allowed
    }

    // sweep.csv quotes what would break a field (RFC 4180) and leaves out
    // the figures a run does not have.
    void csvQuotesAndGaps() {
        TableRun refused{"lr=0.1,note", {"0.1"}, 2, false, {}, "a \"quoted\"\nreason"};
        TableRun done{"lr=0.2", {"0.2"}, 0, true, {}, {}};
        done.summary.state = RunState::Finished;
        done.summary.samplesPerSecond = 1234.5;
        done.summary.evaluated = true;
        done.summary.testAccuracy = 0.875;
        const std::string csv = runsCsv({"lr"}, {refused, done});
        const std::string header = csv.substr(0, csv.find('\n'));
        QCOMPARE(QString::fromStdString(header),
                 QString("run,lr,result,exit,samples_per_s,test_accuracy,test_loss,train_loss,"
                         "train_seconds,target,target_seconds,target_samples,startup_seconds,"
                         "comm_share,lost_updates,error"));
        QVERIFY(
            csv.find("\"lr=0.1,note\",0.1,refused,2,,,,,,,,,,,,\"a \"\"quoted\"\"\nreason\"\n") !=
            std::string::npos);
        QVERIFY(csv.find("lr=0.2,0.2,finished,0,1234.5,0.875,") != std::string::npos);
    }

    // The file's "sweep" object: the same judgement per value as the file's
    // own fields, written back by toJson and read again unchanged.
    void sweepInTheFile() {
        ExperimentConfig c;
        c.mergeJson(R"({"sweep": {"lr": [0.1, 0.01], "shuffle": [true, false]}})", "test");
        QCOMPARE(c.sweep.size(), std::size_t(2));
        QCOMPARE(sweepRuns(c).size(), std::size_t(4));
        ExperimentConfig again;
        again.mergeJson(c.toJson(), "round trip");
        QCOMPARE(QString::fromStdString(again.toJson()), QString::fromStdString(c.toJson()));
        QCOMPARE(labels(sweepRuns(again)), labels(sweepRuns(c)));
        QVERIFY(sweepRuns(c).front().config.toJson().find("sweep") == std::string::npos);
        for (const auto& [text, message] :
             {std::pair{R"({"sweep": {"batch": [16, "x"]}})", R"("batch" must be an integer)"},
              {R"({"sweep": {"batch": []}})", "non-empty array"},
              {R"({"sweep": {"batch": 16}})", "non-empty array"},
              {R"({"sweep": [1]})", "must be an object of field: [values]"},
              {R"({"sweep": {"bogus": [1]}})", "unknown field \"bogus\""},
              {R"({"sweep": {"lr-shedule": ["cosine"]}})", R"(did you mean "lr-schedule"?)"},
              {R"({"sweep": {"workers": [0]}})", "must be in 1..256"}}) {
            ExperimentConfig bad;
            const std::string json = text; // a lambda captures no structured binding (clang 14)
            const QString why = refusal([&] { bad.mergeJson(json, "f.json"); });
            QVERIFY2(why.contains(message),
                     qPrintable(QString::fromStdString(json) + " -> " + why));
            QVERIFY(bad.sweep.empty()); // a bad file changes nothing
        }
    }

    // On the command line: --sweep replaces the file's axis of the same
    // field, each run gets the defaults its mode implies (serial: 1
    // worker), and a grid with an invalid run is refused before any runs,
    // naming the run.
    void commandLinePlansTheRuns() {
        const QString file = tmp_.filePath("sweep.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"sweep": {"batch": [8, 16], "lr": [0.1]}})");
        f.close();
        const CommandLine cl =
            parseCommandLine({"--config", file.toStdString(), "--sweep", "mode=serial,threads",
                              "--sweep", "batch=32", "--out", "o"});
        QCOMPARE(cl.sweepKeys, (std::vector<std::string>{"lr", "mode", "batch"}));
        QCOMPARE(cl.sweepOut, std::string("o"));
        QCOMPARE(cl.runs.size(), std::size_t(2));
        QCOMPARE(cl.runs[0].config.workers, 1); // serial's one worker
        QCOMPARE(cl.runs[1].config.workers, 2); // the default's
        QCOMPARE(cl.runs[1].config.batch, 32);
        const QString why = refusal([] {
            parseCommandLine({"--workers", "4", "--sweep", "mode=threads,serial"});
        });
        QVERIFY2(why.contains("sweep: 1 of its 2 runs is invalid") &&
                     why.contains("run mode=serial:") && why.contains("exactly 1 worker"),
                 qPrintable(why));
        QVERIFY(refusal([] {
                    parseCommandLine({"--preset", "hogwild-vs-locked", "--sweep", "lr=0.1,0.2"});
                }).contains("compares runs of its own"));
    }

    // End to end: a run per combination, each in its folder with its own
    // summary.json; the table and sweep.csv in the grid's order; a run that
    // cannot load its data is recorded (exit 2, its reason) and the next
    // one still made; the sweep exits with the first failure's status.
    void sweepRunsAndRecords() {
        const QString out = tmp_.filePath("grid");
        RUN_CLI(r,
                {"--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4", "--epochs", "2",
                 "--lr", "0.1", "--quiet", "--sweep", "workers=1,2", "--sweep",
                 "dataset=idx:" + tmp_.filePath("missing") + ",teacher:2000x20:4", "--out", out});
        QVERIFY2(r.code == 2, qPrintable(r.describe()));
        QVERIFY(r.out.contains("== run 4 of 4:"));
        QVERIFY(r.out.contains("sweep: 4 of 4 runs"));
        const QStringList csv = readLines(out + "/sweep.csv");
        QCOMPARE(csv.size(), 5);
        QVERIFY(csv[0].startsWith("run,workers,dataset,result,exit,samples_per_s,test_accuracy"));
        QVERIFY(csv[0].endsWith(",error"));
        const QStringList folders = dirEntries(out);
        QCOMPARE(folders.size(), 4); // sweep.csv, sweep.json and the two runs that trained
        for (int i = 1; i <= 4; ++i) {
            const bool missing = i % 2 == 1;
            const QString workers = i <= 2 ? "1" : "2";
            QVERIFY2(csv[i].contains(missing ? ",refused,2," : ",finished,0,"), qPrintable(csv[i]));
            QVERIFY2(csv[i].startsWith("\"workers=" + workers + ",dataset="), qPrintable(csv[i]));
            if (missing) {
                QVERIFY(csv[i].contains("does not exist"));
                continue;
            }
            const QString folder = out + "/workers=" + workers + ",dataset=teacher:2000x20:4";
            const QJsonObject summary = readJsonObject(folder + "/summary.json");
            QCOMPARE(summary["state"].toString(), QString("finished"));
            QCOMPARE(summary["experiment"].toObject()["workers"].toInt(), workers.toInt());
            QVERIFY(!summary["experiment"].toObject().contains("sweep"));
        }
    }

    // A sweep started again with the same experiment and folder keeps the
    // runs it finished (their files untouched, their rows in the table) and
    // makes the unfinished one again, one after another or K at a time;
    // another experiment into those folders is refused before any run, and
    // --overwrite makes them all again.
    void sweepStartedAgainKeepsFinishedRuns() {
        const QString out = tmp_.filePath("again");
        const QStringList args{
            "--dataset", "teacher:2000x20:4", "--model",        "mlp:20-16-4", "--epochs", "1",
            "--quiet",   "--sweep",           "lr=0.1,0.2,0.3", "--out",       out};
        RUN_CLI(first, args);
        QVERIFY2(first.code == 0, qPrintable(first.describe()));
        const QString kept = out + "/lr=0.1/weights.safetensors";
        const QByteArray weights = readBytes(kept.toStdString());
        QVERIFY(QFile::remove(out + "/lr=0.2/summary.json")); // as a run killed before its end
        RUN_CLI(again, args);
        QVERIFY2(again.code == 0, qPrintable(again.describe()));
        for (const char* label : {"1 of 3: lr=0.1", "3 of 3: lr=0.3"})
            QVERIFY2(again.out.contains(QString("== run %1: finished before, kept (").arg(label)),
                     qPrintable(again.describe()));
        QVERIFY2(again.out.contains("== run 2 of 3: lr=0.2 ==\n"), qPrintable(again.describe()));
        QCOMPARE(readBytes(kept.toStdString()), weights);
        QVERIFY(QFile::exists(out + "/lr=0.2/summary.json"));
        const QStringList csv = readLines(out + "/sweep.csv");
        QCOMPARE(csv.size(), 4);
        for (int i = 1; i <= 3; ++i)
            QVERIFY2(csv[i].contains(",finished,0,"), qPrintable(csv[i]));
        QVERIFY(QFile::remove(out + "/lr=0.3/summary.json"));
        RUN_CLI(parallel, args + QStringList{"--sweep-parallel", "2"});
        QVERIFY2(parallel.code == 0, qPrintable(parallel.describe()));
        QCOMPARE(parallel.out.count("finished before, kept"), 2);
        QVERIFY2(parallel.out.contains("== run 3 of 3 (3 done): lr=0.3: finished, exit 0"),
                 qPrintable(parallel.describe()));
        RUN_CLI(other, args + QStringList{"--epochs", "2"});
        QCOMPARE(other.code, 2);
        QVERIFY2(other.err.contains("error: out: \"" + out +
                                    "/lr=0.1\" and 2 other run folders already hold a run of "
                                    "another experiment; to keep it, choose a new --out folder; "
                                    "to replace it, add --overwrite"),
                 qPrintable(other.describe()));
        QVERIFY(!other.out.contains("== run"));
        QCOMPARE(readBytes(kept.toStdString()), weights);
        RUN_CLI(replaced, args + QStringList{"--epochs", "2", "--overwrite"});
        QVERIFY2(replaced.code == 0, qPrintable(replaced.describe()));
        QVERIFY(!replaced.out.contains("kept"));
        QVERIFY(readBytes(kept.toStdString()) != weights);
    }

    // The table of runs made: the fields that vary in the field table's
    // order (the folders never), runs differing only in seed folded into
    // mean ± sd rows (the sample's sd), sorted by any column with unknown
    // cells last, written as text, CSV (numbers, _mean and _sd) or Markdown.
    void comparisonTableFoldsRepeats() {
        const auto fields = [](const char* lr, const char* seed, const char* out) {
            return std::map<std::string, std::string>{{"lr", lr},
                                                      {"seed", seed},
                                                      {"workers", "2"},
                                                      {"out", out},
                                                      {"mode", "\"threads\""}};
        };
        const std::vector<FolderRun> runs{
            folderRun("g/lr=0.1,seed=1", fields("0.1", "1", "\"a\""), 0.5, 1000),
            folderRun("g/lr=0.1,seed=2", fields("0.1", "2", "\"b\""), 0.7, 3000),
            folderRun("g/lr=0.3,seed=1", fields("0.3", "1", "\"c\""), NAN, 2500)};
        QCOMPARE(varyingFields(runs), (std::vector<std::string>{"lr", "seed"}));
        RunsTable plain = runsTable(runs, false);
        QVERIFY(!plain.grouped);
        QCOMPARE(plain.header[0], std::string("run"));
        QCOMPARE(plain.cells.size(), std::size_t(3));
        RunsTable t = runsTable(runs, true);
        QVERIFY(t.grouped);
        QCOMPARE(t.header[0], std::string("runs of"));
        QCOMPARE(t.header[1], std::string("lr"));
        QCOMPARE(t.header[2], std::string("repeats"));
        QCOMPARE(t.cells.size(), std::size_t(2));
        QCOMPARE(t.cells[0][0], std::string("g/lr=0.1,seed=*"));
        QCOMPARE(t.cells[0][2], std::string("2"));
        const auto column = [&](const char* name) {
            return std::size_t(std::find(t.header.begin(), t.header.end(), name) -
                               t.header.begin());
        };
        const std::size_t accuracy = column("test_accuracy");
        QCOMPARE(t.cells[0][accuracy], std::string("60.00% ± 14.14%"));
        QCOMPARE(t.values[0][accuracy], 0.6);
        QCOMPARE(t.cells[1][accuracy], std::string("-"));
        QCOMPARE(t.cells[0][column("result")], std::string("2 finished"));
        // Sorted by accuracy, descending: the unknown one still last.
        QVERIFY(sortRunsTable(t, "test_accuracy", true));
        QCOMPARE(t.cells[0][0], std::string("g/lr=0.1,seed=*"));
        QVERIFY(sortRunsTable(t, "samples_per_s", true));
        QCOMPARE(t.cells[0][0], std::string("g/lr=0.3,seed=1")); // 2500 > 2000 ± 1414
        QVERIFY(!sortRunsTable(t, "nonesuch", false));
        const std::string csv = formatRunsTable(t, TableFormat::Csv);
        QVERIFY2(csv.find("test_accuracy_mean,test_accuracy_sd") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find(",0.6,0.141421") != std::string::npos, csv.c_str());
        const std::string md = formatRunsTable(runsTable(runs, false), TableFormat::Markdown);
        QVERIFY2(md.rfind("| run | lr | seed | result |", 0) == 0, md.c_str());
        QVERIFY2(md.find("\n|---|---|") != std::string::npos, md.c_str());
        const std::string text = formatRunsTable(t, TableFormat::Text);
        QVERIFY2(text.find("runs of          lr   repeats") == 0, text.c_str());
    }

    // --repeat N makes each point N times (seeds seed..seed+N-1) and the
    // sweep ends with the repeats' mean ± sd; --compare reads the folders
    // back into the same table, or one row per run, sorted, as CSV; bad
    // input is refused with the fix, an unreadable summary.json named and
    // left out.
    void repeatAndCompare() {
        const QString out = tmp_.filePath("repeats");
        const QStringList args{
            "--dataset", "teacher:2000x20:4", "--model",  "mlp:20-16-4", "--epochs", "1", "--quiet",
            "--sweep",   "lr=0.1,0.3",        "--repeat", "2",           "--seed",   "7", "--out",
            out};
        RUN_CLI(r, args);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY(r.out.contains("== run 4 of 4: lr=0.3,seed=8 =="));
        QVERIFY2(r.out.contains("repeats: each figure's mean ± standard deviation over the seeds\n"
                                "runs of        lr   repeats  result      samples_per_s"),
                 qPrintable(r.describe()));
        QVERIFY(r.out.contains("lr=0.1,seed=*  0.1  2        2 finished"));
        RUN_CLI(c, {"--compare", out});
        QVERIFY2(c.code == 0, qPrintable(c.describe()));
        QVERIFY2(c.out.startsWith("runs of"), qPrintable(c.describe()));
        QVERIFY(c.out.contains(out + "/lr=0.3,seed=*  0.3  2        2 finished"));
        RUN_CLI(each, {"--compare", out, "--no-repeats", "--sort", "seed", "--reverse", "--format",
                       "csv"});
        QVERIFY2(each.code == 0, qPrintable(each.describe()));
        const QStringList lines = each.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("run,lr,seed,result,samples_per_s,test_accuracy"));
        QVERIFY2(lines[1].contains(",8,finished,") && lines[4].contains(",7,finished,"),
                 qPrintable(each.out));
        // The same table from the window's neighbour: a sweep folder and a
        // run folder named together.
        RUN_CLI(two, {"--compare", out + "/lr=0.1,seed=7", out + "/lr=0.3,seed=7"});
        const QString header = two.out.section('\n', 0, 0);
        QVERIFY2(header.startsWith("run ") && header.contains(" lr ") && !header.contains("seed"),
                 qPrintable(two.describe()));
        hwl::test::writeBytes(out + "/lr=0.3,seed=8/summary.json", "{ not json");
        RUN_CLI(broken, {"--compare", out});
        QCOMPARE(broken.code, 1);
        QVERIFY2(broken.err.contains("warning: compare: left out " + out +
                                     "/lr=0.3,seed=8: not a whole run: summary.json is 10 bytes "
                                     "where the manifest says "),
                 qPrintable(broken.describe()));
        QVERIFY(broken.out.contains("lr=0.1,seed=*"));
        const QString empty = tmp_.filePath("noRuns");
        QVERIFY(QDir().mkpath(empty));
        const QList<QPair<QStringList, QString>> refused{
            {{"--compare", tmp_.filePath("absent")}, "\" does not exist"},
            {{"--compare", empty}, "\" holds no run: no summary.json in it or in its folders"},
            {{"--compare"}, "compare: name the run folders to compare"},
            {{"--compare", out, "--format", "xml"}, "--format must be text, csv or markdown"},
            {{"--compare", out, "--sort", "speed"},
             "--sort: no column \"speed\"; the columns: runs of, lr, repeats, result"},
            {{"--compare", out, "--colour"}, "compare: unknown flag --colour ("},
            {{"--compare", out, "--srot", "lr"},
             "compare: unknown flag --srot; did you mean --sort?"},
            {args.mid(0, 9) + QStringList{"--repeat", "0"}, "--repeat: runs of each experiment "
                                                            "must be 1 to 100 (got 0)"},
            {args.mid(0, 9) + QStringList{"--repeat", "2", "--sweep", "seed=1,2"},
             "--repeat: the sweep already varies the seed"}};
        for (const auto& [flags, message] : refused) {
            RUN_CLI(bad, flags);
            QVERIFY2(bad.code == 2 && bad.err.contains(message),
                     qPrintable(message + "\n" + bad.describe()));
        }
    }

    // --repeat N of a comparison preset: each of its runs N times in a row
    // over the seeds, a folder each, the repeats folded into a row each and,
    // with a target, the race: a line per run of the preset, by the median
    // training seconds to the target.
    void aRepeatedComparisonRaces() {
        const QString out = tmp_.filePath("race");
        RUN_CLI(r, {"--preset", "time-to-target", "--repeat", "2", "--dataset",
                    "teacher:4000x20:4:16", "--model", "mlp:20-32-4", "--lr", "0.05", "--epochs",
                    "20", "--target-accuracy", "70", "--quiet", "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("== run 1 of 12: serial,seed=42 ==") &&
                     r.out.contains("== run 12 of 12: local-sgd,seed=43 =="),
                 qPrintable(r.out));
        QVERIFY(QFileInfo(out + "/threads,seed=43/summary.json").isFile());
        QVERIFY(r.out.contains("repeats: each figure's mean") && r.out.contains("serial,seed=*"));
        const QStringList race =
            r.out.section("race to test accuracy 70%", 1).split('\n', Qt::SkipEmptyParts).mid(1);
        QCOMPARE(race.size(), 6);
        double last = 0;
        for (const QString& line : race) {
            QVERIFY2(line.contains(" 2 of 2 reached "), qPrintable(line));
            const double median = line.section(" s (", 0, 0).section(' ', -1).toDouble();
            QVERIFY2(median > 0 && median >= last, qPrintable(r.out));
            last = median;
        }
        QVERIFY2(race.front().startsWith("  1. "), qPrintable(race.front()));
    }

    // --compare lists each run once, names a summary.json that is not a
    // file or is too large to be one, leaves out a figure out of its range (a run written before
    // manifests, so not caught by one) and keeps a Markdown row on one line.
    void compareReadsWholeRunsOnce() {
        const QString run = tmp_.filePath("once/a\nb");
        RUN_CLI(r, {"--dataset", "teacher:200x4:2", "--model", "mlp:4-8-2", "--epochs", "1",
                    "--mode", "serial", "--quiet", "--out", run});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        RUN_CLI(thrice, {"--compare", run, run, run, "--format", "markdown"});
        QVERIFY2(thrice.code == 0 && thrice.err.contains("is named more than once; listed once"),
                 qPrintable(thrice.describe()));
        QCOMPARE(thrice.out.count('\n'), 3); // header, rule, one row: "a b" on one line
        const QString legacy = tmp_.filePath("once/legacy");
        QVERIFY(QDir().mkpath(legacy));
        QByteArray summary = hwl::test::readBytes((run + "/summary.json").toStdString());
        const int at = summary.indexOf("\"test_accuracy\": ");
        QVERIFY(at > 0);
        summary.replace(at, summary.indexOf(',', at) - at, "\"test_accuracy\": 1.2e29");
        hwl::test::writeBytes(legacy + "/summary.json", summary);
        RUN_CLI(range, {"--compare", legacy, run});
        QVERIFY2(range.code == 1 &&
                     range.err.contains("note: compare: " + legacy +
                                        ": written before runs had a manifest") &&
                     range.err.contains("final.test_accuracy is 1.2e+29, outside 0 to 100"),
                 qPrintable(range.describe()));
        const QString big = tmp_.filePath("once/big");
        QVERIFY(QDir().mkpath(big));
        QFile huge(big + "/summary.json");
        QVERIFY(huge.open(QIODevice::WriteOnly) && huge.resize(17 << 20)); // sparse: no disk
        huge.close();
        RUN_CLI(large, {"--compare", big, run});
        QVERIFY2(large.code == 1 && large.err.contains("is 17 MiB, more than a run's "
                                                       "summary.json (16 MiB at most)"),
                 qPrintable(large.describe()));
        const QString fifo = tmp_.filePath("once/fifo");
        QVERIFY(QDir().mkpath(fifo));
        QCOMPARE(::mkfifo((fifo + "/summary.json").toLocal8Bit().constData(), 0600), 0);
        RUN_CLI(pipe, {"--compare", fifo});
        QVERIFY2(pipe.code == 2 && pipe.err.contains("summary.json\" is a FIFO"),
                 qPrintable(pipe.describe()));
    }

    // K at a time: the same runs as one after another (a 1-worker run's
    // weights byte for byte), each with its output beside its files, the
    // table in the grid's order, a run that cannot load recorded; K past
    // the cores, or without a sweep, refused.
    void parallelSweepMakesTheSameRuns() {
        // Long enough to learn (a run near chance could be judged at chance
        // in one sweep and learned in the other: a threads run is not
        // bit-reproducible).
        const QStringList common{"--model",
                                 "mlp:20-16-4",
                                 "--epochs",
                                 "3",
                                 "--lr",
                                 "0.1",
                                 "--quiet",
                                 "--sweep",
                                 "mode=serial,threads",
                                 "--sweep",
                                 "dataset=idx:" + tmp_.filePath("none") + ",teacher:2000x20:4"};
        const QString one = tmp_.filePath("one"), two = tmp_.filePath("two");
        RUN_CLI(a, common + QStringList{"--out", one});
        RUN_CLI(b, common + QStringList{"--out", two, "--sweep-parallel", "2"});
        QVERIFY2(a.code == 2 && b.code == 2, qPrintable(a.describe() + b.describe()));
        QVERIFY2(b.out.contains("sweep: 4 runs, 2 at a time"), qPrintable(b.describe()));
        const QStringList csvA = readLines(one + "/sweep.csv"),
                          csvB = readLines(two + "/sweep.csv");
        QCOMPARE(csvB.size(), 5);
        for (int i = 0; i < 5; ++i) // label, values, result and exit: the same
            QCOMPARE(csvB[i].section(',', 0, 5), csvA[i].section(',', 0, 5));
        const QString serial = "/mode=serial,dataset=teacher:2000x20:4/";
        QFile wa(one + serial + "weights.safetensors"), wb(two + serial + "weights.safetensors");
        QVERIFY(wa.open(QIODevice::ReadOnly) && wb.open(QIODevice::ReadOnly));
        QCOMPARE(wb.readAll(), wa.readAll());
        QVERIFY(readLines(two + serial + "output.txt").join('\n').contains("summary: final"));
        QVERIFY(csvB[1].contains(",refused,2,") && csvB[1].contains("does not exist"));
        const int cores = QThread::idealThreadCount();
        RUN_CLI(many, {"--sweep", "lr=0.1,0.2", "--sweep-parallel", QString::number(cores + 1)});
        QCOMPARE(many.code, 2);
        QVERIFY2(many.err.contains(QString("runs at once must be 1 to %1").arg(cores)),
                 qPrintable(many.err));
        RUN_CLI(alone, {"--sweep-parallel", "1"});
        QCOMPARE(alone.code, 2);
        QVERIFY(alone.err.contains("--sweep-parallel: applies to a sweep"));
    }
};

QTEST_GUILESS_MAIN(TestSweeps)
#include "tst_sweeps.moc"
