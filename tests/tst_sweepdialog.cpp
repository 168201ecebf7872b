// Run > Sweep… (offscreen): the dialog's rows judged as the user types (each
// value by its field's check, the grid as the command line judges it, each
// run with its mode's implicit worker count), the run count or the first
// problem under the rows, "Start sweep" enabled only for a valid grid, and
// the window making every run of an accepted sweep into the run library,
// with Run > TensorBoard logs… on: each run its event file in a folder of
// its own under the chosen one, the logdir's experiment beside them.
#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/sweepdialog.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/mainwindow.h"
#include "window/tensorboardlogs.h"

#include "config/fields.h"
#include "config/sweep.h"
#include "guitestmain.h"
#include "io/tensorboardlogdir.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <functional>
#include <stdexcept>

using namespace hwl;
using namespace hwl::ui;

namespace {

/// A run of a second or less: the tiny teacher task, one epoch.
ExperimentConfig tinyRun(int workers) {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:2000x20:4";
    c.mode = "threads";
    c.workers = workers;
    c.epochs = 1;
    c.lr = 0.05;
    c.momentum = 0;
    c.testFraction = 0.1;
    return c;
}

QStringList labelsOf(const std::vector<PresetRun>& runs) {
    QStringList labels;
    for (const PresetRun& r : runs)
        labels << QString::fromStdString(r.label);
    return labels;
}

/// What parseSweepFlag says of `text` (empty when it takes it).
QString engineMessage(const std::string& text) {
    try {
        parseSweepFlag(text);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Runs `work` on the SweepDialog `w` opens, once it is open (exec() blocks).
void onDialog(MainWindow* w, std::function<void(SweepDialog*)> work) {
    QTimer::singleShot(20, w, [w, work] {
        if (auto* dialog = w->findChild<SweepDialog*>(); dialog && dialog->isVisible())
            work(dialog);
        else
            onDialog(w, work);
    });
}

} // namespace

class TestSweepDialog : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void rowsOfFieldsPrefilledFromTheExperiment() {
        SweepDialog d(tinyRun(3));
        QCOMPARE(d.rowCount(), 1);
        auto* field = d.findChild<QComboBox*>("sweepField0");
        auto* values = d.findChild<QLineEdit*>("sweepValues0");
        QVERIFY(field && values);
        QCOMPARE(field->currentText(), QStringLiteral("workers"));
        QCOMPARE(values->text(), QStringLiteral("3"));
        QCOMPARE(d.summary(), QStringLiteral("1 run: workers=3"));
        QVERIFY(d.startButton()->isEnabled());
        QCOMPARE(d.startButton()->text(), QStringLiteral("Start sweep"));
        // Every field but the outputs (out, tensorboard,
        // onnx-normalized-inputs), each with the first line of its help as
        // tooltip.
        QCOMPARE(field->count(), int(experimentFields().size()) - 3);
        QCOMPARE(field->findText("out"), -1);
        QCOMPARE(field->findText("tensorboard"), -1);
        QCOMPARE(field->findText("onnx-normalized-inputs"), -1);
        const int lr = field->findText("lr");
        QVERIFY(lr >= 0);
        const QString help = QString::fromUtf8(findField("lr")->help);
        QCOMPARE(field->itemData(lr, Qt::ToolTipRole).toString(),
                 help.section('\n', 0, 0).trimmed());
        // Another field: its value in the experiment.
        field->setCurrentIndex(field->findText("mode"));
        QCOMPARE(values->text(), QStringLiteral("threads"));
        // Rows are added and removed, one always stays.
        QVERIFY(!d.findChild<QToolButton*>("sweepRemove0")->isEnabled());
        QTest::mouseClick(d.findChild<QPushButton*>("sweepAddRow"), Qt::LeftButton);
        QCOMPARE(d.rowCount(), 2);
        QVERIFY(d.findChild<QLineEdit*>("sweepValues1"));
        QVERIFY(d.findChild<QToolButton*>("sweepRemove0")->isEnabled());
        QTest::mouseClick(d.findChild<QToolButton*>("sweepRemove0"), Qt::LeftButton);
        QCOMPARE(d.rowCount(), 1);
        QVERIFY(!d.findChild<QLineEdit*>("sweepValues1"));
        QCOMPARE(d.findChild<QComboBox*>("sweepField0")->currentText(), QStringLiteral("workers"));
    }

    void twoAxesMakeTheirCrossProductInOrder() {
        SweepDialog d(tinyRun(3));
        d.setRows({{"workers", "1,2"}, {"mode", "threads, threads-locked"}});
        QCOMPARE(d.rowCount(), 2);
        QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
        QCOMPARE(labelsOf(d.runs()),
                 (QStringList{"workers=1,mode=threads", "workers=1,mode=threads-locked",
                              "workers=2,mode=threads", "workers=2,mode=threads-locked"}));
        QCOMPARE(d.runs()[3].config.workers, 2);
        QCOMPARE(d.runs()[3].config.mode, std::string("threads-locked"));
        QCOMPARE(d.runs()[3].config.model, std::string("mlp:20-16-4"));
        QVERIFY(d.runs()[3].config.sweep.empty());
        QCOMPARE(d.summary(),
                 QStringLiteral("4 runs: workers=1,mode=threads … workers=2,mode=threads-locked"));
        QVERIFY(d.findChild<QLabel*>("sweepSummary")->property("hwlRole").toString().isEmpty());
        QVERIFY(d.startButton()->isEnabled());
    }

    void aBadValueShowsTheFieldsMessage() {
        SweepDialog d(tinyRun(3));
        auto* values = d.findChild<QLineEdit*>("sweepValues0");
        QTest::keyClicks(values, ",two"); // "3,two", typed
        // The field's own judgement, in the dialog's words (no --sweep, no --help).
        QVERIFY(engineMessage("workers=3,two").startsWith("--sweep workers: expected an integer"));
        const QString expected = QStringLiteral("workers: expected an integer, got \"two\"");
        QCOMPARE(d.problem(), expected);
        QCOMPARE(d.summary(), expected);
        QVERIFY(d.runs().empty());
        QVERIFY(!d.startButton()->isEnabled());
        QVERIFY(values->property("hwlError").toBool());
        QCOMPARE(d.findChild<QLabel*>("sweepSummary")->property("hwlRole").toString(),
                 QStringLiteral("error"));
        // Mended: valid again, the mark gone.
        values->setText("3,4");
        QVERIFY(d.problem().isEmpty());
        QVERIFY(d.startButton()->isEnabled());
        QVERIFY(!values->property("hwlError").toBool());
        QCOMPARE(d.summary(), QStringLiteral("2 runs: workers=3 … workers=4"));
        // A field twice, or a value twice, is the grid's problem.
        d.setRows({{"workers", "1,2"}, {"workers", "4"}});
        QVERIFY2(d.problem().contains("\"workers\" is swept twice") &&
                     !d.problem().contains("--sweep"),
                 qPrintable(d.problem()));
        QVERIFY(!d.startButton()->isEnabled());
        d.setRows({{"workers", "2,2"}});
        QVERIFY2(d.problem().contains("lists 2 twice"), qPrintable(d.problem()));
        QVERIFY(!d.startButton()->isEnabled());
    }

    void aSerialRunTakesOneWorkerUnlessWorkersAreSwept() {
        // Workers not swept: serial gets its one worker, as on the command line.
        SweepDialog d(tinyRun(4));
        d.setRows({{"mode", "threads,serial"}});
        QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
        QCOMPARE(d.runs().size(), std::size_t(2));
        QCOMPARE(d.runs()[0].config.workers, 4);
        QCOMPARE(d.runs()[1].config.workers, 1);
        QVERIFY(d.startButton()->isEnabled());
        // Swept, the 4 workers stay, and serial refuses them.
        d.setRows({{"workers", "4"}, {"mode", "threads,serial"}});
        QVERIFY2(d.problem().startsWith("sweep: 1 of its 2 runs is invalid:"),
                 qPrintable(d.problem()));
        QVERIFY2(d.problem().contains("run workers=4,mode=serial:"), qPrintable(d.problem()));
        QVERIFY(d.summary().startsWith("sweep: 1 of its 2 runs is invalid:"));
        QVERIFY(!d.startButton()->isEnabled());
        QVERIFY(d.runs().empty());
    }

    // A form in data-parallel holds a transport; a sweep over mode takes
    // it only into the data-parallel runs (the others get the default, not
    // "transport applies to mode data-parallel with --device cpu only" for every run).
    void aHiddenFieldStaysWithItsMode() {
        ExperimentConfig c = tinyRun(2);
        c.mode = "data-parallel";
        c.transport = hwl::Transport::Processes;
        SweepDialog d(c);
        d.setRows({{"mode", "threads,threads-locked,data-parallel"}});
        QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
        QCOMPARE(d.runs().size(), std::size_t(3));
        QCOMPARE(d.runs()[0].config.transport, ExperimentConfig().transport);
        QCOMPARE(d.runs()[2].config.transport, hwl::Transport::Processes);
        // Swept itself, a field is the user's: an inapplicable value refused.
        d.setRows({{"mode", "threads"}, {"transport", "processes"}});
        // ("data-parallel with --device cpu" where the build has the CUDA variant)
        QVERIFY2(d.problem().contains("transport processes applies to mode data-parallel"),
                 qPrintable(d.problem()));
    }

    // The rows typed stay for the next opening, also after Cancel.
    void cancelledRowsComeBack() {
        MainWindow w;
        w.form()->setConfig(tinyRun(2));
        onDialog(&w, [](SweepDialog* d) {
            d->setRows({{"lr", "0.1,0.2"}, {"workers", "1,2"}});
            d->reject();
        });
        QVERIFY(!w.openSweep());
        QList<QPair<QString, QString>> seen;
        onDialog(&w, [&seen](SweepDialog* d) {
            seen = d->rowTexts();
            d->reject();
        });
        QVERIFY(!w.openSweep());
        QCOMPARE(seen, (QList<QPair<QString, QString>>{{"lr", "0.1,0.2"}, {"workers", "1,2"}}));
    }

    void moreThanAThousandRunsRefused() {
        SweepDialog d(tinyRun(2));
        QStringList seeds;
        for (int s = 1; s <= 1000; ++s)
            seeds << QString::number(s);
        d.setRows({{"seed", seeds.join(',')}});
        QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
        QCOMPARE(d.runs().size(), std::size_t(1000));
        QCOMPARE(d.summary(), QStringLiteral("1000 runs: seed=1 … seed=1000"));
        d.setRows({{"seed", seeds.join(',')}, {"workers", "1,2"}});
        QVERIFY2(d.problem().startsWith("sweep: more than 1000 runs"), qPrintable(d.problem()));
        QVERIFY(!d.startButton()->isEnabled());
        QVERIFY(d.runs().empty());
    }

    void theWindowMakesEveryRunOfTheSweep() {
        MainWindow w;
        QVERIFY(w.sweepAction());
        QCOMPARE(w.sweepAction()->text(), QStringLiteral("S&weep…"));
        // An invalid form: refused in the event log, no dialog.
        ExperimentConfig bad = tinyRun(2);
        bad.lr = -1;
        w.form()->setConfig(bad);
        QVERIFY(!w.form()->isValid());
        QVERIFY(w.sweepAction()->isEnabled());
        QVERIFY(!w.openSweep());
        QVERIFY2(w.eventLogText().contains("Sweep: the experiment is not valid"),
                 qPrintable(w.eventLogText()));
        QVERIFY(!w.findChild<SweepDialog*>());

        w.form()->setConfig(tinyRun(2));
        QVERIFY2(w.form()->isValid(), qPrintable(hwl::test::problemText(*w.form())));
        const int before = w.runLibrary()->size();
        const QString events = tmp_.filePath("tb");
        w.tensorBoard()->setFolder(events);
        QVERIFY(w.tensorBoard()->action()->isChecked());
        std::vector<PresetRun> chosen;
        onDialog(&w, [&chosen](SweepDialog* d) {
            d->setRows({{"workers", "1,2"}, {"mode", "threads,threads-locked"}});
            chosen = d->runs();
            QTest::mouseClick(d->startButton(), Qt::LeftButton);
        });
        w.sweepAction()->trigger();
        QCOMPARE(chosen.size(), std::size_t(4));
        QVERIFY(w.controller()->busy());
        QVERIFY(!w.sweepAction()->isEnabled()); // no second sweep while one goes
        QCOMPARE(w.comparisonRun(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.comparisonRun() == -1, 60000);
        QVERIFY(w.sweepAction()->isEnabled());
        QCOMPARE(w.runLibrary()->size(), before + 4);
        const QList<SavedRun>& kept = w.runLibrary()->runs();
        for (int i = 0; i < 4; ++i) {
            const QString name = kept[before + i].name;
            // Named by the fields the sweep varies first ("#3 workers=1
            // mode=threads · ..."): what a legend short of room keeps.
            const QString label =
                QString::fromStdString(chosen[std::size_t(i)].label).replace(',', ' ');
            QVERIFY2(name.contains(QRegularExpression(
                         "^#[0-9]+ " + QRegularExpression::escape(label) + "( · |$)")),
                     qPrintable(name));
        }
        QVERIFY2(w.eventLogText().contains("Comparison: 4 runs, one after another"),
                 qPrintable(w.eventLogText()));
        // One folder per run, named by its start, mode and workers, one
        // event file in each; the logdir's experiment beside them.
        const QStringList folders = QDir(events).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(folders.size(), 4);
        for (const PresetRun& run : chosen) {
            const QString tail = QString("_%1-%2w")
                                     .arg(QString::fromStdString(run.config.mode))
                                     .arg(run.config.workers);
            const auto it = std::find_if(folders.begin(), folders.end(), [&](const QString& f) {
                return f.endsWith(tail) || f.contains(tail + "-");
            });
            QVERIFY2(it != folders.end(), qPrintable(folders.join(", ")));
            QCOMPARE(
                QDir(events + "/" + *it).entryList({"events.out.tfevents.*"}, QDir::Files).size(),
                1);
        }
        QVERIFY(QFile::exists(events + "/" + kTensorBoardExperimentFile));
        QCOMPARE(w.eventLogText().count("TensorBoard: wrote"), 4);
        w.tensorBoard()->setFolder({});
        QVERIFY(!w.tensorBoard()->action()->isChecked());

        // Cancelled: nothing starts.
        onDialog(&w, [](SweepDialog* d) { d->reject(); });
        QVERIFY(!w.openSweep());
        QVERIFY(!w.controller()->busy());
        QCOMPARE(w.runLibrary()->size(), before + 4);
    }
};

HWL_GUI_TEST_MAIN(TestSweepDialog)
#include "tst_sweepdialog.moc"
