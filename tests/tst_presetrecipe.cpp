// The recipe "Adding a preset" (docs/architecture.md, docs/presets.md),
// walked: a preset dropped into the user's data folder
// ($XDG_DATA_HOME/hogwild-lab/presets/) is listed by --list-presets, runs
// with --preset ID, and is in the window's Presets menu; a broken one is
// left out with a message naming the file, on each of the three, and hides
// no other preset. The loader's rules one by one: tst_presets.
#include "clitest.h"
#include "guitestmain.h"
#include "testpaths.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include "preset/presets.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>

using namespace hwl::test;
using hwl::ui::MainWindow;

namespace {
/// The recipe's example, as docs/presets.md shows it.
const QByteArray kJson = R"({
  "preset": {"title": "Two threads, small teacher", "pace": 0},
  "model": "mlp:20-32-4",
  "dataset": "teacher:2000x20:4",
  "mode": "threads",
  "workers": 2,
  "epochs": 1
})";
const QByteArray kHtml = "<p>Two Hogwild threads on a small teacher task: the loss falls "
                         "within a second.</p>\n";

/// The Presets menu's entries, by their text.
QStringList presetsMenu(MainWindow& w) {
    for (QAction* a : w.menuBar()->actions())
        if (a->menu() && a->text().remove('&') == QLatin1String("Presets")) {
            QStringList entries;
            for (QAction* entry : a->menu()->actions())
                entries << entry->text();
            return entries;
        }
    return {};
}
} // namespace

class TestPresetRecipe : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString folder_; ///< the user's preset folder

    void write(const QString& name, const QByteArray& bytes) {
        QDir().mkpath(folder_);
        writeBytes(folder_ + "/" + name, bytes);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        QVERIFY2(QFileInfo(QString::fromUtf8(kAppBinary)).isExecutable(), kAppBinary);
        isolateSettings(tmp_.path()); // $XDG_DATA_HOME: tmp/data, for this process and its children
        qputenv("XDG_DATA_DIRS", tmp_.filePath("none").toUtf8());
        folder_ = tmp_.filePath("data/hogwild-lab/presets");
        QCOMPARE(QString::fromStdString(hwl::presetFolders().front().string()), folder_);
    }

    // Step 1 of the recipe: the two files in the folder. The command line
    // lists it (from its file) and runs it; the window offers it.
    void aDroppedPresetIsOfferedEverywhere() {
        write("two-threads.json", kJson);
        write("two-threads.html", kHtml);

        RUN_CLI(list, {"--list-presets"});
        QVERIFY2(list.code == 0 && list.err.isEmpty(), qPrintable(list.describe()));
        QVERIFY2(list.out.contains("\ntwo-threads  (Two threads, small teacher)\n    from " +
                                   folder_ +
                                   "/two-threads.json\n    Two Hogwild threads on a "
                                   "small teacher task"),
                 qPrintable(list.out));
        QVERIFY(list.out.contains("\nhogwild-vs-locked  (Hogwild vs locked)\n"));

        RUN_CLI(run, {"--preset", "two-threads", "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QVERIFY2(run.out.contains("epoch 1  test loss "), qPrintable(run.out));

        MainWindow w;
        QVERIFY2(presetsMenu(w).contains("Two threads, small teacher"),
                 qPrintable(presetsMenu(w).join(", ")));
        QVERIFY(w.applyPreset("two-threads"));
        QVERIFY2(w.explanationText().contains("Two Hogwild threads on a small teacher task"),
                 qPrintable(w.explanationText()));
    }

    // A broken preset file: --list-presets warns naming it and lists the
    // others, --preset ID refuses it naming it (status 2), the window leaves
    // it out of the menu and says why in its event log.
    void aBrokenPresetIsRefusedNamingTheFile() {
        write("two-threads.json", kJson);
        write("two-threads.html", kHtml);
        QByteArray broken = kJson;
        // A mistake only the validation sees: dropout on a model without it.
        write("broken.json", broken.replace("\"epochs\": 1", "\"epochs\": 1, \"dropout\": 0.3"));
        write("broken.html", kHtml);
        const QString file = folder_ + "/broken.json";

        RUN_CLI(list, {"--list-presets"});
        QVERIFY2(list.code == 0, qPrintable(list.describe()));
        QVERIFY2(list.err.contains("warning: preset file \"" + file +
                                   "\": invalid experiment:\n  dropout: "),
                 qPrintable(list.err));
        QVERIFY(list.out.contains("\ntwo-threads  (Two threads, small teacher)\n"));
        QVERIFY(!list.out.contains("\nbroken  ("));

        RUN_CLI(run, {"--preset", "broken"});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains("--preset: preset file \"" + file + "\": invalid experiment:"),
                 qPrintable(run.err));

        MainWindow w;
        QVERIFY(presetsMenu(w).contains("Two threads, small teacher"));
        QCOMPARE(presetsMenu(w).filter("small teacher").size(), 1);
        QVERIFY2(w.eventLogText().contains("preset file \"" + file + "\": invalid experiment:"),
                 qPrintable(w.eventLogText()));
        QVERIFY(!w.applyPreset("broken"));
    }
};

HWL_GUI_TEST_MAIN(TestPresetRecipe)
#include "tst_presetrecipe.moc"
