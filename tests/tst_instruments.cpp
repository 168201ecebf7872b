// The race instruments a class can watch: the shared-counter toy (its
// arithmetic in the engine, its report on the command line) and the
// lost-update counter's summary (tst_lostupdates checks its counts).
#include "clitest.h"

#include "toy/countertoy.h"
#include "util/errors.h"

using namespace hwl::test;

class TestInstruments : public QObject {
    Q_OBJECT

private slots:
    // Whatever the timing: atomic and locked end at N * M exactly, plain
    // never above it, and lost is always what is missing.
    void counterToyArithmetic() {
        const auto results = hwl::runCounterToy(3, 20000);
        QCOMPARE(results.size(), std::size_t(3));
        QStringList ways;
        for (const auto& r : results) {
            ways << QString::fromStdString(r.way);
            QCOMPARE(r.expected, std::uint64_t(60000));
            QVERIFY(r.final >= 1 && r.final <= 60000);
            QCOMPARE(double(r.lost), double(r.expected) - r.final);
            QVERIFY(r.seconds > 0);
            QVERIFY(!r.how.empty());
            if (r.way != "plain")
                QCOMPARE(r.lost, std::uint64_t(0));
        }
        QCOMPARE(ways, (QStringList{"plain", "atomic", "locked"}));
        // One worker has nobody to race with: plain loses nothing either.
        for (const auto& r : hwl::runCounterToy(1, 50000)) {
            QCOMPARE(r.final, 50000.0);
            QCOMPARE(r.lost, std::uint64_t(0));
        }
    }

    void counterToyRefusesWhatAFloatCannotCount() {
        QVERIFY(hwl::counterToyProblem(16, 1 << 20).empty()); // exactly 2^24
        QVERIFY(QString::fromStdString(hwl::counterToyProblem(16, (1 << 20) + 1))
                    .contains("more than a float counts exactly (2^24 = 16777216)"));
        QVERIFY(QString::fromStdString(hwl::counterToyProblem(0, 10)).contains("workers must be"));
        QVERIFY(
            QString::fromStdString(hwl::counterToyProblem(257, 10)).contains("workers must be"));
        QVERIFY(QString::fromStdString(hwl::counterToyProblem(2, 0)).contains("increments must"));
        QVERIFY_THROWS_EXCEPTION(hwl::InputError, hwl::runCounterToy(2, -1));
    }

    void counterToyOnTheCommandLine() {
        RUN_CLI(r, {"--counter-toy", "--workers", "3", "--increments", "1000"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.startsWith("shared counter: 3 workers each add 1 to one shared float "
                                  "1000 times (expected 3000)\n"),
                 qPrintable(r.out));
        for (const char* way : {"atomic", "locked"}) {
            const QRegularExpression line(
                QStringLiteral("^  %1 +final +3000  lost +0 \\( *0\\.0%\\)").arg(way),
                QRegularExpression::MultilineOption);
            QVERIFY2(r.out.contains(line), qPrintable(r.out));
        }
        const QRegularExpression plain(R"(^  plain +final +(\d+)  lost +(\d+) )",
                                       QRegularExpression::MultilineOption);
        const auto m = plain.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QCOMPARE(m.captured(1).toLongLong() + m.captured(2).toLongLong(), 3000LL);
        // The default size, and sizes it cannot run.
        RUN_CLI(byDefault, {"--counter-toy"});
        QVERIFY2(byDefault.out.contains("2 workers each add 1 to one shared float 1000000 times"),
                 qPrintable(byDefault.describe()));
        RUN_CLI(tooMany, {"--counter-toy", "--increments", "9000000"});
        QCOMPARE(tooMany.code, 2);
        QVERIFY2(tooMany.err.contains("more than a float counts exactly"), qPrintable(tooMany.err));
        RUN_CLI(notANumber, {"--counter-toy", "--increments", "lots"});
        QCOMPARE(notANumber.code, 2);
        QVERIFY2(notANumber.err.contains("--increments: must be a whole number (got \"lots\")"),
                 qPrintable(notANumber.err));
    }

    void lostUpdatesOnTheCommandLine() {
        RUN_CLI(r, {"--preset", "lost-updates", "--epochs", "3", "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QRegularExpression line(
            R"(^summary: lost updates: (\d+) of (\d+) \([\d.]+%\); worker 0: \d+ of \d+, )"
            R"(worker 1: \d+ of \d+, worker 2: \d+ of \d+, worker 3: \d+ of \d+$)",
            QRegularExpression::MultilineOption);
        const auto m = line.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QVERIFY(m.captured(2).toULongLong() > 0);
        QVERIFY(m.captured(1).toULongLong() <= m.captured(2).toULongLong());
        QVERIFY2(r.out.contains("a block's write counts as lost when another worker wrote the "
                                "same block between this worker's read of it and its own write"),
                 qPrintable(r.out));

        RUN_CLI(locked, {"--preset", "lost-updates", "--mode", "threads-locked", "--epochs", "1"});
        QVERIFY2(locked.code == 0, qPrintable(locked.describe()));
        QVERIFY2(locked.out.contains(QRegularExpression(R"(summary: lost updates: 0 of [1-9])")),
                 qPrintable(locked.out));
        QVERIFY(locked.out.contains("under the lock one worker writes at a time"));

        RUN_CLI(serial, {"--mode", "serial", "--lost-updates"});
        QCOMPARE(serial.code, 2);
        QVERIFY2(serial.err.contains("lost-updates applies to mode threads, threads-locked or "
                                     "processes (shared) only"),
                 qPrintable(serial.err));
    }

    // The pace slows a run down and nothing else: the same weights at 400
    // steps/s as at full speed; a preset brings its own pace; bad values
    // are refused.
    void paceOnTheCommandLine() {
        QTemporaryDir dir;
        const QStringList run{
            "--mode",          "serial",   "--model", "mlp:8-8-2",       "--dataset",
            "teacher:640x8:2", "--epochs", "1",       "--test-fraction", "0"};
        RUN_CLI(fast, run + QStringList{"--out", dir.filePath("fast")});
        RUN_CLI(paced, run + QStringList{"--pace", "400", "--out", dir.filePath("paced")});
        QVERIFY2(fast.code == 0 && paced.code == 0, qPrintable(paced.describe()));
        const auto weights = [&](const char* sub) {
            return hwl::readSafetensors(dir.filePath(sub).toStdString() + "/weights.safetensors");
        };
        const auto a = weights("fast"), b = weights("paced");
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY(a[i].data == b[i].data); // bit for bit
        for (const char* bad : {"-1", "1000001", "fast"}) {
            RUN_CLI(r, {"--pace", bad});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--pace: "), qPrintable(r.err));
        }
        RUN_CLI(help, {"--help"});
        QVERIFY(help.out.contains("--pace N"));
        // A preset's own pace, said; a later --pace wins.
        RUN_CLI(preset, {"--preset", "sparse-embedding", "--epochs", "1", "--batch", "2048"});
        QVERIFY2(preset.out.contains("pace: at most 100 steps per second per worker"),
                 qPrintable(preset.describe()));
        RUN_CLI(overridden, {"--preset", "sparse-embedding", "--epochs", "1", "--pace", "0"});
        QVERIFY2(overridden.code == 0 && !overridden.out.contains("pace:"),
                 qPrintable(overridden.describe()));
    }
};

QTEST_GUILESS_MAIN(TestInstruments)
#include "tst_instruments.moc"
