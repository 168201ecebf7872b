// End-to-end tests of the presets that compare runs and of the process
// pitfalls they sit beside, through the built hogwild-lab binary: a
// comparison's header lines, its side-by-side table and its --out folders;
// scene 2 (a spawn worker that cannot open the parameters' segment): one
// message, exit 1, no segment and no process left; nested workers refused
// with the reason. Every preset run for one epoch: tst_cli.
#include "clitest.h"
#include "testpaths.h"

#include "config/fields.h"
#include "preset/measuredfigure.h"
#include "preset/presets.h"
#include "run/comparison.h"

#include <thread>

using namespace hwl::test;

namespace {
/// A comparison made small: every run gets these flags.
const QStringList kSmallRuns = {"--epochs", "1", "--quiet", "--pace", "0"};

/// The table's row for `label`: its cells split at runs of spaces.
QStringList tableRow(const QString& out, const QString& label) {
    const qsizetype at = out.indexOf(QStringLiteral("\ncomparison: "));
    if (at < 0)
        return {};
    for (const QString& line : out.mid(at).split('\n'))
        if (line.startsWith("  " + label + " "))
            return line.simplified().split(' ');
    return {};
}

/// A preset's explanation as its reader sees it: no tags, one space.
QString plainText(const hwl::Preset& p) {
    return QString::fromStdString(p.explanation)
        .replace(QStringLiteral("</p>"), QStringLiteral(" "))
        .remove(QRegularExpression(QStringLiteral("<[^>]*>")))
        .replace(QStringLiteral("&gt;"), QStringLiteral(">"))
        .simplified();
}

/// One line of bench/preset-claims.txt: "preset [flags] | figure | low..high
/// | phrase".
struct PresetClaim {
    QString line, presetId, phrase;
    QStringList runs;  ///< the run labels its figure names
    QStringList terms; ///< its figure's terms, "KIND RUN" ("if ..." left out)
};

QList<PresetClaim> presetClaims() {
    QFile file(QString::fromUtf8(hwl::test::kSourceDir) + "/bench/preset-claims.txt");
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    QList<PresetClaim> claims;
    for (const QString& line : QString::fromUtf8(file.readAll()).split('\n')) {
        const QStringList cells = line.split('|');
        if (line.trimmed().isEmpty() || line.startsWith('#'))
            continue;
        if (cells.size() != 4) { // no preset: the test names the line
            claims << PresetClaim{line, {}, {}, {}, {}};
            continue;
        }
        PresetClaim c{
            line, cells[0].simplified().section(' ', 0, 0), cells[3].simplified(), {}, {}};
        for (const QString& term : cells[1].section(QStringLiteral(" if "), 0, 0).split('/')) {
            c.runs << term.simplified().section(' ', 1, 1);
            c.terms << term.simplified();
        }
        claims << c;
    }
    return claims;
}

/// Processes whose command line names one of `pid`'s segments (its workers).
QStringList processesOfRun(qint64 pid) {
    QStringList found;
    const QString mark = QStringLiteral("hwl-%1-").arg(pid);
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(mark.toUtf8()))
            found << entry;
    }
    return found;
}
} // namespace

class TestCliPresets : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(QString::fromUtf8(hwl::test::kAppBinary)).isExecutable(),
                 hwl::test::kAppBinary);
        QVERIFY(tmp_.isValid());
    }

    // The comparison presets the issue asks for, each run's config as the
    // preset says, the first equal to the preset's own; labels fit a folder.
    void comparisonPresetsAreWellFormed() {
        const std::vector<hwl::Preset> all = hwl::presets();
        for (const char* id : {"hogwild-vs-locked", "ddp-vs-hogwild", "local-sgd", "start-methods",
                               "accumulate-hogwild", "optimizer-state"}) {
            const hwl::Preset* p = hwl::findPreset(all, id);
            QVERIFY2(p && p->compare.size() >= 2, id);
            QCOMPARE(p->compare.front().config.toJson(), p->config.toJson());
            for (const hwl::PresetRun& r : p->compare) {
                QVERIFY2(validateExperiment(r.config).empty(), r.label.c_str());
                QVERIFY2(QRegularExpression("^[a-z0-9-]+$")
                             .match(QString::fromStdString(r.label))
                             .hasMatch(),
                         r.label.c_str());
                QCOMPARE(r.config.model, p->config.model);
                QCOMPARE(r.config.dataset, p->config.dataset);
                QCOMPARE(r.config.workers, p->config.workers);
                QCOMPARE(r.config.epochs, p->config.epochs);
            }
        }
        auto modes = [&](const char* id) {
            QStringList m;
            for (const hwl::PresetRun& r : hwl::findPreset(all, id)->compare)
                m << QString::fromStdString(r.config.mode + "/" + r.label);
            return m;
        };
        QCOMPARE(modes("hogwild-vs-locked"),
                 (QStringList{"threads-locked/locked", "threads/hogwild"}));
        QCOMPARE(modes("ddp-vs-hogwild"),
                 (QStringList{"data-parallel/data-parallel", "threads/hogwild"}));
        QStringList sync;
        for (const hwl::PresetRun& r : hwl::findPreset(all, "local-sgd")->compare)
            sync << QString::number(r.config.syncEvery);
        QCOMPARE(sync, (QStringList{"1", "8", "64"}));
        // Gradient accumulation: the lost-updates workload, counting, at K = 1 then 8.
        QStringList accumulate;
        for (const hwl::PresetRun& r : hwl::findPreset(all, "accumulate-hogwild")->compare) {
            QVERIFY(r.config.lostUpdates);
            accumulate << r.label.c_str() + QStringLiteral("=") +
                              QString::number(r.config.accumulate);
        }
        QCOMPARE(accumulate, (QStringList{"accumulate-1=1", "accumulate-8=8"}));
        // Optimizer state: Adam per worker, then shared, on the same run.
        QStringList sharing;
        for (const hwl::PresetRun& r : hwl::findPreset(all, "optimizer-state")->compare) {
            QCOMPARE(r.config.optimizer, hwl::OptimizerKind::Adam);
            sharing << r.label.c_str() + QStringLiteral("=") +
                           QString::fromLatin1(hwl::toString(r.config.optimizerState));
        }
        QCOMPARE(sharing, (QStringList{"per-worker=per-worker", "shared=shared"}));
        QStringList methods;
        for (const hwl::PresetRun& r : hwl::findPreset(all, "start-methods")->compare)
            methods << hwl::toString(r.config.startMethod);
        QCOMPARE(methods, (QStringList{"fork", "spawn", "forkserver"}));
    }

    // A comparison says what it compares; a single run compares nothing; the
    // fields an explanation invites changing are fields of the experiment.
    void presetsNameWhatTheyCompareAndInvite() {
        QStringList keys;
        for (const hwl::Field& f : hwl::experimentFields())
            keys << QString::fromLatin1(f.key);
        for (const hwl::Preset& p : hwl::presets()) {
            QCOMPARE(p.compare.empty(), p.compares == hwl::ComparedFigure::None);
            for (const std::string& field : p.invites)
                QVERIFY2(keys.contains(QString::fromStdString(field.substr(0, field.find('=')))),
                         (p.id + ": " + field).c_str());
        }
        const std::vector<hwl::Preset> all = hwl::presets();
        QCOMPARE(hwl::findPreset(all, "hogwild-vs-locked")->compares,
                 hwl::ComparedFigure::Throughput);
        QCOMPARE(hwl::findPreset(all, "ddp-vs-hogwild")->compares, hwl::ComparedFigure::Divergence);
        QCOMPARE(hwl::findPreset(all, "start-methods")->compares, hwl::ComparedFigure::StartUp);
        QCOMPARE(hwl::findPreset(all, "forgot-to-share")->invites,
                 std::vector<std::string>{"share"});
    }

    // Every measured figure a preset states is a claim that bench/presets.py
    // measures (bench/preset-claims.txt): its phrase word for word in the
    // preset's explanation, its runs the preset's runs; and every comparison
    // states at least one. A text changed without the table fails here.
    void claimsAreInThePresetsTexts() {
        const std::vector<hwl::Preset> all = hwl::presets();
        const QList<PresetClaim> claims = presetClaims();
        QVERIFY(claims.size() >= 10);
        QSet<QString> claimed;
        for (const PresetClaim& c : claims) {
            const hwl::Preset* p = hwl::findPreset(all, c.presetId.toStdString());
            QVERIFY2(p, qPrintable(c.line));
            claimed << c.presetId;
            QVERIFY2(plainText(*p).contains(c.phrase), qPrintable(c.line));
            QStringList labels{"*"};
            for (const hwl::PresetRun& r : p->compare)
                labels << QString::fromStdString(r.label);
            if (p->compare.empty())
                QVERIFY2(c.runs.isEmpty() || c.runs == QStringList{"*"}, qPrintable(c.line));
            for (const QString& run : c.runs)
                QVERIFY2(labels.contains(run), qPrintable(c.line));
        }
        for (const hwl::Preset& p : all)
            if (!p.compare.empty())
                QVERIFY2(claimed.contains(QString::fromStdString(p.id)), p.id.c_str());
    }

    // Issue 49: a text quotes what the run in front of the reader measured.
    // Every {{figure}} of a text is a figure of the grammar naming its own
    // runs, and every figure a claim states a range of is quoted from the
    // run too (a token with its kind, for its run or for every run), so that
    // no fixed number stands alone where the run can say otherwise.
    void textsQuoteTheirRunsFigures() {
        const QList<PresetClaim> claims = presetClaims();
        for (const hwl::Preset& p : hwl::presets()) {
            const std::vector<std::string> tokens = hwl::figureTokens(p.explanation);
            QStringList labels{"*"};
            for (const hwl::PresetRun& r : p.compare)
                labels << QString::fromStdString(r.label);
            QStringList quoted; // "KIND RUN" of every token's terms
            for (const std::string& token : tokens) {
                std::string why;
                QVERIFY2(hwl::parseFigure(token, &why),
                         (p.id + ": {{" + token + "}}: " + why).c_str());
                for (const QString& term : QString::fromStdString(token).split('/')) {
                    quoted << term.simplified();
                    QVERIFY2(labels.contains(term.simplified().section(' ', 1, 1)),
                             (p.id + ": {{" + token + "}} names a run it does not make").c_str());
                }
            }
            for (const PresetClaim& c : claims) {
                if (c.presetId != QString::fromStdString(p.id))
                    continue;
                for (const QString& term : c.terms) {
                    const QString kind = term.section(' ', 0, 0);
                    const bool anyRun = term.section(' ', 1, 1) == QLatin1String("*");
                    const bool ofKind =
                        std::any_of(quoted.begin(), quoted.end(),
                                    [&](const QString& q) { return q.section(' ', 0, 0) == kind; });
                    QVERIFY2(quoted.contains(term) || quoted.contains(kind + " *") ||
                                 (anyRun && ofKind),
                             qPrintable(QString::fromStdString(p.id) + ": the claim \"" + c.line +
                                        "\" states a range of " + term +
                                        " and the text quotes no run's " + kind));
                }
            }
        }
        // Filled in from the runs: measured, the words; not yet, a placeholder.
        const std::vector<hwl::Preset> all = hwl::presets(); // kept: lost points into it
        const hwl::Preset* lost = hwl::findPreset(all, "lost-updates");
        QVERIFY(lost);
        hwl::MeasuredRun run;
        run.summary.updateWrites = {1000, 1000};
        run.summary.lostUpdates = {40, 35};
        const std::string filled = hwl::fillFigures(lost->explanation, {run}, "[", "]", "?");
        QVERIFY2(QString::fromStdString(filled).contains("[3.75%] of all writes so far"),
                 filled.c_str());
        QVERIFY(filled.find("{{") == std::string::npos);
        QVERIFY(hwl::fillFigures(lost->explanation, {}, "[", "]", "?").find("? of all writes") !=
                std::string::npos);
    }

    // The figures in the texts that read as measured (a percentage, a time
    // in ms or s, "k samples/s") are each inside one of the preset's claims,
    // so that none is left unmeasured.
    void measuredFiguresAreClaimed() {
        const QList<PresetClaim> claims = presetClaims();
        const QRegularExpression figure(R"((\d+(\.\d+)?(-\d+)?\s?(%|ms\b|k\b|s at\b|seconds\b)))");
        for (const hwl::Preset& p : hwl::presets()) {
            QString text = plainText(p);
            for (const PresetClaim& c : claims)
                if (c.presetId == QString::fromStdString(p.id))
                    text.replace(c.phrase, QStringLiteral("(claimed)"));
            const QRegularExpressionMatch m = figure.match(text);
            QVERIFY2(!m.hasMatch(), qPrintable(QString::fromStdString(p.id) + ": \"" +
                                               m.captured(0) + "\" in " + text));
        }
    }

    // --list-presets says which presets compare runs, and which runs.
    void comparisonsAreMarkedInTheList() {
        RUN_CLI(r, {"--list-presets"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("hogwild-vs-locked  (Hogwild vs locked)\n    comparison: 2 runs, "
                                "locked and hogwild, one after another;"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("comparison: 3 runs, sync-1, sync-8 and sync-64"),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains("forgot-to-share  (Forgot to share parameters (fork))\n    "
                                 "comparison"),
                 qPrintable(r.out));
        // Plain text: the texts' entities as the characters they stand for.
        QVERIFY2(!r.out.contains("&gt;") && !r.out.contains("&lt;") && !r.out.contains("&amp;"),
                 qPrintable(r.out));
        QVERIFY(r.out.contains("num_workers > 0"));
    }

    // Each run in order under a header line, the flags applied to each, a
    // table at the end; --out DIR gives each run DIR/<label>/.
    // The sequence both monitors drive: every run in order whatever the
    // last one's outcome, and a stopped run ends it.
    void comparisonSequence() {
        using hwl::Comparison;
        const hwl::ExperimentConfig c = hwl::ExperimentConfig::defaults();
        Comparison all({{"a", c}, {"b", c}, {"c", c}});
        QCOMPARE(all.size(), std::size_t(3));
        QCOMPARE(all.current()->label, std::string("a"));
        QCOMPARE(all.ended(false)->label, std::string("b"));
        QCOMPARE(all.index(), std::size_t(1));
        QCOMPARE(all.ended(false)->label, std::string("c"));
        QVERIFY(!all.ended(false));
        QVERIFY(!all.current());
        QVERIFY(!all.stoppedEarly());

        Comparison stopped({{"a", c}, {"b", c}, {"c", c}});
        QVERIFY(stopped.ended(false));
        QVERIFY(!stopped.ended(true));
        QVERIFY(stopped.stoppedEarly());
        QVERIFY(!stopped.current());

        Comparison last({{"a", c}});
        QVERIFY(!last.ended(true));
        QVERIFY(!last.stoppedEarly()); // nothing was left to make
    }

    void comparisonRunsEachAndTabulates() {
        const QString out = tmp_.filePath("vs");
        RUN_CLI(r, QStringList{"--preset", "hogwild-vs-locked", "--dataset",
                               "sparse-bow:2000x200:4:20", "--out", out} +
                       kSmallRuns);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const qsizetype first = r.out.indexOf("== run 1 of 2: locked ==\nexperiment: ");
        const qsizetype second = r.out.indexOf("== run 2 of 2: hogwild ==\nexperiment: ");
        QVERIFY2(first == 0 && second > first, qPrintable(r.out));
        QVERIFY2(
            r.out.mid(first, second - first).contains("mode threads-locked, 2 workers, 1 epoch"),
            qPrintable(r.out));
        QVERIFY2(r.out.mid(second).contains("mode threads, 2 workers, 1 epoch"), qPrintable(r.out));
        QCOMPARE(r.out.count("summary: finished after 1 of 1 epochs"), 2);
        QVERIFY2(
            r.out.contains("\ncomparison: hogwild-vs-locked, 2 of 2 runs\n  run      result    "
                           "samples/s  test accuracy   train s\n"),
            qPrintable(r.out));
        for (const QString label : {"locked", "hogwild"}) {
            const QStringList row = tableRow(r.out, label);
            QVERIFY2(row.size() == 5, qPrintable(label + "\n" + r.out));
            QCOMPARE(row[1], QStringLiteral("finished"));
            QVERIFY2(QRegularExpression(R"(^[\d.]+[kM]?$)").match(row[2]).hasMatch(),
                     qPrintable(row[2]));
            QVERIFY2(QRegularExpression(R"(^\d+\.\d\d%$)").match(row[3]).hasMatch(),
                     qPrintable(row[3]));
            // A one-epoch run may train in under 5 ms: "0.00" is a fair reading.
            QVERIFY2(QRegularExpression(R"(^\d+\.\d\d$)").match(row[4]).hasMatch(),
                     qPrintable(row[4]));
            QCOMPARE(dirEntries(out + "/" + label), kOutputFiles);
        }
        QCOMPARE(readJsonObject(out + "/locked/experiment.json").value("mode").toString(),
                 QStringLiteral("threads-locked"));
        QCOMPARE(readJsonObject(out + "/hogwild/experiment.json").value("mode").toString(),
                 QStringLiteral("threads"));
        QCOMPARE(readJsonObject(out + "/hogwild/experiment.json").value("out").toString(),
                 out + "/hogwild");
    }

    // The start methods side by side: each run's workers' start-up times in
    // the table's last column.
    void startMethodsShowStartupSideBySide() {
        RUN_CLI(r, QStringList{"--preset", "start-methods", "--dataset", "teacher:3000x100:10"} +
                       kSmallRuns);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("train s  start-up ms (each worker)\n"), qPrintable(r.out));
        for (const QString method : {"fork", "spawn", "forkserver"}) {
            QVERIFY2(r.out.contains("mode processes (" + method + "), 3 workers"),
                     qPrintable(r.out));
            const QStringList row = tableRow(r.out, method);
            QVERIFY2(row.size() == 8, qPrintable(method + "\n" + r.out)); // 3 workers' ms
            for (int w = 5; w < 8; ++w)
                QVERIFY2(row[w].toDouble() > 0, qPrintable(method + ": " + row.join(' ')));
        }
    }

    // Scene 2 on purpose: spawn workers handed the name of a segment that
    // was never made. One clear error naming the segment, the errno text and
    // the fix; exit 1 as for any failed worker; no segment, no process left.
    void spawnBeforeShareFailsCleanly() {
        RUN_CLI(r, QStringList{"--preset", "unable-to-open-shm", "--epochs", "1"});
        QVERIFY2(r.code == 1, qPrintable(r.describe()));
        const QStringList errors = r.err.split('\n', Qt::SkipEmptyParts);
        QVERIFY2(errors.size() == 1, qPrintable(r.describe()));
        const QRegularExpression message(
            R"(^error: worker \d \(pid \d+\) could not start: shared memory: cannot open segment )"
            R"(/hwl-\d+-\d+-\d+-parameters: No such file or directory: the parameters were never )"
            R"(put in shared memory before this worker started)");
        QVERIFY2(message.match(errors.first()).hasMatch(), qPrintable(r.describe()));
        QVERIFY2(errors.first().contains("Unable to open shared memory") &&
                     errors.first().contains("share the parameters before starting workers") &&
                     errors.first().contains("untick the pitfall"),
                 qPrintable(r.describe()));
        QVERIFY2(r.out.contains("summary: failed after 0 of 1 epochs"), qPrintable(r.out));
        QVERIFY2(r.out.contains("pitfall: Unable to open shared memory (the blog's scene 2)"),
                 qPrintable(r.out));
        QVERIFY(r.shmLeftovers.isEmpty());
        QStringList left = processesOfRun(r.pid);
        for (int i = 0; i < 20 && !left.isEmpty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            left = processesOfRun(r.pid);
        }
        QVERIFY2(left.isEmpty(), qPrintable("still running: " + left.join(", ")));
        // The same with the fork server, whose workers also open by name.
        RUN_CLI(server, QStringList{"--preset", "unable-to-open-shm", "--epochs", "1",
                                    "--start-method", "forkserver"});
        QVERIFY2(server.code == 1 && server.err.contains("No such file or directory"),
                 qPrintable(server.describe()));
    }

    // Where the pitfall cannot happen it is refused, saying why.
    void spawnBeforeShareAppliesToOpenedSegmentsOnly() {
        const QStringList small = kSmall + QStringList{"--spawn-before-share"};
        RUN_CLI(fork, small + QStringList{"--mode", "processes", "--start-method", "fork"});
        QVERIFY2(fork.code == 2 &&
                     fork.err.contains("spawn-before-share applies to start-method spawn or "
                                       "forkserver: a forked worker inherits"),
                 qPrintable(fork.describe()));
        RUN_CLI(threads, small);
        QVERIFY2(threads.code == 2 &&
                     threads.err.contains("spawn-before-share applies to mode processes"),
                 qPrintable(threads.describe()));
        RUN_CLI(plain, kSmall + QStringList{"--mode", "processes", "--start-method", "spawn"});
        QVERIFY2(plain.code == 0, qPrintable(plain.describe()));
    }

    // Nested workers (the blog's pitfall 3): refused before anything starts,
    // with the processes x loaders arithmetic on this machine's cores.
    void nestedWorkersAreRefused() {
        RUN_CLI(r, {"--preset", "nested-workers"});
        QCOMPARE(r.code, 2);
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const QString arithmetic =
            QStringLiteral("Each of the 2 worker processes would start 4 loader processes of its "
                           "own: 10 processes (2 workers + 8 loaders) on %1 core")
                .arg(cores);
        for (const QString& needle :
             {QStringLiteral("loader-workers: loader-workers 4 refused: nested processes"),
              arithmetic, QStringLiteral("daemonic processes are not allowed to have children"),
              QStringLiteral("Use --loader-workers 0")})
            QVERIFY2(r.err.contains(needle), qPrintable(needle + "\n" + r.describe()));
        QVERIFY2(!r.out.contains("summary:"), qPrintable(r.out));
        RUN_CLI(threads, kSmall + QStringList{"--loader-workers", "2"});
        QVERIFY2(threads.code == 2 &&
                     threads.err.contains("loader-workers 2 refused: the workers of mode threads "
                                          "are threads of this process"),
                 qPrintable(threads.describe()));
        RUN_CLI(zero, {"--preset", "nested-workers", "--loader-workers", "0", "--epochs", "1"});
        QVERIFY2(zero.code == 0, qPrintable(zero.describe()));
    }
};

QTEST_GUILESS_MAIN(TestCliPresets)
#include "strategy/validation.h"
#include "tst_clipresets.moc"
