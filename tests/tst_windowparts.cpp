// The window's parts, each alone, without a MainWindow: the recent files,
// the TensorBoard folder, the comparison driver, the theme, the Help menu,
// the explanation's measured figures and the experiment files (opened by
// what they are, saved, refused).
#include "form/experimentform.h"
#include "guitestmain.h"
#include "runs/measuredruns.h"
#include "runs/runcontroller.h"
#include "teaching/explanationpane.h"
#include "testutil.h"
#include "widgets/statusline.h"
#include "window/comparisondriver.h"
#include "window/experimentfiles.h"
#include "window/helpmenu.h"
#include "window/recentfiles.h"
#include "window/tensorboardlogs.h"
#include "window/windowtheme.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>

using namespace hwl;
using namespace hwl::ui;

class TestWindowParts : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

    QString touch(const QString& name, const QByteArray& bytes = "x") {
        hwl::test::writeBytes(tmp_.filePath(name), bytes);
        return tmp_.filePath(name);
    }

private slots:
    // The explanation's figures of the run going: about once a second, but
    // at once after a new evaluation (a picture caught "this run: 85.0%"
    // under a chart already at 86.3%).
    void aNewEvaluationIsSaidAtOnce() {
        MeasuredRuns measured;
        QSignalSpy said(&measured, &MeasuredRuns::changed);
        measured.runStarted("", true, false);
        QCOMPARE(said.size(), 1);
        RunSummary sofar;
        sofar.epochsCompleted = 1;
        sofar.evaluated = true;
        sofar.testAccuracy = 0.85;
        measured.runGoing({}, sofar, 1.0);
        QCOMPARE(said.size(), 2);
        measured.runGoing({}, sofar, 1.1); // nothing new within the second
        QCOMPARE(said.size(), 2);
        sofar.epochsCompleted = 2;
        sofar.testAccuracy = 0.863;
        measured.runGoing({}, sofar, 1.2);
        QCOMPARE(said.size(), 3);
        QCOMPARE(measured.runs().back().summary.testAccuracy, 0.863);
    }

    // The status bar's one text: a note shown for a while in place of the
    // state, which the state set meanwhile does not displace, and after
    // which the state as it is by then comes back.
    void aStatusNoteGivesWayToTheState() {
        StatusLine line("Ready");
        QCOMPARE(line.text(), QStringLiteral("Ready"));
        line.showNote("Cannot open x.csv", 300);
        QCOMPARE(line.text(), QStringLiteral("Cannot open x.csv"));
        QCOMPARE(line.note(), QStringLiteral("Cannot open x.csv"));
        line.setStatus("Running — 12 samples/s");
        QCOMPARE(line.text(), QStringLiteral("Cannot open x.csv"));
        QCOMPARE(line.status(), QStringLiteral("Running — 12 samples/s"));
        QTRY_COMPARE(line.text(), QStringLiteral("Running — 12 samples/s"));
        QVERIFY(line.note().isEmpty());
        line.setStatus("Run finished");
        QCOMPARE(line.text(), QStringLiteral("Run finished"));
    }

    void recentFilesKeepTheNewestOnce() {
        QMenu menu;
        RecentFiles recent(&menu);
        QVERIFY(recent.files().isEmpty());
        QVERIFY(!menu.isEnabled());
        for (int i = 0; i < 12; ++i) // the last one is never written: missing
            recent.add(i < 11 ? touch(QStringLiteral("f%1.json").arg(i))
                              : tmp_.filePath("f11.json"));
        QCOMPARE(recent.files().size(), RecentFiles::kMaxFiles);
        QCOMPARE(recent.files().first(), tmp_.filePath("f11.json"));
        QCOMPARE(recent.files().last(), tmp_.filePath("f2.json"));
        recent.add(tmp_.filePath("f5.json")); // again: moved to the front, once
        QCOMPARE(recent.files().first(), tmp_.filePath("f5.json"));
        QCOMPARE(recent.files().count(tmp_.filePath("f5.json")), 1);
        QCOMPARE(recent.files().size(), RecentFiles::kMaxFiles);

        Q_EMIT menu.aboutToShow();
        const QList<QAction*> entries = menu.actions(); // the files, a separator, Clear
        QCOMPARE(entries.size(), RecentFiles::kMaxFiles + 2);
        QVERIFY(entries[0]->isEnabled());
        QVERIFY2(entries[1]->text().endsWith("(missing)"), qPrintable(entries[1]->text()));
        QVERIFY(!entries[1]->isEnabled());
        QSignalSpy chosen(&recent, &RecentFiles::openRequested);
        entries[0]->trigger();
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen[0][0].toString(), tmp_.filePath("f5.json"));

        RecentFiles again(new QMenu(&menu)); // kept between windows
        QCOMPARE(again.files(), recent.files());
        menu.actions().last()->trigger(); // Clear the list
        QVERIFY(recent.files().isEmpty());
        QVERIFY(!menu.isEnabled());
    }

    void tensorBoardFolderIsKeptAndIsTheRunsLogdir() {
        QWidget window;
        QMenu run;
        TensorBoardLogs logs(&run, &window);
        QCOMPARE(run.actions(), QList<QAction*>{logs.action()});
        QVERIFY(logs.folder().isEmpty());
        QVERIFY(!logs.action()->isChecked());
        QSignalSpy said(&logs, &TensorBoardLogs::eventLogged);
        logs.setFolder(tmp_.filePath("events"));
        QCOMPARE(logs.folder(), QDir(tmp_.filePath("events")).absolutePath());
        QVERIFY(logs.action()->isChecked());
        QVERIFY(logs.action()->toolTip().contains(logs.folder()));
        QCOMPARE(said.size(), 1);
        logs.setFolder(logs.folder()); // no change: nothing said
        QCOMPARE(said.size(), 1);
        {
            QMenu other;
            TensorBoardLogs next(&other, &window); // the next session's
            QCOMPARE(next.folder(), logs.folder());
            QVERIFY(next.action()->isChecked());
        }
        logs.setFolder({});
        QVERIFY(!logs.action()->isChecked());
        QVERIFY(said.last()[0].toString().endsWith("off"));

        // A run writes into the folder unless its experiment names its own
        // logdir; the run makes its run folder there (io/tensorboardlogdir.h).
        ExperimentConfig config;
        QCOMPARE(logs.logdirOf(config), std::string());
        logs.setFolder(tmp_.filePath("events"));
        QCOMPARE(logs.logdirOf(config), logs.folder().toStdString());
        config.tensorboard = "/own";
        QCOMPARE(logs.logdirOf(config), std::string("/own"));
    }

    void comparisonDriverWalksItsRunsAndTabulates() {
        ComparisonDriver driver;
        QCOMPARE(driver.runIndex(), -1);
        QVERIFY(!driver.current() && !driver.record());
        ExperimentConfig a, b;
        b.workers = 4;
        driver.begin({{"hogwild", a}, {"locked", b}}, "Hogwild or locked",
                     ComparedFigure::Throughput);
        QSignalSpy logged(&driver, &ComparisonDriver::eventLogged);
        QSignalSpy due(&driver, &ComparisonDriver::nextRunDue);
        QSignalSpy verdict(&driver, &ComparisonDriver::verdictReady);
        QCOMPARE(driver.runIndex(), 0);
        QCOMPARE(driver.current()->label, "hogwild");
        QVERIFY(driver.runStarting());
        QCOMPARE(driver.statusLabel()->text(), "Run 1 of 2: hogwild");
        QVERIFY(!driver.statusLabel()->isHidden());
        QVERIFY(logged.last()[0].toString().contains("Comparison run 1 of 2: hogwild"));

        RunSummary done;
        done.state = RunState::Finished;
        done.samplesPerSecond = 1000;
        driver.recordRun(done, false, 0.5);
        driver.runEnded(done);
        QCOMPARE(due.size(), 0); // after a pause
        QVERIFY(due.wait(5000));
        QCOMPARE(driver.runIndex(), 1);
        QCOMPARE(driver.current()->config.workers, 4);
        QVERIFY(driver.runStarting());
        QCOMPARE(driver.statusLabel()->text(), "Run 2 of 2: locked");
        driver.recordRun(done, true, -1);
        driver.runEnded(done);
        QCOMPARE(driver.runIndex(), -1); // over: no run after the last
        QVERIFY(logged.last()[0].toString().startsWith("Comparison done"));
        QCOMPARE(driver.record()->rows.size(), 2); // kept until end()
        QCOMPARE(driver.record()->rows[1].label, "locked");
        QVERIFY(driver.record()->rows[1].processes);
        QCOMPARE(driver.record()->rows[0].divergence, 0.5);
        driver.end();
        QCOMPARE(verdict.size(), 1);
        QVERIFY(verdict[0][0].value<Verdict>().title.startsWith("Hogwild or locked: 2 runs"));
        QCOMPARE(verdict[0][0].value<Verdict>().table.size(), 3); // header and two runs
        QVERIFY(driver.statusLabel()->isHidden() && !driver.record());
        QTest::qWait(ComparisonDriver::kPauseMs + 100);
        QCOMPARE(due.size(), 1);
    }

    void aStoppedComparisonMakesNoMoreRuns() {
        ComparisonDriver driver;
        QSignalSpy logged(&driver, &ComparisonDriver::eventLogged);
        QSignalSpy due(&driver, &ComparisonDriver::nextRunDue);
        QSignalSpy verdict(&driver, &ComparisonDriver::verdictReady);
        driver.begin({{"a", {}}, {"b", {}}, {"c", {}}}, "Three", ComparedFigure::None);
        QVERIFY(driver.runStarting());
        RunSummary stopped;
        stopped.state = RunState::Stopped;
        driver.recordRun(stopped, false, -1);
        driver.runEnded(stopped);
        QCOMPARE(driver.runIndex(), -1);
        QVERIFY(logged.last()[0].toString().contains("stops: run 1 was stopped"));
        QVERIFY(logged.last()[1].toBool()); // a warning
        driver.end();
        QCOMPARE(verdict.size(), 1); // the run that ended has its row
        QTest::qWait(ComparisonDriver::kPauseMs + 100);
        QCOMPARE(due.size(), 0);

        // Stopped before a run of it ended: no table; a run of its own ends it.
        driver.begin({{"a", {}}, {"b", {}}}, "Two", ComparedFigure::None);
        driver.stop();
        QVERIFY(!driver.current());
        QVERIFY(!driver.runStarting());
        QVERIFY(!driver.record());
        QCOMPARE(verdict.size(), 1);
    }

    void themeForcedOrFollowingTheSystem() {
        QWidget window;
        WindowTheme theme(&window);
        QSignalSpy changed(&theme, &WindowTheme::changed);
        theme.set(true, true);
        QVERIFY(theme.dark());
        QCOMPARE(changed.last()[0].toBool(), true);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
        theme.set(false, true);
        QVERIFY(!theme.dark());
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);

        QSettings().setValue("view/theme", "dark"); // as the View menu left it
        QMenu view;
        theme.addChoices(&view);
        QVERIFY(theme.dark());
        QCOMPARE(view.actions().size(), 3);
        QVERIFY(view.actions()[2]->isChecked());
        view.actions()[1]->trigger(); // light
        QVERIFY(!theme.dark());
        QCOMPARE(QSettings().value("view/theme").toString(), "light");
        view.actions()[0]->trigger(); // the system's palette (offscreen: a light one)
        QVERIFY(!theme.dark());
        QCOMPARE(QApplication::palette().color(QPalette::Window).lightness() > 150, true);
    }

    void helpMenuSaysTheModesAndKeys() {
        QWidget window;
        QMenuBar bar;
        HelpMenu help(&bar, &window);
        QCOMPARE(bar.actions().size(), 1);
        const QList<QAction*> entries = bar.actions()[0]->menu()->actions();
        QCOMPARE(entries.size(), 3);
        QCOMPARE(entries[0]->shortcut(), QKeySequence(QKeySequence::HelpContents));
        const QString modes = HelpMenu::text("modes");
        for (const StrategyTraits* t : allStrategies())
            QVERIFY2(modes.contains(QString::fromStdString(t->label).toHtmlEscaped()),
                     qPrintable(QString::fromStdString(t->label)));
        QVERIFY(HelpMenu::text("shortcuts").contains("F5"));
        QVERIFY(HelpMenu::text("about").contains(QStringLiteral(HWL_VERSION)));
    }

    void experimentFilesOpenByWhatTheyAre() {
        QWidget window;
        ExperimentForm form;
        ExplanationPane explanation;
        RunController controller;
        ExperimentFiles files(&form, &explanation, &controller, &window);
        QSignalSpy used(&files, &ExperimentFiles::fileUsed);
        QSignalSpy status(&files, &ExperimentFiles::statusShown);
        ExperimentConfig c = form.config();
        c.epochs = 7;
        form.setConfig(c);
        const QString saved = tmp_.filePath("seven.json");
        QVERIFY(files.saveExperiment(saved, true));
        QCOMPARE(used.last()[0].toString(), saved);
        c.epochs = 3;
        form.setConfig(c);
        QVERIFY(files.openFile(saved, true));
        QCOMPARE(form.config().epochs, 7);

        // A run goes to the window's run list, through the opener.
        QString runOpened;
        files.setRunOpener([&](const QString& path, bool, QString*) {
            runOpened = path;
            return true;
        });
        const QString csv = touch("metrics.csv");
        QVERIFY(files.openFile(csv, true));
        QCOMPARE(runOpened, csv);

        QString why;
        QVERIFY(!files.openFile(touch("notes.txt"), true, &why));
        QVERIFY2(why.contains("opens experiments (.json)"), qPrintable(why));
        QCOMPARE(status.last()[0].toString(), why);
        QVERIFY(!files.openFile(tmp_.filePath("none.json"), true, &why));
        QVERIFY2(why.contains("no such file"), qPrintable(why));

        // Experiments first: the broken weights after it are refused, alone.
        c.epochs = 3;
        form.setConfig(c);
        const QStringList failed = files.openFiles({touch("broken.safetensors"), saved});
        QCOMPARE(failed.size(), 1);
        QCOMPARE(form.config().epochs, 7);
        QVERIFY(form.config().init.empty());

        QVERIFY(!files.continueRun(tmp_.path(), true, &why));
        QVERIFY2(why.contains("experiment.json"), qPrintable(why));

        c.epochs = 9;
        ExperimentFiles::rememberStarted(c);
        QVERIFY(files.openLastStarted(true));
        QCOMPARE(form.config().epochs, 9);
    }
};

HWL_GUI_TEST_MAIN(TestWindowParts)
#include "tst_windowparts.moc"
