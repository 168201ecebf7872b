// The experiment form shows what the chosen mode takes: the rows of options
// a mode does not take are hidden (not only disabled), as the engine's
// strategy catalog says, and a thread Hogwild experiment fits a 1400x900
// window without scrolling.
#include "form/experimentform.h"
#include "guitestmain.h"
#include "launch/devices.h"
#include "run/workerrole.h"
#include "strategy/catalog.h"
#include "testutil.h"
#include "window/mainwindow.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTest>
#include <QToolButton>

using hwl::StrategySetting;
using hwl::StrategyTraits;
using hwl::ui::ExperimentForm;

namespace {

QComboBox* modeCombo(const ExperimentForm& form) {
    return qobject_cast<QComboBox*>(form.fieldWidget("mode"));
}

void chooseMode(ExperimentForm& form, const StrategyTraits& t) {
    QComboBox* mode = modeCombo(form);
    mode->setCurrentIndex(mode->findData(QString::fromStdString(t.name)));
    if (t.takes(StrategySetting::Share))
        qobject_cast<QCheckBox*>(form.fieldWidget("share"))->setChecked(t.share);
}

/// Whether a field's editor and its row label are shown.
bool shown(const ExperimentForm& form, const char* field) {
    QWidget* w = form.fieldWidget(field);
    if (!w)
        qFatal("no field %s", field);
    const bool visible = w->isVisibleTo(&form);
    // The label of the row goes with it (a row of a check box has none).
    if (auto* layout = qobject_cast<QFormLayout*>(w->parentWidget()->layout()))
        if (QWidget* label = layout->labelForField(w))
            if (label->isVisibleTo(&form) != visible)
                qFatal("the label of %s is not shown as its field", field);
    return visible;
}

/// Every shown note of the form is as tall as its text needs at its width,
/// every shown editor at least as tall as it asks, and no two overlap.
void checkHeights(const ExperimentForm& form) {
    for (QLabel* note : form.findChildren<QLabel*>()) {
        if (!note->property("hwlRole").isValid() || !note->isVisible())
            continue;
        // A note that does not wrap (the problem summary: one line, its
        // text cut to it) needs one line.
        const int needed = note->wordWrap() ? note->fontMetrics()
                                                  .boundingRect(QRect(0, 0, note->width(), 100000),
                                                                Qt::TextWordWrap, note->text())
                                                  .height()
                                            : note->fontMetrics().height();
        QVERIFY2(note->height() >= needed,
                 qPrintable(QStringLiteral("%1: %2 px for %3 px of \"%4\"")
                                .arg(note->objectName())
                                .arg(note->height())
                                .arg(needed)
                                .arg(note->text())));
    }
    QList<QWidget*> editors;
    // A spin box's or an editable combo's own edit is checked as that box.
    for (QWidget* e : form.findChildren<QLineEdit*>())
        if (!qobject_cast<QAbstractSpinBox*>(e->parentWidget()) &&
            !qobject_cast<QComboBox*>(e->parentWidget()))
            editors << e;
    for (QWidget* e : form.findChildren<QAbstractSpinBox*>())
        editors << e;
    for (QWidget* e : form.findChildren<QComboBox*>())
        editors << e;
    for (QWidget* e : editors)
        if (e->isVisible())
            QVERIFY2(e->height() >= e->sizeHint().height(),
                     qPrintable(QStringLiteral("%1: %2 px of %3")
                                    .arg(e->objectName())
                                    .arg(e->height())
                                    .arg(e->sizeHint().height())));
}

QToolButton* advancedToggle(const ExperimentForm& form) {
    return form.findChild<QToolButton*>("advancedToggle");
}

} // namespace

class TestFormRows : public QObject {
    Q_OBJECT

    hwl::test::IsolatedSettings tmp_; ///< settings and run list, apart from the user's

private slots:
    void threadHogwildHidesWhatItDoesNotTake() {
        ExperimentForm form;
        const StrategyTraits* threads = hwl::findStrategy("threads", true);
        QVERIFY(threads);
        chooseMode(form, *threads);
        for (const char* f : {"mode", "workers", "lost-updates", "lr", "batch", "epochs"})
            QVERIFY2(shown(form, f), f);
        for (const char* f : {"transport", "sync-every", "bucket-mb", "drop-last", "hostfile",
                              "mpirun-args", "reduce", "device", "replicas-per-gpu", "blocks",
                              "update", "cuda-before-fork", "force-unsafe-fork", "start-method",
                              "share", "spawn-before-share", "on-worker-failure"})
            QVERIFY2(!shown(form, f), f);
    }

    // Every mode of the catalog (the GPU modes too: listed even where they
    // are not built) shows exactly the rows of the settings it takes.
    void everyModeShowsWhatItTakes() {
        ExperimentForm form;
        if (!advancedToggle(form)->isChecked())
            advancedToggle(form)->click();
        for (const std::string& name : hwl::modeNames()) {
            const StrategyTraits* t = hwl::findStrategy(name, true);
            t = t ? t : hwl::findStrategy(name, false);
            QVERIFY(t);
            chooseMode(form, *t);
            // What each row follows is the field table's (tst_fieldrecipe
            // walks every field); here the rows the catalog's own words name.
            auto check = [&](const char* field, bool expected) {
                QVERIFY2(shown(form, field) == expected,
                         qPrintable(QString::fromStdString(name) + ": " + field));
            };
            check("transport", t->takes(StrategySetting::Transport));
            check("split", t->takes(StrategySetting::Split));
            check("workers", true);
        }
        // The device picks data-parallel's CUDA variant, which takes replicas per GPU.
        const StrategyTraits* dp = hwl::findStrategy("data-parallel", true);
        QVERIFY(dp && dp->takes(StrategySetting::Device));
        // A split chosen for Hogwild threads is not carried to a mode that
        // does not take it (the validator would refuse it there).
        chooseMode(form, *hwl::findStrategy("threads", true));
        auto* split = qobject_cast<QComboBox*>(form.fieldWidget("split"));
        split->setCurrentIndex(split->findData(int(hwl::DataSplit::Replicate)));
        QCOMPARE(form.config().split, hwl::DataSplit::Replicate);
        chooseMode(form, *dp);
        QCOMPARE(form.config().split, hwl::DataSplit::Shard);
        auto* device = qobject_cast<QComboBox*>(form.fieldWidget("device"));
        device->setCurrentIndex(device->findData(int(hwl::Device::Cuda)));
        QVERIFY(shown(form, "replicas-per-gpu"));
        device->setCurrentIndex(device->findData(int(hwl::Device::Cpu)));
        QVERIFY(!shown(form, "replicas-per-gpu"));
    }

    // Ticking Share parameters (forgot-to-share's lesson) inserts no row
    // above the box: Count lost updates, which sharing turns on, stays in
    // sight, greyed, while it is off; the box stays under the pointer.
    void tickingShareMovesNothing() {
        ExperimentForm form;
        form.resize(420, 900);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        hwl::ExperimentConfig c;
        c.mode = "processes";
        c.share = false;
        form.setConfig(c);
        QCoreApplication::processEvents();
        auto* share = qobject_cast<QCheckBox*>(form.fieldWidget("share"));
        QVERIFY(share && !share->isChecked());
        QVERIFY(shown(form, "lost-updates"));
        QVERIFY(!form.fieldWidget("lost-updates")->isEnabled());
        const int before = share->mapTo(&form, QPoint()).y();
        share->click();
        QCoreApplication::processEvents();
        QVERIFY(form.config().share);
        QVERIFY(form.fieldWidget("lost-updates")->isEnabled());
        QCOMPARE(share->mapTo(&form, QPoint()).y(), before);
    }

    // The hostfile and mpirun's arguments go with the mpi transport.
    void mpiRowsFollowTheTransport() {
        ExperimentForm form;
        const StrategyTraits* dp = hwl::findStrategy("data-parallel", true);
        QVERIFY(dp && dp->takes(StrategySetting::Transport));
        chooseMode(form, *dp);
        auto* transport = qobject_cast<QComboBox*>(form.fieldWidget("transport"));
        QVERIFY(shown(form, "transport") && shown(form, "sync-every"));
        transport->setCurrentIndex(transport->findData(int(hwl::Transport::Processes)));
        QVERIFY(!shown(form, "hostfile") && !shown(form, "mpirun-args") && !shown(form, "reduce"));
        QVERIFY(shown(form, "start-method"));
        transport->setCurrentIndex(transport->findData(int(hwl::Transport::Mpi)));
        QVERIFY(shown(form, "hostfile") && shown(form, "mpirun-args") && shown(form, "reduce"));
        // Back to threads Hogwild: all of them go.
        chooseMode(form, *hwl::findStrategy("threads", true));
        for (const char* f : {"transport", "hostfile", "mpirun-args", "reduce", "sync-every"})
            QVERIFY2(!shown(form, f), f);
        // A form that shows fewer rows is shorter.
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        const int threadsHeight = form.sizeHint().height();
        chooseMode(form, *dp);
        QCoreApplication::processEvents();
        QVERIFY2(form.sizeHint().height() > threadsHeight,
                 qPrintable(
                     QStringLiteral("%1 <= %2").arg(form.sizeHint().height()).arg(threadsHeight)));
    }

    // The pitfalls and the tuning are behind the Advanced toggle: closed in
    // a fresh window, one click opens them, and the choice is remembered.
    void advancedRowsAreOneClickAway() {
        QSettings().remove("form/advancedOpen");
        const hwl::StrategyTraits* processes = hwl::findStrategy("processes", true);
        QVERIFY(processes && processes->takes(StrategySetting::StartMethod));
        {
            ExperimentForm form;
            chooseMode(form, *processes);
            QToolButton* toggle = advancedToggle(form);
            QVERIFY(toggle && toggle->isVisibleTo(&form) && !toggle->isChecked());
            QCOMPARE(toggle->arrowType(), Qt::RightArrow);
            for (const char* f : {"spawn-before-share", "loader-workers", "cuda-before-fork"})
                QVERIFY2(!shown(form, f), f);
            QVERIFY(shown(form, "start-method") && shown(form, "share"));
            toggle->click();
            QCOMPARE(toggle->arrowType(), Qt::DownArrow);
            for (const char* f : {"spawn-before-share", "loader-workers", "cuda-before-fork"})
                QVERIFY2(shown(form, f), f);
            QVERIFY(QSettings().value("form/advancedOpen").toBool());
        }
        {
            ExperimentForm form; // opens as it was left
            chooseMode(form, *processes);
            QVERIFY(advancedToggle(form)->isChecked() && shown(form, "loader-workers"));
            advancedToggle(form)->click();
            QVERIFY(!shown(form, "loader-workers"));
            QVERIFY(!QSettings().value("form/advancedOpen").toBool());
        }
        // An experiment that sets an Advanced field (a pitfall preset) shows it.
        ExperimentForm form;
        QVERIFY(!shown(form, "loader-workers"));
        hwl::ExperimentConfig c;
        c.loaderWorkers = 4;
        form.setConfig(c);
        QVERIFY(shown(form, "loader-workers"));
        QCOMPARE(form.config().loaderWorkers, 4);
    }

    // Issue 26: the Momentum box was squashed when the learning rate's
    // error showed; the mode's error got 0 px when the note under the mode
    // list hid in the same pass (Qt's form layout loses a wrapped row's
    // height-for-width). Every shown note gets its height, every editor its
    // own, whichever notes come and go.
    void notesAndEditorsKeepTheirHeight() {
        hwl::ui::MainWindow w;
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        if (hwl::cudaBuilt()) // the window's own probe answers first
            QTRY_VERIFY_WITH_TIMEOUT(w.form()->gpuAvailabilityKnown(), 35000);
        ExperimentForm* form = w.form();
        form->setGpuAvailability(false, "cudaGetDeviceCount returned 100, no CUDA-capable "
                                        "device is detected");
        hwl::ExperimentConfig c;
        c.mode = "threads";
        c.model = "mlp:20-16-4";
        c.dataset = "teacher:1000x20:4:8";
        form->setConfig(c); // the note under the mode list shows
        QCoreApplication::processEvents();
        checkHeights(*form);
        c.mode = "gpu-hogwild"; // the note hides, the mode's error shows
        c.momentum = 0.9;
        c.lr = 0;
        c.workers = 0;
        form->setConfig(c);
        QCoreApplication::processEvents();
        QVERIFY(form->errorLabel("mode")->isVisible());
        checkHeights(*form);
        for (const char* lr : {"0", "0.01", "fast", "1000"}) {
            qobject_cast<QLineEdit*>(form->fieldWidget("lr"))->setText(lr);
            QCoreApplication::processEvents();
            checkHeights(*form);
        }
    }

    // On a 1400x900 window the thread Hogwild form needs no scrolling.
    void threadHogwildFitsTheWindow() {
        hwl::ui::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Whatever the GPU probe says (on a machine without a GPU: a note
        // under the mode list), the form still fits.
        if (hwl::cudaBuilt())
            QTRY_VERIFY_WITH_TIMEOUT(w.form()->gpuAvailabilityKnown(), 35000);
        hwl::ExperimentConfig c;
        c.mode = "threads";
        w.form()->setConfig(c);
        QCOMPARE(w.form()->config().mode, std::string("threads"));
        QScrollArea* scroll = nullptr;
        for (QWidget* p = w.form()->parentWidget(); p && !scroll; p = p->parentWidget())
            scroll = qobject_cast<QScrollArea*>(p);
        QVERIFY(scroll);
        QTRY_VERIFY(w.form()->height() > 0);
        QCoreApplication::processEvents();
        QVERIFY2(scroll->viewport()->height() >= w.form()->sizeHint().height(),
                 qPrintable(QStringLiteral("viewport %1, form %2")
                                .arg(scroll->viewport()->height())
                                .arg(w.form()->sizeHint().height())));
        QVERIFY(!scroll->verticalScrollBar()->isVisible());
        // Nor is it too wide: no field cut at the right (the learning rate's
        // row holds the rate, the rule and the optimizer state).
        QVERIFY2(scroll->viewport()->width() >= w.form()->minimumSizeHint().width(),
                 qPrintable(QStringLiteral("viewport %1 wide, form at least %2")
                                .arg(scroll->viewport()->width())
                                .arg(w.form()->minimumSizeHint().width())));
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        // The control: data-parallel over MPI with the Advanced rows open
        // shows about every row, and that does need the scroll bar.
        c.mode = "data-parallel";
        c.transport = hwl::Transport::Mpi;
        c.loaderWorkers = 2; // an Advanced field set: the Advanced rows open
        w.form()->setConfig(c);
        QTRY_VERIFY(scroll->verticalScrollBar()->isVisible());
    }
};

HWL_GUI_TEST_MAIN(TestFormRows)
#include "tst_formrows.moc"
