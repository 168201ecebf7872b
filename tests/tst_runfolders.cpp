// Runs kept on disk (io/runfolders.h): where --compare and the window's Open
// find run folders below a folder, and the one rule by which runs are
// repeats of one experiment, which both fold by.
#include "io/runfolders.h"
#include "util/errors.h"

#include "testutil.h"

#include <QTest>

using namespace hwl;
using Fields = std::map<std::string, std::string>;
using Groups = std::vector<std::vector<std::size_t>>;

class TestRunFolders : public QObject, hwl::test::Fixtures {
    Q_OBJECT

    /// A run folder: `dir` made, with a summary.json in it.
    void runAt(const QString& dir) {
        subdir(dir);
        file(dir + "/summary.json", "{}");
    }

private slots:
    void repeatsDifferOnlyInSeedAndFolders() {
        const std::vector<Fields> runs{
            {{"lr", "0.1"}, {"seed", "1"}, {"out", "a"}},
            {{"lr", "0.3"}, {"seed", "1"}, {"out", "b"}},
            {{"lr", "0.1"}, {"seed", "2"}, {"out", "c"}, {"init", "w.safetensors"}},
            {{"lr", "0.1"}},                                      // no seed: alone
            {{"lr", "0.1"}},                                      // nor with its twin
            {{"lr", "0.3"}, {"seed", "1"}, {"tensorboard", "t"}}, // the same seed: a repeat too
            {{"lr", "0.1"}, {"seed", "3"}, {"mode", "threads"}},  // a field more: apart
        };
        QCOMPARE(repeatGroups(runs), (Groups{{0, 2}, {1, 5}, {3}, {4}, {6}}));
        QCOMPARE(repeatGroups({}), Groups{});
    }

    void runFoldersAreFoundAsCompareWalksThem() {
        const QString root = "sweep";
        for (const char* run : {"lr=0.3,seed=2", "lr=0.1,seed=1", "preset/a/b", "deep/1/2/3/4"})
            runAt(root + "/" + run);
        runAt(root + "/lr=0.1,seed=1/inner"); // inside a run: not a run of the sweep
        subdir(root + "/empty");
        const std::filesystem::path dir = subdir(root);
        std::vector<std::filesystem::path> found = findRunFolders(dir);
        std::vector<std::filesystem::path> expected{dir / "lr=0.1,seed=1", dir / "lr=0.3,seed=2",
                                                    dir / "preset/a/b"}; // sorted; depth > 4 not
        QCOMPARE(found, expected);
        // A run's own folder is itself.
        QCOMPARE(findRunFolders(dir / "lr=0.1,seed=1"),
                 std::vector<std::filesystem::path>{dir / "lr=0.1,seed=1"});
        QVERIFY(isRunFolder(dir / "lr=0.1,seed=1"));
        QVERIFY(!isRunFolder(dir));
        QVERIFY(findRunFolders(dir / "empty").empty());
        QVERIFY(findRunFolders(dir / "absent").empty());
    }

    void tooManyRunsAreRefused() {
        const QString root = "many";
        for (std::size_t i = 0; i <= kMaxRunFolders; ++i)
            runAt(root + "/" + QString::number(i));
        try {
            findRunFolders(subdir(root));
            QFAIL("a folder of more runs than kMaxRunFolders was read");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("holds more than 10000 runs"), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestRunFolders)
#include "tst_runfolders.moc"
