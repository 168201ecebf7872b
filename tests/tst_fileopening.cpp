// Files opened in the window (issue 23): from the command line (as the file
// manager opens them through the desktop file's %F), dropped on the window,
// and from File > Open recent. An experiment fills the form, a metrics.csv
// or a --out folder goes into the run list, a safetensors file becomes the
// initial weights; an unknown, broken or missing file is one message naming
// it, never a crash. The desktop identity (app id) is the desktop file's,
// and the window icon the icon theme's of that name.
#include "clitest.h"
#include "form/experimentform.h"
#include "guitestmain.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "testutil.h"
#include "widgets/filedialogs.h"
#include "window/experimentfiles.h"
#include "window/guiapp.h"
#include "window/mainwindow.h"
#include "window/recentfiles.h"

#include "charts/trainingchart.h"
#include "io/metricslog.h"
#include "io/tensorfile.h"
#include "telemetry/sample.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDropEvent>
#include <QFileDialog>
#include <QGuiApplication>
#include <QIcon>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using namespace hwl;
using namespace hwl::ui;
using hwl::test::Result;
using hwl::test::runCli;

namespace {

constexpr int kWaitMs = 30000;

/// Drags `paths` over `target` and drops them there, as a file manager
/// does; whether the window took the drag and the drop.
std::pair<bool, bool> dropFiles(QWidget* target, const QList<QUrl>& urls) {
    QMimeData mime;
    mime.setUrls(urls);
    const QPoint at(10, 10);
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &enter);
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &drop);
    return {enter.isAccepted(), drop.isAccepted()};
}

QList<QUrl> urlsOf(const QStringList& paths) {
    QList<QUrl> urls;
    for (const QString& p : paths)
        urls << QUrl::fromLocalFile(p);
    return urls;
}

/// The Open recent menu's file entries (not its separator and Clear).
QList<QAction*> recentEntries(const MainWindow& w) {
    QList<QAction*> entries;
    for (QAction* a : w.recent()->menu()->actions()) {
        if (a->isSeparator())
            break;
        entries << a;
    }
    return entries;
}

} // namespace

class TestFileOpening : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's
    QString experiment_, metrics_, outFolder_, weights_, unknown_, brokenJson_, brokenWeights_,
        missing_;

    QString path(const QString& name) const { return QDir(tmp_.path()).filePath(name); }

    /// A metrics.csv as the engine writes it: one worker, 200 steps.
    static void writeMetrics(const QString& file) {
        MetricsLog log;
        for (std::uint64_t step = 1; step <= 200; ++step) {
            Sample s;
            s.kind = Sample::Step;
            s.worker = 0;
            s.epoch = 1;
            s.step = step;
            s.samples = step * 32;
            s.time = double(step) / 1000.0;
            s.loss = 2.0f - float(step) / 200.0f;
            log.append(s);
        }
        log.writeCsv(file.toStdString());
    }

private slots:
    void initTestCase() {
        ExperimentConfig config;
        config.epochs = 7;
        experiment_ = path("seven-epochs.json");
        hwl::test::writeBytes(experiment_, QByteArray::fromStdString(config.toJson()));
        metrics_ = path("metrics.csv");
        writeMetrics(metrics_);
        outFolder_ = path("out");
        QVERIFY(QDir().mkpath(outFolder_));
        writeMetrics(QDir(outFolder_).filePath("metrics.csv"));
        weights_ = path("start.safetensors");
        const float values[2] = {0.5f, -0.5f};
        writeSafetensors(weights_.toStdString(), {TensorRef{"w", {2}, values}});
        unknown_ = path("notes.txt");
        hwl::test::writeBytes(unknown_, "just notes\n");
        brokenJson_ = path("broken.json");
        hwl::test::writeBytes(brokenJson_, "{\"epochs\": ");
        brokenWeights_ = path("broken.safetensors");
        hwl::test::writeBytes(brokenWeights_, QByteArray("\xff\xff\xff\xff\xff\xff\xff\x7f{}", 10));
        missing_ = path("gone.json");
    }

    void desktopIdentityIsTheAppId() {
        setDesktopIdentity();
        QCOMPARE(QGuiApplication::desktopFileName(), QString::fromLatin1(kAppId));
        QCOMPARE(QString::fromLatin1(kAppId), QStringLiteral("org.hogwildlab.HogwildLab"));
        // The window icon is the icon theme's of that name, when it has one.
        const QString icons = path("icons");
        QVERIFY(QDir().mkpath(icons + "/hicolor/scalable/apps"));
        hwl::test::writeBytes(icons + "/hicolor/index.theme",
                              "[Icon Theme]\nName=Hicolor\nDirectories=scalable/apps\n\n"
                              "[scalable/apps]\nSize=128\nType=Scalable\nMinSize=8\n"
                              "MaxSize=512\n");
        hwl::test::writeBytes(icons + "/hicolor/scalable/apps/org.hogwildlab.HogwildLab.svg",
                              "<svg xmlns='http://www.w3.org/2000/svg' width='16' height='16'>"
                              "<rect width='16' height='16' fill='red'/></svg>");
        const QStringList searched = QIcon::themeSearchPaths();
        const QString theme = QIcon::themeName();
        QIcon::setThemeSearchPaths({icons});
        QIcon::setThemeName("hicolor"); // offscreen has no desktop theme of its own
        setDesktopIdentity();
        const bool found = !QApplication::windowIcon().isNull() &&
                           !QApplication::windowIcon().pixmap(16, 16).isNull();
        QIcon::setThemeSearchPaths(searched);
        QIcon::setThemeName(theme);
        QVERIFY(found);
    }

    void commandLineFilesAndUrls() {
        const QStringList files = filesToOpen({"a.json", "file:///tmp/x%20y/metrics.csv"});
        QCOMPARE(files, (QStringList{"a.json", "/tmp/x y/metrics.csv"}));
    }

    void commandLineOpensEachKind() {
        MainWindow w;
        const int runsBefore = w.runLibrary()->size();
        const QStringList failed = w.files()->openFiles(filesToOpen(
            {experiment_, metrics_, QUrl::fromLocalFile(outFolder_).toString(), weights_}));
        QVERIFY2(failed.isEmpty(), qPrintable(failed.join('\n')));
        QCOMPARE(w.form()->config().epochs, 7);
        QCOMPARE(w.runLibrary()->size(), runsBefore + 2);
        QCOMPARE(QString::fromStdString(w.form()->config().init), weights_);
        // An experiment sets every field, `init` too (this one: none).
        QVERIFY(w.files()->openFile(experiment_, true));
        QVERIFY(w.form()->config().init.empty());
    }

    // A file holding a sweep opens its experiment, and the window says that
    // it leaves the sweep out and what makes its runs (never silently).
    void experimentWithASweepSaysWhatItLeavesOut() {
        const QString file = path("sweep.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"epochs": 3, "sweep": {"workers": [1, 2], "lr": [0.1, 0.2]}})");
        f.close();
        MainWindow w;
        QVERIFY(w.files()->openFile(file, true));
        QCOMPARE(w.form()->config().epochs, 3);
        QVERIFY(w.form()->config().sweep.empty());
        const QString log = w.eventLogText();
        QVERIFY2(log.contains("also holds a sweep over lr, workers") &&
                     log.contains("hogwild-lab --headless --config " + file),
                 qPrintable(log));
    }

    // Workers the file's mode does not take are refused as the command
    // line refuses them: the form would show the mode's one worker.
    void experimentWithWorkersItsModeFixesIsRefused() {
        const QString file = path("serial4.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"mode": "serial", "workers": 4, "epochs": 7})");
        f.close();
        MainWindow w;
        const int epochs = w.form()->config().epochs;
        QString why;
        QVERIFY(!w.files()->openFile(file, true, &why));
        QVERIFY2(why.contains("workers: serial mode runs exactly 1 worker (got 4)"),
                 qPrintable(why));
        QCOMPARE(w.form()->config().epochs, epochs); // nothing of it applied
        QVERIFY(w.eventLogText().contains("Cannot open"));
    }

    void experimentsOpenBeforeTheWeightsGivenWithThem() {
        MainWindow w;
        const QStringList failed = w.files()->openFiles({weights_, experiment_});
        QVERIFY2(failed.isEmpty(), qPrintable(failed.join('\n')));
        QCOMPARE(w.form()->config().epochs, 7);
        QCOMPARE(QString::fromStdString(w.form()->config().init), weights_);
        // File > Forget initial weights: a seeded start again.
        QAction* forget = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QLatin1String("&Forget initial weights"))
                forget = a;
        QVERIFY(forget);
        QVERIFY(forget->isEnabled());
        forget->trigger();
        QVERIFY(w.form()->config().init.empty());
        QVERIFY(!forget->isEnabled());
    }

    void commandLineRefusesWhatItCannotOpen() {
        MainWindow w;
        const ExperimentConfig before = w.form()->config();
        const QStringList bad{unknown_, brokenJson_, brokenWeights_, missing_};
        const QStringList failed = w.files()->openFiles(bad);
        QCOMPARE(failed.size(), bad.size());
        const auto saidOf = [&failed](const QString& file) {
            for (const QString& why : failed)
                if (why.contains(file))
                    return why;
            return QString();
        };
        for (const QString& file : bad) {
            QVERIFY2(!saidOf(file).isEmpty(),
                     qPrintable(file + " not named in:\n" + failed.join('\n')));
            QVERIFY2(w.eventLogText().contains(file), qPrintable(w.eventLogText()));
        }
        QVERIFY2(saidOf(unknown_).contains("the window opens experiments (.json), runs "
                                           "(metrics.csv or a --out folder) and initial weights "
                                           "(.safetensors)"),
                 qPrintable(saidOf(unknown_)));
        QVERIFY2(saidOf(missing_).contains("no such file"), qPrintable(saidOf(missing_)));
        QCOMPARE(w.form()->config().toJson(), before.toJson()); // nothing half-applied
    }

    void dropOpensEachKind() {
        MainWindow w;
        const int runsBefore = w.runLibrary()->size();
        const auto [entered, dropped] =
            dropFiles(&w, urlsOf({experiment_, metrics_, outFolder_, weights_}));
        QVERIFY(entered);
        QVERIFY(dropped);
        QTRY_COMPARE_WITH_TIMEOUT(w.runLibrary()->size(), runsBefore + 2, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(w.form()->config().init), weights_,
                                  kWaitMs);
        QCOMPARE(w.form()->config().epochs, 7);
    }

    void dropOnAChartReachesTheWindow() {
        // The chart's view would take (and drop) a drag of its own.
        MainWindow w;
        const int runsBefore = w.runLibrary()->size();
        const auto [entered, dropped] = dropFiles(w.lossChart(), urlsOf({metrics_}));
        QVERIFY(entered);
        QVERIFY(dropped);
        QTRY_COMPARE_WITH_TIMEOUT(w.runLibrary()->size(), runsBefore + 1, kWaitMs);
    }

    void dropOfUnknownAndMissingSaysSo() {
        MainWindow w;
        const ExperimentConfig before = w.form()->config();
        const auto [entered, dropped] = dropFiles(&w, urlsOf({unknown_, missing_}));
        QVERIFY(entered);
        QVERIFY(dropped);
        QTRY_VERIFY_WITH_TIMEOUT(w.eventLogText().contains("gone.json"), kWaitMs);
        QVERIFY2(w.eventLogText().contains("Cannot open " + unknown_ + ": the window opens"),
                 qPrintable(w.eventLogText()));
        QVERIFY2(w.eventLogText().contains("Cannot open " + missing_ + ": there is no such"),
                 qPrintable(w.eventLogText()));
        QCOMPARE(w.form()->config().toJson(), before.toJson());
    }

    void dropDuringARunOpensOnlyRuns() {
        // The form is the run's while it goes: an experiment or weights
        // dropped then are refused, naming the file; a run still opens.
        MainWindow w;
        ExperimentConfig long_;
        long_.model = "mlp:20-16-4";
        long_.dataset = "teacher:20000x20:4:16";
        long_.mode = "threads";
        long_.workers = 2;
        long_.epochs = 1000;
        w.form()->setConfig(long_);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(w.controller()->busy(), kWaitMs);
        const int runsBefore = w.runLibrary()->size();
        QVERIFY(dropFiles(&w, urlsOf({experiment_, weights_, metrics_})).second);
        QTRY_COMPARE_WITH_TIMEOUT(w.runLibrary()->size(), runsBefore + 1, kWaitMs);
        QVERIFY2(w.eventLogText().contains("stop it first, then open " + experiment_ + " again"),
                 qPrintable(w.eventLogText()));
        QVERIFY2(w.eventLogText().contains("stop it first, then open " + weights_ + " again"),
                 qPrintable(w.eventLogText()));
        QCOMPARE(w.form()->config().epochs, 1000);
        QVERIFY(w.form()->config().init.empty());
        w.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), kWaitMs);
    }

    void dropOfAWebLinkIsNotTaken() {
        MainWindow w;
        const auto [entered, dropped] = dropFiles(&w, {QUrl("https://example.org/a.json")});
        QVERIFY(!entered);
        QVERIFY(!dropped);
    }

    void openRecentListsReopensClearsAndSurvivesARestart() {
        QStringList expected;
        {
            MainWindow w;
            QVERIFY(w.files()->openFile(experiment_, true));
            QVERIFY(w.files()->openFile(outFolder_, true));
            QVERIFY(w.files()->openFile(weights_, true));
            expected = QStringList{weights_, outFolder_, experiment_};
            QCOMPARE(w.recent()->files().mid(0, 3), expected);
            const QList<QAction*> entries = recentEntries(w);
            QVERIFY(entries.size() >= 3);
            QCOMPARE(entries[0]->text(), weights_);
            QVERIFY(entries[0]->isEnabled());
            // Reopening from the menu: the experiment fills the form again.
            ExperimentConfig edited = w.form()->config();
            edited.epochs = 2;
            w.form()->setConfig(edited);
            QCOMPARE(w.form()->config().epochs, 2);
            entries[2]->trigger();
            QCOMPARE(w.form()->config().epochs, 7);
            QCOMPARE(w.recent()->files().first(), experiment_); // now the newest
            QVERIFY(w.recent()->files().size() <= RecentFiles::kMaxFiles);
        }
        {
            MainWindow restarted; // the list comes back from QSettings
            QCOMPARE(restarted.recent()->files().mid(0, 3),
                     (QStringList{experiment_, weights_, outFolder_}));
            QCOMPARE(recentEntries(restarted).first()->text(), experiment_);
            // A file gone since shows as missing, disabled, at the next opening.
            const QString moved = path("moved.json");
            QVERIFY(QFile::copy(experiment_, moved));
            QVERIFY(restarted.files()->openFile(moved, true));
            QVERIFY(QFile::remove(moved));
            emit restarted.recent()->menu()->aboutToShow();
            const QAction* gone = recentEntries(restarted).first();
            QCOMPARE(gone->text(), moved + " (missing)");
            QVERIFY(!gone->isEnabled());
            // Clear empties the list, and the menu has nothing to offer.
            QAction* clear = restarted.recent()->menu()->actions().last();
            QCOMPARE(clear->text().remove('&'), QStringLiteral("Clear the list"));
            clear->trigger();
            QVERIFY(restarted.recent()->files().isEmpty());
            QVERIFY(recentEntries(restarted).isEmpty());
            QVERIFY(!restarted.recent()->menu()->isEnabled());
        }
        MainWindow again;
        QVERIFY(again.recent()->files().isEmpty());
    }

    // File > Continue a run: a --out folder with the optimizer's state fills
    // the form with its experiment, resume set and twice its epochs; the
    // run that follows trains on from there; Forget undoes it; a folder
    // without the state is refused by name.
    void aRunFolderIsContinued() {
        hwl::ExperimentConfig c;
        c.model = "mlp:20-16-4";
        c.dataset = "teacher:1000x20:4:16";
        c.mode = "serial";
        c.workers = 1;
        c.epochs = 2;
        c.momentum = 0.9;
        const auto first = hwl::test::runToEnd(c);
        const QString dir = path("continued");
        QVERIFY(QDir().mkpath(dir));
        first->writeWeights((dir + "/weights.safetensors").toStdString());
        first->writeOptimizerState((dir + "/optimizer.safetensors").toStdString());
        QFile experiment(dir + "/experiment.json");
        QVERIFY(experiment.open(QIODevice::WriteOnly));
        experiment.write(QByteArray::fromStdString(c.toJson()));
        experiment.close();
        MainWindow w;
        QString why;
        QVERIFY2(w.files()->continueRun(dir, true, &why), qPrintable(why));
        hwl::ExperimentConfig next = w.form()->config();
        QCOMPARE(QString::fromStdString(next.resume), QFileInfo(dir).absoluteFilePath());
        QCOMPARE(next.epochs, 4);
        QCOMPARE(QString::fromStdString(next.model), QStringLiteral("mlp:20-16-4"));
        QVERIFY(validateExperiment(next).empty());
        const auto rest = hwl::test::runToEnd(next);
        QCOMPARE(rest->summary().state, hwl::RunState::Finished);
        QCOMPARE(rest->summary().epochsCompleted, 4);
        QAction* forget = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QStringLiteral("Forget the run to continue"))
                forget = a;
        QVERIFY(forget && forget->isEnabled());
        forget->trigger();
        QVERIFY(w.form()->config().resume.empty());
        QVERIFY(!forget->isEnabled());
        QVERIFY(QFile::remove(dir + "/optimizer.safetensors"));
        QVERIFY(!w.files()->continueRun(dir, true, &why));
        QVERIFY2(why.contains("holds no optimizer.safetensors"), qPrintable(why));
    }

    // File dialogs start in the folder the last one chose (kept across a
    // restart), not in the folder the program started in.
    // A folder of runs (a sweep's --out, issue 49) opens as --compare reads
    // it: every run into the Runs table, unticked, folded by repeats, named
    // by its folder below; a run not whole by its manifest is left out and named;
    // a folder of no run says so; the note of a refusal and the run's state
    // are one text in the status bar, never two drawn over each other.
    void aFolderOfRunsOpensEveryRun() {
        const QString sweep = path("sweep-of-runs");
        RUN_CLI(made, QStringList(hwl::test::kSmall) << "--headless"
                                                     << "--quiet"
                                                     << "--sweep"
                                                     << "lr=0.05,0.1"
                                                     << "--repeat"
                                                     << "3"
                                                     << "--out" << sweep);
        QCOMPARE(made.code, 0);
        const QString broken = sweep + "/lr=0.1,seed=44";
        QVERIFY(QFile::remove(broken + "/metrics.csv"));
        MainWindow w;
        const int before = w.runLibrary()->size();
        QString why;
        QVERIFY2(w.files()->openFile(sweep, true, &why), qPrintable(why));
        QCOMPARE(w.runLibrary()->size(), before + 5);
        QStringList names;
        for (int i = before; i < w.runLibrary()->size(); ++i) {
            const SavedRun& r = w.runLibrary()->runs()[i];
            names << r.name;
            QVERIFY(!r.visible && !r.userTicked);
            QVERIFY(!r.result.isEmpty() && std::isfinite(r.samplesPerSecond));
        }
        QCOMPARE(names, (QStringList{"lr=0.05,seed=42", "lr=0.05,seed=43", "lr=0.05,seed=44",
                                     "lr=0.1,seed=42", "lr=0.1,seed=43"}));
        RunListPanel* panel = w.findChild<RunListPanel*>();
        QVERIFY(panel && panel->foldRepeats()->isChecked());
        QCOMPARE(panel->table()->model()->rowCount(), before + 2); // two experiments
        QVERIFY2(w.eventLogText().contains("Opened 5 runs from"), qPrintable(w.eventLogText()));
        QVERIFY2(w.eventLogText().contains("Left out: ") &&
                     w.eventLogText().contains("lr=0.1,seed=44: not a whole run: metrics.csv "
                                               "is missing"),
                 qPrintable(w.eventLogText()));
        QCOMPARE(w.recent()->files().value(0), sweep);
        // A folder of no run.
        const QString empty = path("no-runs");
        QVERIFY(QDir().mkpath(empty + "/inner"));
        QVERIFY(!w.files()->openFile(empty, true, &why));
        QVERIFY2(why.contains("holds no run") && why.contains("no-runs"), qPrintable(why));
        // The refusal's note is shown in the status bar's one text, in place
        // of the state, which comes back when the note ends.
        QVERIFY2(w.statusNote().contains("holds no run"), qPrintable(w.statusNote()));
        QCOMPARE(w.statusText(), w.statusNote());
        QVERIFY(w.statusBar()->currentMessage().isEmpty()); // nothing drawn over it
    }

    void dialogsStartInTheLastFolderUsed() {
        const QString chosen = path("dialogs");
        QVERIFY(QDir().mkpath(chosen));
        filedialogs::remember(chosen + "/experiment.json"); // a file: its folder
        QCOMPARE(filedialogs::lastFolder(), chosen);
        MainWindow w;
        QAction* save = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "&Save experiment…")
                save = a;
        QVERIFY(save);
        QString started;
        QTimer poll;
        connect(&poll, &QTimer::timeout, &w, [&] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                started = dialog->directory().absolutePath();
                dialog->reject();
            }
        });
        poll.start(10);
        save->trigger();
        QCOMPARE(started, chosen);
        QCOMPARE(filedialogs::lastFolder(), chosen); // cancelled: nothing else remembered
        filedialogs::remember(tmp_.path());          // a folder: itself
        QCOMPARE(filedialogs::lastFolder(), QDir(tmp_.path()).absolutePath());
    }

    // An experiment's out folder (from a file): the run writes its files
    // there when it ends, as a headless run; started again, the window asks
    // before replacing them: Cancel starts nothing, "Don't write files"
    // runs without touching them, Replace replaces them.
    void outFolderIsWrittenAndAskedBeforeReplacing() {
        QTemporaryDir dir;
        const QString out = dir.filePath("run");
        MainWindow w;
        w.paceBox()->setValue(0); // full speed
        ExperimentConfig c;
        c.model = "mlp:20-32-4";
        c.dataset = "teacher:2000x20:4:16";
        c.workers = 2;
        c.epochs = 2;
        c.momentum = 0;
        c.out = out.toStdString();
        w.form()->setConfig(c);
        QCOMPARE(w.form()->config().out, c.out); // kept from the file, as the form keeps it
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        QVERIFY2(w.eventLogText().contains("Out: wrote " + out + "/{weights.safetensors"),
                 qPrintable(w.eventLogText()));
        QCOMPARE(test::dirEntries(out), test::kOutputFiles);
        const QByteArray weights = test::readBytes((out + "/weights.safetensors").toStdString());
        QString asked;
        const auto answer = [&](const QString& button) {
            asked.clear();
            auto* poll = new QTimer(&w);
            connect(poll, &QTimer::timeout, &w, [&asked, button, poll] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box)
                    return;
                asked = box->text();
                for (QAbstractButton* b : box->buttons())
                    if (b->text() == button)
                        b->click();
                poll->deleteLater();
            });
            poll->start(10);
            w.startRun(); // the box is modal: answered before startRun returns
        };
        c.seed = 7; // another run of the same experiment
        w.form()->setConfig(c);
        answer("Cancel");
        QVERIFY2(asked.contains("already holds a run (weights.safetensors"), qPrintable(asked));
        QVERIFY(!w.controller()->busy());
        QVERIFY(!w.eventLogText().contains("replacing the run there"));
        QCOMPARE(test::readBytes((out + "/weights.safetensors").toStdString()), weights);
        answer("&Don't write files");
        QVERIFY(!asked.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        QCOMPARE(test::readBytes((out + "/weights.safetensors").toStdString()), weights);
        answer("&Replace");
        QVERIFY(!asked.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy(), 30000);
        QVERIFY2(w.eventLogText().contains("replacing the run there"),
                 qPrintable(w.eventLogText()));
        QTRY_VERIFY_WITH_TIMEOUT(
            test::readBytes((out + "/weights.safetensors").toStdString()) != weights, 10000);
        QCOMPARE(test::dirEntries(out), test::kOutputFiles);
    }

    void recentKeepsTheLastTen() {
        MainWindow w;
        for (int i = 0; i < RecentFiles::kMaxFiles + 3; ++i) {
            const QString copy = path(QStringLiteral("e%1.json").arg(i));
            QFile::remove(copy);
            QVERIFY(QFile::copy(experiment_, copy));
            QVERIFY(w.files()->openFile(copy, true));
        }
        QCOMPARE(w.recent()->files().size(), RecentFiles::kMaxFiles);
        QCOMPARE(w.recent()->files().first(), path(QStringLiteral("e%1.json").arg(12)));
        QCOMPARE(recentEntries(w).size(), RecentFiles::kMaxFiles);
    }
};

HWL_GUI_TEST_MAIN(TestFileOpening)
#include "strategy/validation.h"
#include "tst_fileopening.moc"
