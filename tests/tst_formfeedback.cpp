// What the experiment form says and refuses before Start (issue 26): the
// GPU modes once the background probe found no device, the first problem
// at the top of the form and as Start's reason, messages in the form's
// words, the wheel that no longer edits an unfocused field, an error under
// the field it is about, and spin boxes that keep their arrows in red.
#include "form/experimentform.h"
#include "form/formwords.h"
#include "guitestmain.h"
#include "preset/presets.h"
#include "uitestutil.h"
#include "widgets/fieldnote.h"
#include "widgets/headcombobox.h"

#include "launch/devices.h"
#include "run/workerrole.h"
#include "strategy/catalog.h"

#include <QAbstractSpinBox>

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <QTextDocumentFragment>
#include <QWheelEvent>

#include <algorithm>

using hwl::ExperimentConfig;
using hwl::ui::ExperimentForm;
using hwl::ui::FormWords;

namespace {

/// `form` in a scroll area too short for it, shown: the window's dock.
void showScrolled(QScrollArea& area, ExperimentForm* form) {
    area.setWidget(form);
    area.setWidgetResizable(true);
    area.resize(380, 300);
    area.show();
}

/// How many pixels of an image are the form's error red.
int redPixels(const QImage& image) {
    int red = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            red += qRed(p) > 150 && qGreen(p) < 100 && qBlue(p) < 100;
        }
    return red;
}

/// How many dark pixels the up arrow of a spin box's image has (the right
/// 16 px of its upper half, inside the frame).
int arrowInk(const QImage& image) {
    int dark = 0;
    for (int y = 3; y < image.height() / 2; ++y)
        for (int x = image.width() - 14; x < image.width() - 3; ++x)
            dark += qGray(image.pixel(x, y)) < 110;
    return dark;
}

/// A GPU Hogwild experiment that is valid wherever the mode can run.
ExperimentConfig gpuHogwild() {
    ExperimentConfig c;
    c.mode = "gpu-hogwild";
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:1000x20:4:8";
    c.momentum = 0;
    c.workers = 4;
    return c;
}

int modeIndex(QComboBox* combo, const char* mode) {
    return combo->findData(QString::fromLatin1(mode));
}

} // namespace

class TestFormFeedback : public QObject {
    Q_OBJECT

private slots:
    // Issue 26: the arrows of a spin box vanished in the red (error)
    // state; they stay, drawn as in the normal state.
    void spinArrowsStayInTheErrorState() {
        ExperimentForm form;
        form.resize(360, 900);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        auto* workers = qobject_cast<QSpinBox*>(form.fieldWidget("workers"));
        workers->setValue(3);
        QCoreApplication::processEvents();
        const QImage normal = workers->grab().toImage();
        workers->setValue(0);
        QVERIFY(workers->property("hwlError").toBool());
        QCoreApplication::processEvents();
        const QImage error = workers->grab().toImage();
        QCOMPARE(error.size(), normal.size());
        QVERIFY(arrowInk(normal) > 0);
        QCOMPARE(arrowInk(error), arrowInk(normal));
        // ... and the red frame is there.
        QCOMPARE(redPixels(normal), 0);
        QVERIFY2(redPixels(error) > error.width(), qPrintable(QString::number(redPixels(error))));
    }

    // Issue 26: with no GPU, GPU Hogwild was offered and Start opened a
    // modal box ("cudaGetDeviceCount returned 35") after wiping the charts.
    // Once the probe finds no device the GPU modes are listed disabled with
    // one sentence, and a chosen one makes the form invalid with it.
    void gpuModesUnavailableWithoutADevice() {
        if (!hwl::cudaBuilt())
            QSKIP("built without CUDA: the catalog lists the GPU modes as not built");
        const QString reported = "no CUDA device: cudaGetDeviceCount returned 35, CUDA driver "
                                 "version is insufficient for CUDA runtime version";
        const QString sentence =
            "No GPU found on this machine (CUDA reported: cudaGetDeviceCount returned 35, CUDA "
            "driver version is insufficient for CUDA runtime version): GPU modes are unavailable";
        QCOMPARE(ExperimentForm::noGpuSentence(reported), sentence);
        ExperimentForm form;
        form.setConfig(gpuHogwild());
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form))); // unknown: selectable
        QVERIFY(!form.gpuAvailabilityKnown());
        QSignalSpy validity(&form, &ExperimentForm::validityChanged);
        form.setGpuAvailability(false, reported);
        QVERIFY(form.gpuAvailabilityKnown() && !form.gpuAvailable());
        // Invalid, said at the mode and first in the summary (Start's reason).
        QVERIFY(!form.isValid());
        QCOMPARE(validity.count(), 1);
        QCOMPARE(form.problems().value("mode"), sentence);
        QCOMPARE(form.problemSummary(), "Mode: " + sentence);
        QVERIFY(form.problemSummaryLabel()->isVisibleTo(&form));
        QVERIFY(form.errorLabel("mode")->isVisibleTo(&form));
        // The list: every GPU-only mode disabled with the sentence.
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        auto* modes = qobject_cast<QStandardItemModel*>(mode->model());
        int gpuModes = 0;
        for (int i = 0; i < mode->count(); ++i) {
            const QString name = mode->itemData(i).toString();
            const auto variants = hwl::variantsOf(name.toStdString());
            const bool gpuOnly = std::all_of(variants.begin(), variants.end(),
                                             [](const auto* t) { return t->cuda; });
            QCOMPARE(bool(modes->item(i)->flags() & Qt::ItemIsEnabled), !gpuOnly);
            if (gpuOnly) {
                ++gpuModes;
                QCOMPARE(mode->itemData(i, Qt::ToolTipRole).toString(), sentence);
                QVERIFY(mode->itemText(i).endsWith("(no GPU found)"));
            }
        }
        QVERIFY(gpuModes >= 1);
        // The cuda device of data-parallel too.
        auto* device = qobject_cast<QComboBox*>(form.fieldWidget("device"));
        const int cuda = device->findData(int(hwl::Device::Cuda));
        auto* devices = qobject_cast<QStandardItemModel*>(device->model());
        QVERIFY(!(devices->item(cuda)->flags() & Qt::ItemIsEnabled));
        QCOMPARE(device->itemData(cuda, Qt::ToolTipRole).toString(), sentence);
        ExperimentConfig ddp = gpuHogwild();
        ddp.mode = "data-parallel";
        ddp.device = hwl::Device::Cuda;
        ddp.momentum = 0.9;
        form.setConfig(ddp);
        QCOMPARE(form.problems().value("device"), sentence);
        QVERIFY(!form.isValid());
        // Another mode: valid, and the sentence stays next to the list.
        ddp.device = hwl::Device::Cpu;
        form.setConfig(ddp);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QLabel* note = form.findChild<QLabel*>("gpuNote");
        QVERIFY(note && note->isVisibleTo(&form));
        QCOMPARE(note->text(), sentence);
        QVERIFY(form.problemSummaryLabel()->text().isEmpty());
        // A mode with no GPU choice: the list's own texts say it, no note.
        ddp.mode = "threads";
        form.setConfig(ddp);
        QVERIFY(!note->isVisibleTo(&form));
    }

    // A mode field narrower than its item shows the item's head ("GPU
    // data-parallel"), never a fragment ("... (no G"), and elides with "…"
    // only when the head does not fit either.
    void aNarrowModeFieldShowsItsItemsHead() {
        const QString item = "GPU data-parallel (no GPU found)";
        const QFontMetrics metrics(QApplication::font());
        const int whole = metrics.horizontalAdvance(item);
        const int head = metrics.horizontalAdvance("GPU data-parallel");
        QCOMPARE(hwl::ui::HeadComboBox::shownText(item, metrics, whole), item);
        QCOMPARE(hwl::ui::HeadComboBox::shownText(item, metrics, whole - 1),
                 QString("GPU data-parallel"));
        QCOMPARE(hwl::ui::HeadComboBox::shownText(item, metrics, head),
                 QString("GPU data-parallel"));
        const QString elided = hwl::ui::HeadComboBox::shownText(item, metrics, head / 2);
        QVERIFY2(elided.endsWith(QChar(0x2026)) && elided.startsWith("GPU"), qPrintable(elided));
        // The form's mode field is one, and what it shows of the current
        // item is the item or its head.
        ExperimentForm form;
        form.setConfig(gpuHogwild());
        form.setGpuAvailability(false, "no CUDA device");
        form.resize(420, 800);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        auto* mode = dynamic_cast<hwl::ui::HeadComboBox*>(form.fieldWidget("mode"));
        QVERIFY(mode);
        const QString shown = mode->shownText();
        QVERIFY2(shown == mode->currentText() || mode->currentText().startsWith(shown) ||
                     shown.endsWith(QChar(0x2026)),
                 qPrintable(shown));
        QVERIFY2(!shown.contains("(") || shown == mode->currentText(), qPrintable(shown));
    }

    // A device found: the GPU modes stay as they are, and say which devices.
    void gpuModesAvailableWithADevice() {
        ExperimentForm form;
        form.setGpuAvailability(true, "Devices: cuda:0  NVIDIA H200  143771 MiB");
        QVERIFY(form.gpuAvailable());
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        auto* modes = qobject_cast<QStandardItemModel*>(mode->model());
        const int hogwild = modeIndex(mode, "gpu-hogwild");
        const bool built = hwl::cudaBuilt();
        QCOMPARE(bool(modes->item(hogwild)->flags() & Qt::ItemIsEnabled), built);
        form.setConfig(gpuHogwild());
        QCOMPARE(form.isValid(), built);
        QVERIFY(!form.findChild<QLabel*>("gpuNote")->isVisibleTo(&form));
        if (built) {
            QVERIFY(form.problemSummary().isEmpty());
            QVERIFY(form.findChild<QLabel*>("devicesNote")->text().contains("NVIDIA H200"));
        }
    }

    // The probe runs on a thread of its own: its answer comes through the
    // event loop, never while startGpuProbe() holds the GUI thread.
    void gpuProbeAnswersInTheBackground() {
        if (!hwl::cudaBuilt())
            QSKIP("built without CUDA: nothing to probe");
        ExperimentForm form;
        form.startGpuProbe();
        QVERIFY(!form.gpuAvailabilityKnown());
        QTRY_VERIFY_WITH_TIMEOUT(form.gpuAvailabilityKnown(), 35000);
        QCOMPARE(form.gpuAvailable(), !hwl::listDevices().devices.empty());
    }

    // Issue 26 item 5: the wheel over the form changed Blocks from 1,024 to
    // 1,018 and marked the preset modified. An unfocused spin or combo box
    // lets the wheel go on to the scroll area; a focused one takes it.
    void wheelDoesNotEditAnUnfocusedField() {
        QScrollArea area;
        auto* form = new ExperimentForm;
        showScrolled(area, form);
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        for (QWidget* w : form->findChildren<QAbstractSpinBox*>())
            QCOMPARE(w->focusPolicy(), Qt::StrongFocus);
        for (QWidget* w : form->findChildren<QComboBox*>())
            QCOMPARE(w->focusPolicy(), Qt::StrongFocus);
        auto* workers = qobject_cast<QSpinBox*>(form->fieldWidget("workers"));
        auto* mode = qobject_cast<QComboBox*>(form->fieldWidget("mode"));
        QSignalSpy changed(form, &ExperimentForm::changed);
        const int before = workers->value();
        const int modeBefore = mode->currentIndex();
        auto wheel = [](QWidget* w) {
            const QPointF at(w->width() / 2.0, w->height() / 2.0);
            QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &event);
            return event.isAccepted();
        };
        QVERIFY(!workers->hasFocus());
        QVERIFY(!wheel(workers)); // ignored: left to the scroll area
        QVERIFY(!wheel(mode));
        QCOMPARE(workers->value(), before);
        QCOMPARE(mode->currentIndex(), modeBefore);
        QCOMPARE(changed.count(), 0);
        // Clicked into: the wheel edits it, as it always did.
        area.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&area));
        workers->setFocus();
        QTRY_VERIFY(workers->hasFocus());
        wheel(workers);
        QCOMPARE(workers->value(), before - 1);
        QVERIFY(changed.count() >= 1);
    }

    // FormWords alone, with labels of its own: a key first, a switch's
    // value, flags anywhere (a flag of no label kept), a mode's name first.
    void formWordsMapKeysFlagsAndModes() {
        const FormWords words([](const QString& field) {
            return field == QLatin1String("lr")      ? QString("Step size")
                   : field == QLatin1String("share") ? QString("Sharing")
                                                     : field;
        });
        QCOMPARE(words.say("lr", "lr must be positive (--lr 0)"),
                 QString("Step size must be positive (Step size 0)"));
        QCOMPARE(words.say("share", "share true needs --no-share off"),
                 QString("Sharing ticked needs Sharing unticked off"));
        QCOMPARE(words.say("out", "see --out"), QString("See --out"));
        const std::string mode = hwl::allStrategies().front()->name;
        QString said = FormWords::modeLabel(mode) + " takes it";
        said[0] = said[0].toUpper();
        QCOMPARE(words.say("mode", QString::fromStdString(mode) + " takes it"), said);
        QVERIFY(FormWords::modeLabel("no such mode").isEmpty());
    }

    // Messages say what the form calls things, never the command line.
    void messagesUseTheFormsWords() {
        ExperimentForm form;
        QCOMPARE(form.fieldLabel("momentum"), QString("Momentum"));
        QCOMPARE(form.fieldLabel("lr"), QString("Learning rate"));
        QCOMPARE(form.fieldLabel("optimizer"), QString("Optimizer")); // beside the rate, named
        QCOMPARE(form.fieldLabel("nesterov"), QString("\"Nesterov\""));
        QCOMPARE(form.fieldLabel("hostfile"), QString("Hostfile"));
        QCOMPARE(form.fieldLabel("share"), QString("\"Share parameters\""));
        QCOMPARE(form.fieldLabel("model"), QString("Model"));
        QCOMPARE(form.inFormWords("momentum",
                                  "gpu-hogwild takes plain SGD (--momentum 0): each of thousands "
                                  "of blocks would need its own momentum buffer"),
                 QString("GPU Hogwild (CUDA blocks) takes plain SGD (Momentum 0): each of "
                         "thousands of blocks would need its own momentum buffer"));
        QCOMPARE(form.inFormWords("hostfile", "hostfile applies to --transport mpi only"),
                 QString("Hostfile applies to Transport mpi only"));
        QCOMPARE(form.inFormWords("share", "share false (--no-share) applies to mode processes"),
                 QString("\"Share parameters\" unticked (\"Share parameters\" unticked) applies "
                         "to mode processes"));
        QCOMPARE(form.inFormWords("workers", "use at most as many workers as --blocks"),
                 QString("Use at most as many workers as Blocks"));
        QCOMPARE(form.inFormWords("model", "the model's input width is 3"),
                 QString("The model's input width is 3"));
        // Flags of fields the form does not show stay as they are.
        QCOMPARE(form.inFormWords("out", "see --out"), QString("See --out"));
        // The engine's run messages (issue 49: "(--lr)" in the banner and
        // the events): a flag in brackets names the field to change; a
        // value quoted first keeps its case ("net:20:...", not "Net:20:...").
        QCOMPARE(form.inFormWords({}, "training diverged at step 3; lower the learning rate "
                                      "(--lr)"),
                 QString("Training diverged at step 3; lower the learning rate (the Learning "
                         "rate field)"));
        QCOMPARE(form.inFormWords({}, "optimizer steps: 40 (--optimizer-state per-worker: each "
                                      "worker's own)"),
                 QString("Optimizer steps: 40 (Optimizer state per-worker: each worker's own)"));
        QCOMPARE(form.inFormWords({}, "start-method: start-method fork refused: this process "
                                      "has already initialised CUDA"),
                 QString("Start method fork refused: this process has already initialised CUDA"));
        QCOMPARE(form.inFormWords({}, "fix: drop --spawn-before-share"),
                 QString("Fix: untick \"Spawn before share (pitfall)\""));
        QCOMPARE(form.inFormWords({}, "net:20:fc4 is not valid: the input shape is 20"),
                 QString("net:20:fc4 is not valid: the input shape is 20"));
        // Every message a preset-based form shows is free of flags.
        for (const auto& preset : hwl::presets()) {
            ExperimentConfig c = preset.config;
            c.momentum = 2;
            c.lr = 0;
            form.setConfig(c);
            for (const QString& message : form.problems())
                QVERIFY2(!message.contains("--"), qPrintable(message));
        }
    }

    // The first problem is said at the top of the form in the form's words,
    // also when its field is scrolls away (Start's tooltip in the window).
    void problemSummaryNamesTheField() {
        ExperimentForm form;
        ExperimentConfig c = gpuHogwild();
        c.mode = "threads";
        c.momentum = 1;
        form.setConfig(c);
        QCOMPARE(form.problemSummary(), QString("Momentum must be a number in [0, 1) (got 1)"));
        QLabel* top = form.problemSummaryLabel();
        QVERIFY(top->isVisibleTo(&form));
        QVERIFY(top->text().contains("Momentum must be a number in [0, 1) (got 1)"));
        c.lr = 0;
        form.setConfig(c);
        QCOMPARE(form.problemSummary(),
                 QString("Learning rate must be a number in (0, 100] (got 0) (and one more "
                         "field marked in red)"));
        c.workers = 0;
        form.setConfig(c);
        QVERIFY(form.problemSummary().startsWith("Workers must be in 1..256 (got 0) (and 2 more"));
        c.workers = 2;
        c.lr = 0.01;
        c.momentum = 0;
        form.setConfig(c);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QVERIFY(form.problemSummary().isEmpty());
        QVERIFY(top->text().isEmpty()); // its line kept, empty
    }

    // A problem that appears does not move the fields: the summary's line
    // is kept while the form is valid, and a long problem is cut to it
    // (whole in the tooltip). A click aimed at a field lands on it.
    void aProblemDoesNotMoveTheFields() {
        ExperimentForm form;
        form.resize(420, 900);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        ExperimentConfig c = form.config();
        c.lr = 0.01;
        form.setConfig(c);
        QVERIFY(form.isValid());
        QCoreApplication::processEvents();
        QWidget* batch = form.fieldWidget("batch");
        const int before = batch->mapTo(&form, QPoint()).y();
        QLabel* top = form.problemSummaryLabel();
        const int line = top->height();
        c.lr = 0; // invalid, below Batch
        form.setConfig(c);
        QCoreApplication::processEvents();
        QVERIFY(!form.isValid());
        QVERIFY(!top->text().isEmpty());
        QCOMPARE(top->height(), line);
        QCOMPARE(batch->mapTo(&form, QPoint()).y(), before);
        QCOMPARE(top->toolTip(), form.problemSummary());
        QVERIFY(top->fontMetrics().horizontalAdvance(
                    QTextDocumentFragment::fromHtml(top->text()).toPlainText()) <= top->width());
    }

    // The summary's Show link scrolls the form to the field that is wrong.
    void showLinkScrollsToTheField() {
        QScrollArea area;
        auto* form = new ExperimentForm;
        showScrolled(area, form);
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        ExperimentConfig c = gpuHogwild();
        c.mode = "threads";
        c.momentum = 1;
        form->setConfig(c);
        QCoreApplication::processEvents();
        QLabel* top = form->problemSummaryLabel();
        QVERIFY(top->text().contains("href=\"momentum\""));
        QWidget* momentum = form->fieldWidget("momentum");
        auto inView = [&] {
            const QPoint at = momentum->mapTo(area.viewport(), QPoint(0, 0));
            return at.y() >= 0 && at.y() + momentum->height() <= area.viewport()->height();
        };
        QVERIFY(!inView());
        emit top->linkActivated("momentum");
        QVERIFY(inView());
    }

    // Issue 26: the width mismatch sat under Activation and began in
    // lower case; it sits under the widths (or V, D, C) and begins with a
    // capital.
    void modelErrorSitsUnderItsField() {
        ExperimentConfig c = gpuHogwild();
        c.mode = "threads";
        c.model = "mlp:784-16-4";
        ExperimentForm form;
        form.resize(420, 1200);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        form.activateWindow();
        form.setConfig(c);
        auto* error = qobject_cast<hwl::ui::FieldNote*>(form.errorLabel("model"));
        QVERIFY(error);
        QVERIFY2(error->text().startsWith("The model's input width is 784"),
                 qPrintable(error->text()));
        // Hung under the widths, shown while a model field is in use (the
        // activation's too: the message is the model's).
        QWidget* widths = form.fieldWidget("model");
        QCOMPARE(error->anchor(), widths);
        form.findChild<QWidget*>("modelActivation")->setFocus();
        QTRY_VERIFY(error->isVisible());
        QCOMPARE(error->y(), widths->mapTo(&form, QPoint(0, widths->height() + 1)).y());
        form.fieldWidget("seed")->setFocus(); // elsewhere: the summary and frame say it
        QTRY_VERIFY(!error->isVisible());
        QVERIFY(form.problemSummary().contains("input width is 784"));
        c.model = "embedding-bag:50-8-2"; // C below the dataset's 4 classes; dense data
        c.dataset = "sparse-bow:1000x500:4:10";
        form.setConfig(c);
        QVERIFY(!error->text().isEmpty());
        QCOMPARE(error->anchor(), form.findChild<QWidget*>("modelClasses"));
    }
};

HWL_GUI_TEST_MAIN(TestFormFeedback)
#include "tst_formfeedback.moc"
