// The Runs tab as a table: the fields that vary between the kept runs and
// their final figures, sorted numerically, filtered on any cell, ticked to
// overlay as the list was; summary.json read into it and runs.json keeping
// it (an older runs.json still loads); and the scaling chart beside it, one
// line per value of a second field through the runs the table shows.
// Repeats (runs that differ only in their seed) fold into rows of mean ±
// sd, and the chart draws their spread as error bars.
// Curves made elsewhere open as baselines: TensorBoard's scalar export and
// a PyTorch script's CSV, each refused by line when malformed.
#include "charts/trainingchart.h"
#include "guitestmain.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/runstablemodel.h"
#include "runs/scalingchart.h"
#include "runsfixtures.h"
#include "testpaths.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include "io/runsummaryfile.h"

#include <QCategoryAxis>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

using namespace hwl;
using namespace hwl::test;
using namespace hwl::ui;

class TestRunsTable : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void theColumnsAreTheFieldsThatVaryThenTheFigures() {
        RunLibrary lib(tmp_.filePath("cols/runs.json"));
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        QAbstractItemModel* table = panel.table()->model();
        QCOMPARE(table->rowCount(), 6);
        const QStringList h = headers(table);
        QCOMPARE(h.first(), QStringLiteral("run"));
        QVERIFY2(h.contains("workers") && h.contains("mode"), qPrintable(h.join(',')));
        // Equal in every run: no column.
        for (const char* same : {"model", "dataset", "lr", "batch", "epochs", "out"})
            QVERIFY2(!h.contains(same), same);
        QCOMPARE(h.mid(3), (QStringList{"result", "samples/s", "test acc", "best acc", "test loss",
                                        "train s", "start-up ms", "comm share", "lost updates",
                                        "to target s", "samples to target"}));
        QCOMPARE(panel.model()->fieldKeys(), (QStringList{"mode", "workers"}));
        // The cells: the name with its colour and tick, the fields, the figures.
        QCOMPARE(table->index(1, 0).data().toString(), QStringLiteral("threads x4"));
        QVERIFY(table->index(1, 0).data(Qt::DecorationRole).isValid());
        QCOMPARE(table->index(1, 0).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        QVERIFY(table->index(1, 0).data(Qt::ToolTipRole).toString().contains("150,000 samples/s"));
        QCOMPARE(table->index(1, h.indexOf("workers")).data().toString(), QStringLiteral("4"));
        QCOMPARE(table->index(1, h.indexOf("mode")).data().toString(), QStringLiteral("threads"));
        QCOMPARE(table->index(1, h.indexOf("samples/s")).data().toString(),
                 QStringLiteral("150,000"));
        QCOMPARE(table->index(1, h.indexOf("test acc")).data().toString(),
                 QStringLiteral("60.00%"));
        QCOMPARE(table->index(1, h.indexOf("best acc")).data().toString(),
                 QStringLiteral("70.00%"));
        QCOMPARE(table->index(1, h.indexOf("test loss")).data().toString(), QStringLiteral("0.5"));
        QCOMPARE(table->index(1, h.indexOf("start-up ms")).data().toString(),
                 QStringLiteral("30.0"));
        // Unknown: empty.
        QCOMPARE(table->index(1, h.indexOf("comm share")).data().toString(), QString());
        QCOMPARE(table->index(1, h.indexOf("lost updates")).data().toString(), QString());
        // One run alone has nothing that varies.
        QCOMPARE(lib.clear(), QString());
        QCOMPARE(lib.add(sweepRuns().first()), QString());
        QTRY_COMPARE(table->rowCount(), 1);
        QCOMPARE(panel.model()->fieldKeys(), QStringList());
    }

    void sortingIsNumericAndUnknownsGoLast() {
        RunLibrary lib(tmp_.filePath("sort/runs.json"));
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        SavedRun unknown = run("threads", 8, 0); // no samples/s known
        unknown.name = "unknown";
        QCOMPARE(lib.add(unknown), QString());
        RunListPanel panel(&lib);
        QAbstractItemModel* table = panel.table()->model();
        const int rate = headers(table).indexOf("samples/s");
        // The kept order until a header is clicked.
        QCOMPARE(column(table, 0).first(), QStringLiteral("threads x1"));
        panel.table()->sortByColumn(rate, Qt::AscendingOrder);
        QCOMPARE(column(table, rate),
                 (QStringList{"8,000", "9,000", "12,000", "30,000", "100,000", "150,000", ""}));
        panel.table()->sortByColumn(rate, Qt::DescendingOrder);
        QCOMPARE(column(table, rate),
                 (QStringList{"150,000", "100,000", "30,000", "12,000", "9,000", "8,000", ""}));
        // Fields too: workers 1, 2, 4, 8 as numbers.
        panel.table()->sortByColumn(headers(table).indexOf("workers"), Qt::AscendingOrder);
        QCOMPARE(column(table, headers(table).indexOf("workers")),
                 (QStringList{"1", "1", "2", "2", "4", "4", "8"}));
    }

    // Issue 49: a long name pushed samples/s past the table's edge ("275,80").
    // The name column takes at most two fifths of the table; the name is
    // whole in its tooltip.
    void aLongNameLeavesTheFiguresInView() {
        RunLibrary lib(tmp_.filePath("long/runs.json"));
        SavedRun r = run("threads", 2, 275804);
        r.name = "#1 threads ×2 · Fashion-MNIST default with lr=0.1, dataset=teacher:4000x20:4, "
                 "epochs=3";
        QCOMPARE(lib.add(r), QString());
        QCOMPARE(lib.add(run("threads", 1, 221560)), QString());
        RunListPanel panel(&lib);
        panel.resize(900, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTableView* table = panel.table();
        QTRY_VERIFY(table->columnWidth(0) <= std::max(160, table->viewport()->width() * 2 / 5));
        const int rate = headers(table->model()).indexOf("samples/s");
        QVERIFY2(table->columnViewportPosition(rate) + table->columnWidth(rate) <=
                     table->viewport()->width(),
                 qPrintable(QStringLiteral("samples/s ends at %1 of %2")
                                .arg(table->columnViewportPosition(rate) + table->columnWidth(rate))
                                .arg(table->viewport()->width())));
        QVERIFY(table->model()->index(0, 0).data(Qt::ToolTipRole).toString().contains("epochs=3"));
    }

    void theFilterKeepsRowsWithACellHoldingIt() {
        RunLibrary lib(tmp_.filePath("filter/runs.json"));
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        QAbstractItemModel* table = panel.table()->model();
        panel.filter()->setText("LOCKED"); // any case
        QCOMPARE(table->rowCount(), 3);
        for (const QString& name : column(table, 0))
            QVERIFY2(name.startsWith("threads-locked"), qPrintable(name));
        panel.filter()->setText("150,000"); // a figure's text
        QCOMPARE(column(table, 0), QStringList{"threads x4"});
        panel.filter()->setText("no such run");
        QCOMPARE(table->rowCount(), 0);
        panel.filter()->clear();
        QCOMPARE(table->rowCount(), 6);
    }

    void tickingARowOverlaysItsRun() {
        // In a sorted table, the row ticked is the run overlaid.
        RunLibrary lib(tmp_.filePath("tick/runs.json"));
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        QSignalSpy ticked(&panel, &RunListPanel::runTicked);
        QAbstractItemModel* table = panel.table()->model();
        panel.table()->sortByColumn(headers(table).indexOf("samples/s"), Qt::DescendingOrder);
        QCOMPARE(table->index(0, 0).data().toString(), QStringLiteral("threads x4"));
        QVERIFY(table->setData(table->index(0, 0), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(lib.runs()[1].visible && lib.runs()[1].userTicked);
        QCOMPARE(ticked.count(), 1);
        QCOMPARE(ticked[0][0].toInt(), 1);
        QCOMPARE(table->index(0, 0).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
        QVERIFY(table->setData(table->index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(!lib.runs()[1].visible);
        QCOMPARE(ticked.count(), 1);
        // Renamed in place; an empty name is refused.
        QVERIFY(table->setData(table->index(0, 0), "fastest", Qt::EditRole));
        QCOMPARE(lib.runs()[1].name, QStringLiteral("fastest"));
        QVERIFY(!table->setData(table->index(0, 0), "  ", Qt::EditRole));
        QCOMPARE(lib.runs()[1].name, QStringLiteral("fastest"));
        // Deleting the selected rows deletes their runs.
        QPushButton* remove = nullptr;
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text() == "Delete")
                remove = b;
        QVERIFY(remove && !remove->isEnabled());
        panel.table()->selectRow(0);
        QVERIFY(remove->isEnabled());
        remove->click();
        QCOMPARE(lib.size(), 5);
        QVERIFY(std::none_of(lib.runs().begin(), lib.runs().end(),
                             [](const SavedRun& r) { return r.name == "fastest"; }));
        QTRY_COMPARE(table->rowCount(), 5);

        // In the window: ticked in the table, drawn on the charts.
        MainWindow w;
        QCOMPARE(w.runLibrary()->clear(), QString());
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(w.runLibrary()->add(r), QString());
        QAbstractItemModel* windowTable = w.runListPanel()->table()->model();
        QTRY_COMPARE(windowTable->rowCount(), 6);
        QCOMPARE(w.lossChart()->overlayCount(), 0);
        w.runListPanel()->filter()->setText("locked");
        QVERIFY(windowTable->setData(windowTable->index(2, 0), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(w.runLibrary()->runs()[5].visible);
        QCOMPARE(w.lossChart()->overlayCount(), 2); // its train and test loss
        QCOMPARE(w.accuracyChart()->overlayCount(), 1);
        QCOMPARE(w.runLibrary()->clear(), QString());
    }

    void foldedRowsGiveEachExperimentsMeanAndSpread() {
        RunLibrary lib(tmp_.filePath("fold/runs.json"));
        for (const SavedRun& r : repeatRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        QAbstractItemModel* table = panel.table()->model();
        // Unticked, the table is as ever: a row per run, the seed a column.
        QVERIFY(panel.foldRepeats()->isEnabled() && !panel.foldRepeats()->isChecked());
        QCOMPARE(table->rowCount(), 7);
        QCOMPARE(headers(table).mid(0, 6),
                 (QStringList{"run", "mode", "workers", "seed", "result", "samples/s"}));
        panel.foldRepeats()->setChecked(true);
        QCOMPARE(table->rowCount(), 4);
        const QStringList h = headers(table);
        QCOMPARE(h.mid(0, 6),
                 (QStringList{"run", "mode", "workers", "repeats", "result", "samples/s"}));
        QCOMPARE(column(table, 0),
                 (QStringList{"threads x1 seed=1", "threads x2 seed=*",
                              "threads-locked x2 and 1 more", "threads x4 seed=1"}));
        QCOMPARE(column(table, h.indexOf("repeats")), (QStringList{"1", "3", "2", "1"}));
        const int rate = h.indexOf("samples/s");
        QCOMPARE(column(table, rate),
                 (QStringList{"9,000", "50,000 ± 20,000", "14,000 ± 2,828", "150,000"}));
        QCOMPARE(table->index(1, rate).data(RunsTableModel::SortRole).toDouble(), 50000.0);
        QCOMPARE(table->index(1, h.indexOf("test acc")).data().toString(),
                 QStringLiteral("60.00% ± 0.00%"));
        // Known in two of the three: their mean ± sd, and the tooltip says so.
        const QModelIndex comm = table->index(1, h.indexOf("comm share"));
        QCOMPARE(comm.data().toString(), QStringLiteral("30.00% ± 14.14%"));
        QVERIFY2(comm.data(Qt::ToolTipRole).toString().contains("over the 2 that have it of 3"),
                 qPrintable(comm.data(Qt::ToolTipRole).toString()));
        // The tooltips say what the ± is.
        const QString tip = table->index(1, rate).data(Qt::ToolTipRole).toString();
        QCOMPARE(tip, QStringLiteral("samples/s: mean ± sample standard deviation (n − 1) over "
                                     "3 runs that differ only in their seed (seeds 1, 2, 3)"));
        QVERIFY(table->index(1, 0).data(Qt::ToolTipRole).toString().contains("threads x2 seed=3"));
        QVERIFY(table->index(0, 0).data(Qt::ToolTipRole).toString().contains("9,000 samples/s"));
        // Sorted by the mean; the sort follows its column's header when the
        // columns change, and the kept order comes back when it is gone.
        panel.table()->sortByColumn(rate, Qt::AscendingOrder);
        QCOMPARE(column(table, rate),
                 (QStringList{"9,000", "14,000 ± 2,828", "50,000 ± 20,000", "150,000"}));
        panel.table()->sortByColumn(h.indexOf("repeats"), Qt::DescendingOrder);
        QCOMPARE(column(table, h.indexOf("repeats")), (QStringList{"3", "2", "1", "1"}));
        panel.foldRepeats()->setChecked(false);
        QVERIFY(!headers(table).contains("repeats"));
        QCOMPARE(panel.table()->horizontalHeader()->sortIndicatorSection(), -1);
        QCOMPARE(column(table, 0).first(), QStringLiteral("threads x1 seed=1"));
        QCOMPARE(column(table, 0).last(), QStringLiteral("threads x4 seed=1"));
        panel.table()->sortByColumn(headers(table).indexOf("seed"), Qt::DescendingOrder);
        panel.table()->sortByColumn(rate, Qt::DescendingOrder);
        panel.foldRepeats()->setChecked(true);
        QCOMPARE(column(table, rate),
                 (QStringList{"150,000", "50,000 ± 20,000", "14,000 ± 2,828", "9,000"}));
        panel.foldRepeats()->setChecked(false);
        // Without repeats nothing folds, ticked or not.
        QCOMPARE(lib.clear(), QString());
        for (const SavedRun& r : sweepRuns())
            QCOMPARE(lib.add(r), QString());
        panel.foldRepeats()->setChecked(true);
        QTRY_COMPARE(table->rowCount(), 6);
        QVERIFY(!panel.foldRepeats()->isEnabled());
        QVERIFY(!panel.model()->folded());
        QVERIFY(!headers(table).contains("repeats"));
    }

    void tickingAFoldedRowOverlaysAllItsRuns() {
        RunLibrary lib(tmp_.filePath("fold-tick/runs.json"));
        for (const SavedRun& r : repeatRuns())
            QCOMPARE(lib.add(r), QString());
        RunListPanel panel(&lib);
        QSignalSpy ticked(&panel, &RunListPanel::runTicked);
        QAbstractItemModel* table = panel.table()->model();
        panel.foldRepeats()->setChecked(true);
        const QModelIndex threads2 = table->index(1, 0);
        QCOMPARE(threads2.data().toString(), QStringLiteral("threads x2 seed=*"));
        QVERIFY(!(threads2.flags() & Qt::ItemIsEditable)); // no one name to rename
        QVERIFY(!table->setData(threads2, "renamed", Qt::EditRole));
        QVERIFY(table->setData(threads2, Qt::Checked, Qt::CheckStateRole));
        for (const int i : {1, 2, 3})
            QVERIFY(lib.runs()[i].visible && lib.runs()[i].userTicked);
        QCOMPARE(ticked.count(), 3);
        QCOMPARE(ticked[2][0].toInt(), 3);
        QCOMPARE(table->index(1, 0).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
        // One of them unticked: the row is partly ticked; ticking it again
        // ticks that one.
        QCOMPARE(lib.setVisible(2, false), QString());
        QTRY_COMPARE(table->index(1, 0).data(Qt::CheckStateRole).toInt(),
                     int(Qt::PartiallyChecked));
        QVERIFY(table->setData(table->index(1, 0), Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(ticked.count(), 4);
        QCOMPARE(ticked[3][0].toInt(), 2);
        QVERIFY(table->setData(table->index(1, 0), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(std::none_of(lib.runs().begin(), lib.runs().end(),
                             [](const SavedRun& r) { return r.visible; }));
        // Delete takes a folded row's runs.
        QTRY_COMPARE(table->rowCount(), 4);
        panel.table()->selectRow(1);
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text() == "Delete")
                b->click();
        QCOMPARE(lib.size(), 4);
        QTRY_COMPARE(table->rowCount(), 3);

        // In the window: the folded row's three runs drawn on the charts.
        MainWindow w;
        QCOMPARE(w.runLibrary()->clear(), QString());
        for (const SavedRun& r : repeatRuns())
            QCOMPARE(w.runLibrary()->add(r), QString());
        QAbstractItemModel* windowTable = w.runListPanel()->table()->model();
        QTRY_COMPARE(windowTable->rowCount(), 7);
        w.runListPanel()->foldRepeats()->setChecked(true);
        QVERIFY(windowTable->setData(windowTable->index(1, 0), Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(w.lossChart()->overlayCount(), 6); // three train and three test losses
        QCOMPARE(w.accuracyChart()->overlayCount(), 3);
        QCOMPARE(w.runLibrary()->clear(), QString());
    }

    // Runs with a target: the time to it, "not reached" where it was not
    // (never a blank), a folded row's median and k of N; kept in runs.json.
    void targetsAreTimesOrNotReached() {
        const QString path = tmp_.filePath("target/runs.json");
        {
            RunLibrary lib(path);
            const double seconds[] = {1, 3, -1};
            for (int i = 0; i < 3; ++i) {
                SavedRun r = repeat("threads", 2, 30000, i + 1);
                r.target = seconds[i] > 0 ? "reached" : "not reached";
                r.targetSeconds = seconds[i];
                r.targetSamples = seconds[i] > 0 ? 1000 * seconds[i] : -1;
                QCOMPARE(lib.add(r), QString());
            }
        }
        RunLibrary lib(path);
        QCOMPARE(lib.load(), QString());
        QCOMPARE(lib.runs()[2].target, QStringLiteral("not reached"));
        QCOMPARE(lib.runs()[1].targetSamples, 3000.0);
        RunListPanel panel(&lib);
        QAbstractItemModel* table = panel.table()->model();
        const int at = headers(table).indexOf("to target s");
        QVERIFY(at > 0);
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            panel.table()->sortByColumn(at, order);
            QCOMPARE(column(table, at).last(), QStringLiteral("not reached")); // last either way
        }
        panel.foldRepeats()->setChecked(true);
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->index(0, headers(table).indexOf("to target s")).data().toString(),
                 QStringLiteral("median 2, 2 ± 1.414 (2 of 3 reached)"));
    }

    void runsJsonKeepsTheNewDataAndAnOldOneLoads() {
        const QString path = tmp_.filePath("persist/runs.json");
        {
            RunLibrary lib(path);
            SavedRun r = run("threads", 4, 150000);
            r.commShare = 0.25;
            r.lostUpdates = 1234;
            QCOMPARE(lib.add(r), QString());
        }
        RunLibrary again(path);
        QCOMPARE(again.load(), QString());
        const SavedRun& r = again.runs()[0];
        QCOMPARE(r.fields, RunLibrary::fieldsOf(config("threads", 4)));
        QCOMPARE(r.fields.value("workers"), QStringLiteral("4"));
        QVERIFY(!r.fields.contains("out"));
        QCOMPARE(r.finalTestLoss, 0.5);
        QCOMPARE(r.trainSeconds, 2.5);
        QCOMPARE(r.commShare, 0.25);
        QCOMPARE(r.lostUpdates, qint64(1234));
        QCOMPARE(r.bestTestAccuracy(), double(0.7f));
        QCOMPARE(r.startup(), 0.030);

        // Written before the table: every new figure unknown, its cells empty.
        const QString old = tmp_.filePath("persist-old/runs.json");
        QVERIFY(QDir().mkpath(QFileInfo(old).absolutePath()));
        hwl::test::writeBytes(old, "{\"version\": 1, \"runs\": [{\"name\": \"old\", \"color\": "
                                   "\"#1b9e77\", \"visible\": false, \"description\": \"mlp\", "
                                   "\"workers\": 2, \"samplesPerSecond\": 1000, "
                                   "\"testAccuracy\": 0.5, \"trainLoss\": [[1, 32, 0.1, 2.0]], "
                                   "\"testLoss\": [], \"accuracy\": []}]}");
        RunLibrary oldLib(old);
        QCOMPARE(oldLib.load(), QString());
        QCOMPARE(oldLib.size(), 1);
        const SavedRun& o = oldLib.runs()[0];
        QVERIFY(o.fields.isEmpty());
        QCOMPARE(o.finalTestLoss, -1.0);
        QCOMPARE(o.trainSeconds, -1.0);
        QCOMPARE(o.commShare, -1.0);
        QCOMPARE(o.lostUpdates, qint64(-1));
        QCOMPARE(o.bestTestAccuracy(), -1.0);
        RunListPanel panel(&oldLib);
        QAbstractItemModel* table = panel.table()->model();
        const QStringList h = headers(table);
        QCOMPARE(table->index(0, h.indexOf("samples/s")).data().toString(),
                 QStringLiteral("1,000"));
        QCOMPARE(table->index(0, h.indexOf("test acc")).data().toString(),
                 QStringLiteral("50.00%"));
        QCOMPARE(table->index(0, h.indexOf("train s")).data().toString(), QString());
        QCOMPARE(table->index(0, h.indexOf("best acc")).data().toString(), QString());
    }

    void anOutFolderBringsItsSummary() {
        // A folder as --out writes it: metrics.csv, experiment.json and the
        // summary.json core/io/runsummaryfile writes.
        const QString dir = tmp_.filePath("out-dp");
        QVERIFY(QDir().mkpath(dir));
        smallLog().writeCsv(QDir(dir).filePath("metrics.csv").toStdString());
        RunRecord record;
        record.config = config("data-parallel", 2);
        RunSummary& s = record.summary;
        s.state = RunState::Finished;
        s.trainSeconds = 4;
        s.samplesPerSecond = 4321;
        s.evaluated = true;
        s.testLoss = 0.25;
        s.testAccuracy = 0.8;
        s.commSeconds = {1, 3};
        s.bytesReduced = {10, 10};
        for (std::uint32_t rank = 0; rank < 2; ++rank) {
            WorkerSnapshot w;
            w.rank = rank;
            w.startupSeconds = 0.02 * (rank + 1);
            record.workers.push_back(w);
        }
        hwl::test::writeBytes(QDir(dir).filePath("summary.json"),
                              QByteArray::fromStdString(runSummaryJson(record)));
        hwl::test::writeBytes(QDir(dir).filePath("experiment.json"),
                              QByteArray::fromStdString(record.config.toJson()));
        QString why;
        SavedRun opened = RunLibrary::fromPath(dir, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(opened.fields.value("mode"), QStringLiteral("data-parallel"));
        QCOMPARE(opened.fields.value("workers"), QStringLiteral("2"));
        QCOMPARE(opened.samplesPerSecond, 4321.0);
        QCOMPARE(opened.testAccuracy, 0.8);
        QCOMPARE(opened.finalTestLoss, 0.25);
        QCOMPARE(opened.trainSeconds, 4.0);
        QCOMPARE(opened.commShare, 0.5); // 4 s of collectives in 2 x 4 s of loop
        QCOMPARE(opened.startup(), 0.04);
        QCOMPARE(opened.lostUpdates, qint64(-1));
        QCOMPARE(opened.result, QStringLiteral("finished"));
        // A run whose loss ran away, finite: its result says so, with why.
        s.startLoss = 0.02;
        s.epochsCompleted = 1;
        judgeLearning(s);
        hwl::test::writeBytes(QDir(dir).filePath("summary.json"),
                              QByteArray::fromStdString(runSummaryJson(record)));
        opened = RunLibrary::fromPath(dir, &why);
        QCOMPARE(opened.result, QStringLiteral("diverged"));
        QVERIFY2(opened.resultReason.contains("the test loss ended at 0.25, above the 0.02"),
                 qPrintable(opened.resultReason));
        {
            RunLibrary lib(tmp_.filePath("out-dp-lib/runs.json"));
            QCOMPARE(lib.add(opened), QString());
            RunsTableModel table(&lib);
            QCOMPARE(table.index(0, table.resultColumn()).data().toString(),
                     QStringLiteral("diverged"));
            QVERIFY(table.index(0, table.resultColumn())
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains("above the 0.02"));
            RunLibrary again(tmp_.filePath("out-dp-lib/runs.json")); // kept in runs.json
            QCOMPARE(again.load(), QString());
            QCOMPARE(again.runs().size(), qsizetype(1));
            QCOMPARE(again.runs().front().result, QStringLiteral("diverged"));
        }
        // Without experiment.json, summary.json's "experiment" says what ran.
        QVERIFY(QFile::remove(QDir(dir).filePath("experiment.json")));
        opened = RunLibrary::fromPath(dir, &why);
        QCOMPARE(opened.fields.value("mode"), QStringLiteral("data-parallel"));
        QCOMPARE(opened.model, QStringLiteral("mlp:20-16-4"));
        // A metrics.csv alone: its own last evaluation, nothing else.
        QVERIFY(QFile::remove(QDir(dir).filePath("summary.json")));
        opened = RunLibrary::fromPath(dir, &why);
        QVERIFY(opened.fields.isEmpty());
        QCOMPARE(opened.finalTestLoss, 0.5);
        QCOMPARE(opened.trainSeconds, -1.0);
    }

    void aRealOutFolderOpens() {
        if (!QFile::exists(QString::fromUtf8(hwl::test::kAppBinary)))
            QSKIP("hogwild-lab is not built");
        const QString dir = tmp_.filePath("out-real");
        QProcess p;
        p.start(QString::fromUtf8(hwl::test::kAppBinary),
                {"--headless", "--dataset", "teacher:2000x20:4", "--model", "mlp:20-16-4",
                 "--workers", "2", "--epochs", "3", "--target-accuracy", "40", "--out", dir});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QString why;
        const SavedRun opened = RunLibrary::fromPath(dir, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(opened.fields.value("workers"), QStringLiteral("2"));
        QCOMPARE(opened.fields.value("model"), QStringLiteral("mlp:20-16-4"));
        QVERIFY(opened.samplesPerSecond > 0);
        QVERIFY(opened.trainSeconds > 0);
        QVERIFY(opened.testAccuracy >= 0 && opened.finalTestLoss >= 0);
        QCOMPARE(opened.startupSeconds.size(), 2);
        QVERIFY(opened.startup() >= 0);
        // Its metrics.csv has a target row, read past; summary.json gives the figures.
        QVERIFY(hwl::test::readBytes((dir + "/metrics.csv").toStdString()).contains(",target,"));
        QCOMPARE(opened.target, QStringLiteral("reached"));
        QVERIFY(opened.targetSeconds > 0 && opened.targetSamples > 0);
    }

    void baselinesFromTensorBoardAndAScript() {
        QTemporaryDir dir;
        const auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
                return QString(); // fromPath() then says it does not exist
            return f.fileName();
        };
        QString why;
        // TensorBoard's export: the chart from the file name, time from the wall clock.
        SavedRun tb = RunLibrary::fromPath(
            write("run-torch-tag-test_accuracy.csv",
                  "Wall time,Step,Value\n1700000000.5,100,0.5\n1700000002.5,200,0.75\n"),
            &why);
        QVERIFY2(!tb.name.isEmpty(), qPrintable(why));
        QCOMPARE(tb.accuracy.size(), 2);
        QCOMPARE(tb.accuracy[1].step, 200.0);
        QCOMPARE(tb.accuracy[1].time, 2.0);
        QCOMPARE(tb.accuracy[1].value, 75.0); // a fraction becomes percent
        QCOMPARE(tb.testAccuracy, 0.75);
        QVERIFY(tb.trainLoss.isEmpty() && tb.model.isEmpty());
        QVERIFY2(tb.description.startsWith("baseline: TensorBoard scalars"),
                 qPrintable(tb.description));
        // A script's CSV: a column per curve, a sparse one, one not drawn.
        SavedRun script = RunLibrary::fromPath(write("mnist_hogwild.csv",
                                                     "epoch,step,loss,test_loss,accuracy,lr\n"
                                                     "1,10,2.0,,,0.01\n1,20,1.5,1.25,91.5,0.01\n"),
                                               &why);
        QVERIFY2(!script.name.isEmpty(), qPrintable(why));
        QCOMPARE(script.trainLoss.size(), 2);
        QCOMPARE(script.trainLoss[1].value, 1.5);
        QCOMPARE(script.testLoss.size(), 1);
        QCOMPARE(script.finalTestLoss, 1.25);
        QCOMPARE(script.accuracy[0].value, 91.5); // already percent
        QVERIFY2(script.description.contains("columns not drawn: epoch, lr"),
                 qPrintable(script.description));
        // A long export is thinned to the curve's points, its last kept.
        QByteArray many = "Wall time,Step,Value\n";
        for (int i = 0; i < 5000; ++i)
            many += QByteArray::number(1e9 + i) + "," + QByteArray::number(i) + ",1\n";
        const SavedRun thinned = RunLibrary::fromPath(write("loss.csv", many), &why);
        QCOMPARE(thinned.trainLoss.size(), RunLibrary::kCurvePoints);
        QCOMPARE(thinned.trainLoss.back().step, 4999.0);
        // Refused, by line and with what to do.
        QVERIFY(RunLibrary::fromPath(write("export.csv", "Wall time,Step,Value\n1,2,3\n"), &why)
                    .name.isEmpty());
        QVERIFY2(why.contains("does not say which chart"), qPrintable(why));
        QVERIFY(
            RunLibrary::fromPath(write("s.csv", "step,loss\n1,0.5\n2,nan\n"), &why).name.isEmpty());
        QVERIFY2(why.contains("s.csv, line 3: a value is not a number"), qPrintable(why));
        QVERIFY(RunLibrary::fromPath(write("e.csv", "epoch,loss\n1,0.5\n"), &why).name.isEmpty());
        QVERIFY2(why.contains("with a step column"), qPrintable(why));
    }
};

HWL_GUI_TEST_MAIN(TestRunsTable)
#include "tst_runstable.moc"
