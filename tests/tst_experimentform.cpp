// ExperimentForm and the presets: every field's validation is shown at the
// field, setConfig/config round trips, mode-dependent widgets, the GUI
// modes this build does not have, and every preset validates.
#include "form/experimentform.h"
#include "preset/presets.h"
#include "uitestutil.h"

#include "strategy/catalog.h"
#include "testutil.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>

#include <QTest>
#include <QThread>

using hwl::ExperimentConfig;
using namespace hwl::test; // writeBytes, writeIdx
using hwl::ui::ExperimentForm;

namespace {

QString json(const ExperimentConfig& c) {
    return QString::fromStdString(c.toJson());
}

QString issues(const ExperimentConfig& c) {
    QString text;
    for (const auto& issue : validateExperiment(c))
        text += QString::fromStdString(issue.field + ": " + issue.message + "\n");
    return text;
}

/// Sets a field's widget the way a user would (text, number, item, check).
void setWidget(QWidget* w, const QString& value) {
    if (auto* edit = qobject_cast<QLineEdit*>(w))
        edit->setText(value);
    else if (auto* spin = qobject_cast<QSpinBox*>(w))
        spin->setValue(value.toInt());
    else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w))
        dspin->setValue(value.toDouble());
    else if (auto* combo = qobject_cast<QComboBox*>(w)) {
        const int i = combo->findText(value);
        QVERIFY2(i >= 0, qPrintable("no item " + value));
        combo->setCurrentIndex(i);
    } else if (auto* check = qobject_cast<QCheckBox*>(w))
        check->setChecked(value == "true");
    else
        QFAIL("unsupported widget");
}

int modeIndex(QComboBox* combo, const char* mode) {
    return combo->findData(QString::fromLatin1(mode));
}

} // namespace

class TestExperimentForm : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString csv_, idx_;

    /// Replaces %CSV% / %IDX% / %DIR% by the fixtures' paths.
    QString fixture(QString text) const {
        return text.replace("%CSV%", csv_).replace("%IDX%", idx_).replace("%DIR%", dir_.path());
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        csv_ = dir_.filePath("data.csv");
        writeBytes(csv_, "0,1.5,2\n1,0.5,3\n");
        idx_ = dir_.filePath("idx");
        writeIdx(idx_, 28, 28);
        writeBytes(dir_.filePath("wide.csv"), "label,a,b,c\n0,1,2,3\n1,3,2,1\n");
        writeBytes(dir_.filePath("one.csv"), "\n0\n1\n");
        writeIdx(dir_.filePath("small-idx"), 2, 3);
    }

    void defaultsAreValid() {
        ExperimentForm form;
        QCOMPARE(json(form.config()), json(ExperimentConfig::defaults()));
        if (!hwl::fashionMnistAvailable())
            QSKIP("Fashion-MNIST is not installed: the default experiment cannot run here");
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QVERIFY(form.problems().isEmpty());
    }

    void fieldValidation_data() {
        QTest::addColumn<QString>("setup");    // JSON merged into a valid base config
        QTest::addColumn<QString>("widget");   // field name or object name of the widget to edit
        QTest::addColumn<QString>("value");    // invalid value
        QTest::addColumn<QString>("field");    // field expected in problems()
        QTest::addColumn<QString>("expected"); // substring of its message
        QTest::addColumn<QString>("fix");      // value that makes it valid again

        const QString mlp = R"({"model": "mlp:20-16-3", "dataset": "teacher:1000x20:3:8"})";
        const QString bag =
            R"({"model": "embedding-bag:500-8-4", "dataset": "sparse-bow:1000x500:4:10"})";
        QTest::newRow("widths garbage") << mlp << "model"
                                        << "20-x-3"
                                        << "model"
                                        << "\"x\" is not a width"
                                        << "20-16-3";
        QTest::newRow("widths empty") << mlp << "model"
                                      << ""
                                      << "model"
                                      << "is not valid"
                                      << "20-3";
        QTest::newRow("widths one layer") << mlp << "model"
                                          << "20"
                                          << "model"
                                          << "at least an input and an output width"
                                          << "20-3";
        QTest::newRow("widths vs dataset dim") << mlp << "model"
                                               << "784-16-3"
                                               << "model"
                                               << "The model's input width is 784 but the dataset "
                                                  "has 20 features: make the model's first width 20"
                                               << "20-16-3";
        QTest::newRow("output below classes") << mlp << "model"
                                              << "20-16-2"
                                              << "model"
                                              << "make the model's last width at least 3"
                                              << "20-16-5";
        QTest::newRow("dataset dim vs widths") << mlp << "datasetDim"
                                               << "30"
                                               << "model"
                                               << "make the model's first width 30"
                                               << "20";
        QTest::newRow("dataset classes vs widths") << mlp << "datasetClasses"
                                                   << "7"
                                                   << "model"
                                                   << "at least 7"
                                                   << "3";
        QTest::newRow("dense dataset too large")
            << R"({"model": "mlp:50-3", "dataset": "teacher:1000x50:3:8"})"
            << "datasetRows"
            << "100000000"
            << "dataset"
            << "ROWS x DIM = 5000000000 is more than"
            << "1000";
        QTest::newRow("embedding bag V below vocabulary") << bag << "model"
                                                          << "100"
                                                          << "model"
                                                          << "make V at least 500"
                                                          << "500";
        QTest::newRow("embedding bag on dense data") << bag << "dataset"
                                                     << "teacher"
                                                     << "model"
                                                     << "needs a sparse dataset"
                                                     << "sparse-bow";
        QTest::newRow("embedding bag classes") << bag << "modelClasses"
                                               << "2"
                                               << "model"
                                               << "make C at least 4"
                                               << "4";
        QTest::newRow("csv missing") << R"({"model": "mlp:2-2", "dataset": "csv:%CSV%"})"
                                     << "dataset"
                                     << "/nonexistent/hwl.csv"
                                     << "dataset"
                                     << "File not found: /nonexistent/hwl.csv"
                                     << "%CSV%";
        QTest::newRow("csv empty path") << R"({"model": "mlp:2-2", "dataset": "csv:%CSV%"})"
                                        << "dataset"
                                        << ""
                                        << "dataset"
                                        << "the file name is missing"
                                        << "%CSV%";
        QTest::newRow("csv path is a folder") << R"({"model": "mlp:2-2", "dataset": "csv:%CSV%"})"
                                              << "dataset"
                                              << "%IDX%"
                                              << "dataset"
                                              << "Not a file"
                                              << "%CSV%";
        QTest::newRow("libsvm missing") << R"({"model": "mlp:2-2", "dataset": "libsvm:%CSV%"})"
                                        << "dataset"
                                        << "/nonexistent/a.svm"
                                        << "dataset"
                                        << "File not found"
                                        << "%CSV%";
        QTest::newRow("idx folder missing") << R"({"model": "mlp:784-10", "dataset": "idx:%IDX%"})"
                                            << "dataset"
                                            << "/nonexistent/idx"
                                            << "dataset"
                                            << "Folder not found: /nonexistent/idx"
                                            << "%IDX%";
        // Regression: a model/file mismatch showed only after Start. The
        // file's header (its first line, an IDX header) is read at once.
        const char* const csv = R"({"model": "mlp:2-2", "dataset": "csv:%CSV%"})";
        const char* const idx = R"({"model": "mlp:784-10", "dataset": "idx:%IDX%"})";
        const struct {
            const char *name, *setup, *widget, *value, *field, *expected, *fix;
        } headers[] = {
            {"csv features vs widths", csv, "model", "3-2", "model",
             "The model's input width is 3 but the dataset has 2 features", "2-2"},
            {"csv with more features", csv, "dataset", "%DIR%/wide.csv", "model",
             "dataset has 3 features: make the model's first width 3", "%CSV%"},
            {"csv of one column", csv, "dataset", "%DIR%/one.csv", "dataset",
             "one.csv\": line 2 has 1 column; expected the label", "%CSV%"},
            {"idx pixels vs widths", idx, "dataset", "%DIR%/small-idx", "model",
             "dataset has 6 features", "%IDX%"},
        };
        for (const auto& h : headers)
            QTest::newRow(h.name) << h.setup << h.widget << h.value << h.field << h.expected
                                  << h.fix;
        QTest::newRow("lr zero") << mlp << "lr"
                                 << "0"
                                 << "lr"
                                 << "Learning rate must be a number in (0, 100] (got 0)"
                                 << "0.01";
        // Out of range in a spin box: shown and refused, not silently undone.
        QTest::newRow("epochs zero") << mlp << "epochs"
                                     << "0"
                                     << "epochs"
                                     << "Epochs must be in 1..100000 (got 0)"
                                     << "3";
        QTest::newRow("workers zero") << mlp << "workers"
                                      << "0"
                                      << "workers"
                                      << "Workers must be in 1..256 (got 0)"
                                      << "2";
        QTest::newRow("lr too large") << mlp << "lr"
                                      << "150"
                                      << "lr"
                                      << "(0, 100]"
                                      << "1e-3";
        QTest::newRow("lr garbage") << mlp << "lr"
                                    << "fast"
                                    << "lr"
                                    << "\"fast\" is not a number"
                                    << "0.5";
        QTest::newRow("momentum one") << mlp << "momentum"
                                      << "1"
                                      << "momentum"
                                      << "Momentum must be a number in [0, 1) (got 1)"
                                      << "0.9";
        QTest::newRow("momentum negative") << mlp << "momentum"
                                           << "-0.1"
                                           << "momentum"
                                           << "[0, 1)"
                                           << "0";
        QTest::newRow("momentum empty") << mlp << "momentum"
                                        << ""
                                        << "momentum"
                                        << "is not a number"
                                        << "0";
        QTest::newRow("weight decay above one") << mlp << "weight-decay"
                                                << "2"
                                                << "weight-decay"
                                                << "Weight decay must be a number in [0, 1] (got 2)"
                                                << "0.001";
        QTest::newRow("seed garbage") << mlp << "seed"
                                      << "-1"
                                      << "seed"
                                      << "is not a whole number"
                                      << "7";
    }

    void fieldValidation() {
        QFETCH(QString, setup);
        QFETCH(QString, widget);
        QFETCH(QString, value);
        QFETCH(QString, field);
        QFETCH(QString, expected);
        QFETCH(QString, fix);

        ExperimentConfig base;
        base.mergeJson(fixture(setup).toStdString(), "test setup");
        QVERIFY2(validateExperiment(base).empty(), qPrintable(issues(base)));
        ExperimentForm form;
        form.setConfig(base);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QSignalSpy validity(&form, &ExperimentForm::validityChanged);
        QSignalSpy changed(&form, &ExperimentForm::changed);

        QWidget* editor = form.fieldWidget(widget);
        if (!editor)
            editor = form.findChild<QWidget*>(widget);
        QVERIFY2(editor, qPrintable(widget));
        setWidget(editor, fixture(value));

        QVERIFY(!form.isValid());
        QVERIFY(changed.count() >= 1);
        QCOMPARE(validity.count(), 1);
        QCOMPARE(validity.at(0).at(0).toBool(), false);
        const auto problems = form.problems();
        QVERIFY2(problems.contains(field), qPrintable(problems.keys().join(", ")));
        const QString message = problems.value(field);
        QVERIFY2(message.contains(fixture(expected)), qPrintable(message));
        // Shown at the field: red frame, tooltip, label under it.
        QWidget* marked = form.fieldWidget(field);
        QVERIFY(marked);
        QVERIFY(marked->property("hwlError").toBool());
        QVERIFY2(marked->toolTip().contains(message), qPrintable(marked->toolTip()));
        QLabel* label = form.errorLabel(field);
        QVERIFY(label);
        QVERIFY(hwl::test::messageGiven(label, &form));
        QCOMPARE(label->text(), message);

        setWidget(form.fieldWidget(widget) ? form.fieldWidget(widget) : editor, fixture(fix));
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QCOMPARE(validity.count(), 2);
        QCOMPARE(validity.at(1).at(0).toBool(), true);
        QVERIFY(!form.fieldWidget(field)->property("hwlError").toBool());
        QVERIFY(!hwl::test::messageGiven(label, &form));
        QVERIFY(!form.fieldWidget(field)->toolTip().contains(message));
    }

    void roundTrip_data() {
        QTest::addColumn<QString>("config");
        QTest::newRow("defaults") << json(ExperimentConfig::defaults());
        for (const auto& preset : hwl::presets())
            QTest::newRow(("preset " + preset.name).c_str()) << json(preset.config);
        QTest::newRow("processes spawn no-share continue")
            << R"({"model": "mlp:20-32-4:tanh", "dataset": "teacher:2000x20:4:16",
                   "mode": "processes", "start-method": "spawn", "share": false,
                   "on-worker-failure": "continue", "workers": 5, "split": "replicate",
                   "shuffle": false, "epochs": 7, "batch": 17, "lr": 0.125, "momentum": 0,
                   "weight-decay": 0.0005, "seed": 18446744073709551615,
                   "test-fraction": 0.25, "init": "w.safetensors", "out": "runs/a"})";
        QTest::newRow("embedding bag on sparse-bow")
            << R"({"model": "embedding-bag:5000-32-4", "dataset": "sparse-bow:20000x5000:4:7",
                   "mode": "threads", "workers": 8, "lr": 1e-07, "momentum": 0.5})";
        QTest::newRow("csv file") << R"({"model": "mlp:2-8-2:sigmoid", "dataset": "csv:%CSV%",
                                         "mode": "serial", "workers": 1, "test-fraction": 0})";
        QTest::newRow("idx folder")
            << R"({"model": "mlp:784-10", "dataset": "idx:%IDX%", "mode": "threads-locked",
                   "workers": 3, "test-fraction": 0.0125})";
    }

    void roundTrip() {
        QFETCH(QString, config);
        ExperimentConfig c;
        c.mergeJson(fixture(config).toStdString(), "test");
        const bool runnable = c.dataset != "fashion-mnist" || hwl::fashionMnistAvailable();
        QVERIFY2(validateExperiment(c).empty(), qPrintable(issues(c)));
        ExperimentForm form;
        QSignalSpy changed(&form, &ExperimentForm::changed);
        form.setConfig(c);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(json(form.config()), json(c));
        if (runnable)
            QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        // And once more from the form's own output.
        ExperimentForm second;
        second.setConfig(form.config());
        QCOMPARE(json(second.config()), json(c));
    }

    void invalidTextsAreKept() {
        // A config that does not parse is shown as invalid, never silently replaced.
        ExperimentConfig c;
        c.model = "mlp:10-4:gelu";
        c.dataset = "random:10x";
        ExperimentForm form;
        form.setConfig(c);
        QVERIFY(!form.isValid());
        QCOMPARE(form.config().model, c.model);
        QCOMPARE(form.config().dataset, c.dataset);
        QVERIFY(form.problems().value("model").contains("gelu"));
        QVERIFY(form.problems().value("dataset").contains("random:10x"));
    }

    void serialForcesOneWorker() {
        ExperimentConfig c = ExperimentConfig::defaults();
        c.dataset = "teacher:1000x784:10:8";
        c.workers = 4;
        ExperimentForm form;
        form.setConfig(c);
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        auto* workers = qobject_cast<QSpinBox*>(form.fieldWidget("workers"));
        QVERIFY(mode && workers);
        QVERIFY(workers->isEnabled());
        mode->setCurrentIndex(modeIndex(mode, "serial"));
        QVERIFY(!workers->isEnabled());
        QCOMPARE(workers->value(), 1);
        QCOMPARE(form.config().workers, 1);
        QCOMPARE(form.config().mode, std::string("serial"));
        QVERIFY(form.isValid());
        mode->setCurrentIndex(modeIndex(mode, "threads"));
        QVERIFY(workers->isEnabled());
        QCOMPARE(form.config().workers, 4);

        c.mode = "serial";
        c.workers = 1;
        form.setConfig(c);
        QVERIFY(!workers->isEnabled());
        QVERIFY(form.isValid());
    }

    void processOnlyWidgets() {
        ExperimentForm form;
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        QWidget* start = form.fieldWidget("start-method");
        auto* share = qobject_cast<QCheckBox*>(form.fieldWidget("share"));
        QWidget* failure = form.fieldWidget("on-worker-failure");
        QVERIFY(mode && start && share && failure);
        for (const char* m : {"serial", "threads", "threads-locked", "processes"}) {
            mode->setCurrentIndex(modeIndex(mode, m));
            const bool processes = std::string(m) == "processes";
            QCOMPARE(start->isEnabled(), processes);
            QCOMPARE(share->isEnabled(), processes);
            QCOMPARE(failure->isEnabled(), processes);
        }
        // Unchecking share is the pitfall: allowed, with an inline warning.
        share->setChecked(false);
        QVERIFY(form.shareWarning()->isVisibleTo(&form));
        QVERIFY(!form.config().share);
        mode->setCurrentIndex(modeIndex(mode, "threads"));
        QVERIFY(!form.shareWarning()->isVisibleTo(&form));
        QVERIFY(form.config().share); // threads always share
        QVERIFY(!form.problems().contains("share"));
    }

    // data-parallel takes a transport and its replica options; the start
    // method only with the processes transport; mpi is listed, disabled with
    // the reason in builds without it; other modes keep the defaults.
    void dataParallelWidgets() {
        ExperimentForm form;
        auto* mode = qobject_cast<QComboBox*>(form.fieldWidget("mode"));
        auto* transport = qobject_cast<QComboBox*>(form.fieldWidget("transport"));
        QWidget* start = form.fieldWidget("start-method");
        QVERIFY(mode && transport && start);
        mode->setCurrentIndex(modeIndex(mode, "data-parallel"));
        for (const char* f : {"transport", "sync-every", "bucket-mb", "drop-last", "workers"})
            QVERIFY2(form.fieldWidget(f)->isEnabled(), f);
        QVERIFY(!start->isEnabled()); // threads transport
        transport->setCurrentIndex(transport->findData(int(hwl::Transport::Processes)));
        QVERIFY(start->isEnabled());
        auto* model = qobject_cast<QStandardItemModel*>(transport->model());
        const int mpi = transport->findData(int(hwl::Transport::Mpi));
        const bool mpiBuilt = hwl::transportUnavailable(int(hwl::Transport::Mpi)).empty();
        QCOMPARE(bool(model->item(mpi)->flags() & Qt::ItemIsEnabled), mpiBuilt);
        if (!mpiBuilt)
            QVERIFY(transport->itemData(mpi, Qt::ToolTipRole).toString().startsWith("not built"));
        // The hostfile and mpirun's arguments go with transport mpi only.
        for (const char* f : {"hostfile", "mpirun-args", "reduce"})
            QVERIFY2(!form.fieldWidget(f)->isEnabled(), f);
        if (mpiBuilt) {
            transport->setCurrentIndex(mpi);
            for (const char* f : {"hostfile", "mpirun-args", "reduce"})
                QVERIFY2(form.fieldWidget(f)->isEnabled(), f);
            auto* args = qobject_cast<QLineEdit*>(form.fieldWidget("mpirun-args"));
            args->setText("-np 4");
            emit args->textEdited(args->text());
            QVERIFY(!form.isValid());
            QVERIFY(form.problems().value("mpirun-args").contains("-np is set by hogwild-lab"));
            args->setText("--mca btl self,tcp");
            emit args->textEdited(args->text());
            QVERIFY2(form.isValid(), qPrintable(QStringList(form.problems().values()).join('\n')));
            QCOMPARE(form.config().mpirunArgs, std::string("--mca btl self,tcp"));
            transport->setCurrentIndex(transport->findData(int(hwl::Transport::Processes)));
            QCOMPARE(form.config().mpirunArgs, std::string());
        }
        qobject_cast<QSpinBox*>(form.fieldWidget("sync-every"))->setValue(8);
        QVERIFY2(form.isValid(), qPrintable(QStringList(form.problems().values()).join('\n')));
        hwl::ExperimentConfig c = form.config();
        QCOMPARE(c.mode, std::string("data-parallel"));
        QCOMPARE(c.transport, hwl::Transport::Processes);
        QCOMPARE(c.syncEvery, 8);
        // Round trip, and back to Hogwild: the options go back to their defaults.
        form.setConfig(c);
        QCOMPARE(form.config().syncEvery, 8);
        mode->setCurrentIndex(modeIndex(mode, "threads"));
        QVERIFY(!form.fieldWidget("sync-every")->isEnabled());
        QCOMPARE(form.config().syncEvery, 1);
        QCOMPARE(form.config().transport, hwl::Transport::Threads);
        QVERIFY(form.isValid());
    }

    void workersWarning() {
        ExperimentForm form;
        auto* workers = qobject_cast<QSpinBox*>(form.fieldWidget("workers"));
        const int cores = QThread::idealThreadCount();
        workers->setValue(cores + 1);
        QVERIFY(form.workersWarning()->isVisibleTo(&form));
        QCOMPARE(form.workersWarning()->text(),
                 QString("%1 workers on %2 cores: they will time-share the CPUs")
                     .arg(cores + 1)
                     .arg(cores));
        QVERIFY(!form.problems().contains("workers")); // a warning, not an error
        workers->setValue(1);
        QVERIFY(!form.workersWarning()->isVisibleTo(&form));
    }

    void modelKindShowsItsWidgets() {
        ExperimentForm form;
        auto* kind = form.findChild<QComboBox*>("modelKind");
        QVERIFY(kind);
        QWidget* widths = form.findChild<QWidget*>("modelWidths");
        QWidget* vocab = form.findChild<QWidget*>("modelVocab");
        QVERIFY(widths->isVisibleTo(&form) && !vocab->isVisibleTo(&form));
        kind->setCurrentIndex(kind->findText("Embedding bag"));
        QVERIFY(!widths->isVisibleTo(&form) && vocab->isVisibleTo(&form));
        QCOMPARE(form.fieldWidget("model"), vocab);
        QVERIFY(QString::fromStdString(form.config().model).startsWith("embedding-bag:"));
    }

    void datasetKindShowsItsWidgets() {
        ExperimentForm form;
        auto* kind = form.findChild<QComboBox*>("datasetKind");
        QWidget* rows = form.findChild<QWidget*>("datasetRows");
        QWidget* path = form.findChild<QWidget*>("datasetPath");
        QWidget* tokens = form.findChild<QWidget*>("datasetTokens");
        QVERIFY(kind && rows && path && tokens);
        kind->setCurrentIndex(kind->findText("CSV file"));
        QVERIFY(path->isVisibleTo(&form) && !rows->isVisibleTo(&form));
        QCOMPARE(form.fieldWidget("dataset"), path);
        QVERIFY(form.findChild<QWidget*>("datasetBrowse")->isVisibleTo(&form));
        kind->setCurrentIndex(kind->findText("sparse-bow"));
        QVERIFY(!path->isVisibleTo(&form) && rows->isVisibleTo(&form) &&
                tokens->isVisibleTo(&form));
        kind->setCurrentIndex(kind->findText("Fashion-MNIST"));
        QVERIFY(!form.fieldWidget("test-fraction")->isEnabled());
        QVERIFY(form.findChild<QLabel*>("datasetNote")->isVisibleTo(&form));
    }

    void fashionMnistMissing() {
        qputenv("HWL_FASHION_MNIST_DIR", "/nonexistent/fashion-mnist");
        QVERIFY(!hwl::fashionMnistAvailable());
        {
            ExperimentForm form;
            auto* kind = form.findChild<QComboBox*>("datasetKind");
            auto* model = qobject_cast<QStandardItemModel*>(kind->model());
            const int i = kind->findText("Fashion-MNIST");
            QVERIFY(!(model->item(i)->flags() & Qt::ItemIsEnabled));
            QVERIFY(kind->itemData(i, Qt::ToolTipRole)
                        .toString()
                        .contains("not installed: apt-get install dataset-fashion-mnist"));
            // The embedded default names it: invalid, and said at the field.
            QVERIFY(!form.isValid());
            QVERIFY(form.problems().value("dataset").contains("not installed"));
            // Every preset falls back and still validates in the form.
            for (const auto& preset : hwl::presets()) {
                QVERIFY2(preset.config.dataset != "fashion-mnist", preset.name.c_str());
                form.setConfig(preset.config);
                QVERIFY2(form.isValid(), preset.name.c_str());
            }
            QVERIFY(hwl::presets().back().explanation.find("not installed") != std::string::npos);
        }
        qunsetenv("HWL_FASHION_MNIST_DIR");
    }

    void presetsValidate() {
        const auto all = hwl::presets();
        QStringList names;
        for (const auto& preset : all) {
            const QString name = QString::fromStdString(preset.name);
            names << name;
            QVERIFY2(validateExperiment(preset.config).empty(),
                     qPrintable(name + ": " + issues(preset.config)));
            QVERIFY(!preset.explanation.empty());
            ExperimentForm form;
            form.setConfig(preset.config);
            if (preset.config.dataset != "fashion-mnist" || hwl::fashionMnistAvailable())
                QVERIFY2(form.isValid(),
                         qPrintable(name + ": " + form.problems().keys().join(", ")));
        }
        for (const char* name :
             {"Hogwild vs locked", "Forgot to share parameters (fork)", "Sparse embedding Hogwild",
              "Process Hogwild (forkserver)", "Fashion-MNIST default"})
            QVERIFY2(names.contains(name), name);
        const auto& share = all.at(names.indexOf("Forgot to share parameters (fork)")).config;
        QCOMPARE(share.mode, std::string("processes"));
        QCOMPARE(share.startMethod, hwl::StartMethod::Fork);
        QVERIFY(!share.share);
        QCOMPARE(share.workers, 3);
    }

    void runningDisablesEditing() {
        ExperimentForm form;
        form.setRunning(true);
        for (const char* field : {"model", "dataset", "mode", "workers", "lr", "seed"})
            QVERIFY2(!form.fieldWidget(field)->isEnabled(), field);
        form.setRunning(false);
        QVERIFY(form.fieldWidget("lr")->isEnabled());
        QVERIFY(!form.fieldWidget("start-method")->isEnabled()); // still threads mode
    }
};

QTEST_MAIN(TestExperimentForm)
#include "strategy/validation.h"
#include "tst_experimentform.moc"
