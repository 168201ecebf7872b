// The Model group's layer-list editor (issue 38): a net: spec round trips
// through the form, the table shows the engine's shapes and parameter
// counts, edits, additions, removals and moves reach the spec, a list the
// engine refuses is refused at its row and keeps Start disabled, and
// choosing "Layer list" starts from the network shown before.
#include "form/experimentform.h"
#include "form/layerlisteditor.h"
#include "form/modelfields.h"
#include "guitestmain.h"
#include "uitestutil.h"
#include "widgets/formstyle.h"
#include "window/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QBrush>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPalette>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>

using hwl::ExperimentConfig;
using hwl::ui::ExperimentForm;
using hwl::ui::LayerListEditor;
using hwl::ui::ModelFields;

namespace {

const QString kMnistList = "net:1x28x28:conv10k5,maxpool2,relu,conv20k5,dropout2d,maxpool2,relu,"
                           "flatten,fc50,relu,dropout,fc10";

/// A valid experiment for a model over 784 features and 10 classes.
ExperimentConfig on784(const QString& model) {
    ExperimentConfig c;
    c.model = model.toStdString();
    c.dataset = "teacher:1000x784:10:8";
    c.mode = "serial";
    c.workers = 1;
    return c;
}

QString cell(const LayerListEditor* editor, int row, int column) {
    const QTableWidgetItem* item = editor->table()->item(row, column);
    return item ? item->text() : QStringLiteral("<no item>");
}

QStringList column(const LayerListEditor* editor, int column) {
    QStringList texts;
    for (int row = 0; row < editor->table()->rowCount(); ++row)
        texts << cell(editor, row, column);
    return texts;
}

/// Types `text` into row `row` of the table (the item's text, as a
/// committed edit leaves it).
void editRow(LayerListEditor* editor, int row, const QString& text) {
    editor->table()->item(row, LayerListEditor::TextColumn)->setText(text);
}

void chooseKind(ModelFields* model, const QString& text) {
    const int index = model->kindCombo()->findText(text);
    QVERIFY2(index >= 0, qPrintable(text));
    model->kindCombo()->setCurrentIndex(index);
}

} // namespace

class TestLayerEditor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    // Regression: a net: spec found no item in the Kind combo (findData
    // returned -1) and the group showed nothing of it.
    void netSpecRoundTrips_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<QString>("dataset");
        QTest::newRow("mnist_hogwild's list")
            << kMnistList << kMnistList << "teacher:1000x784:10:8";
        QTest::newRow("vector list") << "net:784:fc128,relu,fc10"
                                     << "net:784:fc128,relu,fc10"
                                     << "teacher:1000x784:10:8";
        const QString parity = "net:2x8x8:conv6k3p1,gelu,maxpool3s2,conv8k3s2p1,tanh,avgpool2,"
                               "dropout2d,flatten,fc12,sigmoid,dropout,fc4";
        QTest::newRow("every layer") << parity << parity << "teacher:500x128:4:8";
        QTest::newRow("written longer") << "net:784:fc64,dropout0.250,conv1k1s1p0x,fc10"
                                        << ""
                                        << "";
        QTest::newRow("not canonical") << "net:784:fc64,dropout0.250,fc10"
                                       << "net:784:fc64,dropout0.25,fc10"
                                       << "teacher:1000x784:10:8";
    }

    void netSpecRoundTrips() {
        QFETCH(QString, spec);
        QFETCH(QString, canonical);
        QFETCH(QString, dataset);
        ModelFields model;
        model.setSpecText(spec);
        QCOMPARE(model.kindCombo()->currentText(), QString("Layer list"));
        QVERIFY(model.isLayerList());
        if (canonical.isEmpty()) { // refused: kept as written, rows and all
            QCOMPARE(model.specText(), spec);
            QCOMPARE(model.layerList()->layerTexts(),
                     QStringList({"fc64", "dropout0.250", "conv1k1s1p0x", "fc10"}));
            QCOMPARE(model.layerList()->problemRow(), 2);
            return;
        }
        QCOMPARE(model.specText(), canonical);
        QCOMPARE("net:" + model.layerList()->shapeText() + ":" +
                     model.layerList()->layerTexts().join(','),
                 canonical);

        ExperimentConfig c = on784(spec);
        c.dataset = dataset.toStdString();
        ExperimentForm form;
        form.setConfig(c);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QCOMPARE(QString::fromStdString(form.config().model), canonical);
        ExperimentForm second;
        second.setConfig(form.config());
        QCOMPARE(QString::fromStdString(second.config().model), canonical);
    }

    // cnn:mnist's list, as the kind switch from the CNN shows it: the
    // engine's shape after each layer and each layer's parameters.
    void cnnListShapesAndCount() {
        ExperimentForm form;
        form.setConfig(on784("cnn:mnist"));
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        auto* model = form.findChild<ModelFields*>();
        QVERIFY(model && model->isCnn());
        chooseKind(model, "Layer list");
        LayerListEditor* editor = model->layerList();
        QCOMPARE(editor->shapeText(), QString("1x28x28"));
        QCOMPARE(editor->layerTexts().join(','), kMnistList.section(':', 2));
        QCOMPARE(column(editor, LayerListEditor::ShapeColumn),
                 QStringList({"10x24x24", "10x12x12", "10x12x12", "20x8x8", "20x8x8", "20x4x4",
                              "20x4x4", "320", "50", "50", "50", "10"}));
        QCOMPARE(column(editor, LayerListEditor::ParametersColumn),
                 QStringList({"260", "", "", "5,020", "", "", "", "", "16,050", "", "", "510"}));
        QCOMPARE(editor->table()->item(3, LayerListEditor::ParametersColumn)->toolTip(),
                 QString("5,000 weights (20x10x5x5) and 20 biases"));
        QCOMPARE(editor->parameterCount(), 21840);
        QCOMPARE(editor->totalLabel()->text(), QString("21,840 parameters"));
        QVERIFY(editor->totalLabel()->isVisibleTo(&form));
        QVERIFY(editor->isVisibleTo(&form) && editor->shapeEdit()->isVisibleTo(&form));
        QCOMPARE(QString::fromStdString(form.config().model), kMnistList);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QCOMPARE(editor->problemRow(), -1);
        // Its dropout and dropout2d take the form's Dropout field.
        QVERIFY(model->dropoutSpin()->isVisibleTo(&form));
    }

    void editingARowUpdatesShapesAndSpec() {
        ExperimentForm form;
        form.setConfig(on784(kMnistList));
        auto* model = form.findChild<ModelFields*>();
        LayerListEditor* editor = model->layerList();
        QSignalSpy changed(&form, &ExperimentForm::changed);
        editRow(editor, 8, "fc64");
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(editor, 8, LayerListEditor::ShapeColumn), QString("64"));
        QCOMPARE(cell(editor, 8, LayerListEditor::ParametersColumn), QString("20,544"));
        QCOMPARE(cell(editor, 11, LayerListEditor::ParametersColumn), QString("650"));
        QCOMPARE(editor->parameterCount(), 260 + 5020 + 20544 + 650);
        QCOMPARE(editor->totalLabel()->text(), QString("26,474 parameters"));
        QCOMPARE(QString::fromStdString(form.config().model),
                 QString(kMnistList).replace("fc50", "fc64"));
        // A smaller kernel: every shape after it changes.
        editRow(editor, 0, " conv10k3 ");
        QCOMPARE(cell(editor, 0, LayerListEditor::TextColumn), QString("conv10k3"));
        QCOMPARE(column(editor, LayerListEditor::ShapeColumn).mid(0, 8),
                 QStringList({"10x26x26", "10x13x13", "10x13x13", "20x9x9", "20x9x9", "20x4x4",
                              "20x4x4", "320"}));
        QCOMPARE(cell(editor, 0, LayerListEditor::ParametersColumn), QString("100"));
        QVERIFY(QString::fromStdString(form.config().model).startsWith("net:1x28x28:conv10k3,"));
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        // The input shape is an edit too.
        editor->shapeEdit()->setText("1x32x32");
        QCOMPARE(cell(editor, 0, LayerListEditor::ShapeColumn), QString("10x30x30"));
        QVERIFY(!form.isValid()); // 1,024 features: not the dataset's 784
        QVERIFY2(form.problems().value("model").contains("but the dataset has 784 features"),
                 qPrintable(hwl::test::problemText(form)));
    }

    void addRemoveAndMove() {
        ModelFields model;
        model.setSpecText("net:784:fc128,relu,fc10");
        LayerListEditor* editor = model.layerList();
        QTableWidget* table = editor->table();
        QSignalSpy edited(&model, &ModelFields::edited);
        table->setCurrentCell(0, 0);
        QVERIFY(!editor->upButton()->isEnabled() && editor->downButton()->isEnabled());
        editor->addButton()->click(); // after the current row
        QCOMPARE(editor->layerTexts(), QStringList({"fc128", "relu", "relu", "fc10"}));
        QCOMPARE(table->currentRow(), 1);
        editRow(editor, 1, "dropout");
        QCOMPARE(model.specText(), QString("net:784:fc128,dropout,relu,fc10"));
        QVERIFY(!model.dropoutSpin()->isHidden()); // a dropout that reads the field
        editor->upButton()->click();
        QCOMPARE(model.specText(), QString("net:784:dropout,fc128,relu,fc10"));
        QCOMPARE(table->currentRow(), 0);
        QVERIFY(!editor->upButton()->isEnabled());
        editor->downButton()->click();
        editor->downButton()->click();
        QCOMPARE(model.specText(), QString("net:784:fc128,relu,dropout,fc10"));
        QCOMPARE(cell(editor, 2, LayerListEditor::ShapeColumn), QString("128"));
        editor->removeButton()->click();
        QCOMPARE(model.specText(), QString("net:784:fc128,relu,fc10"));
        QCOMPARE(table->currentRow(), 2);
        QVERIFY(!editor->downButton()->isEnabled());
        QVERIFY(model.dropoutSpin()->isHidden()); // no layer reads it any more
        QCOMPARE(edited.count(), 6);

        // The same from the keyboard, on the table.
        table->setCurrentCell(0, 0);
        QTest::keyClick(table, Qt::Key_Insert);
        QCOMPARE(editor->layerTexts(), QStringList({"fc128", "relu", "relu", "fc10"}));
        editRow(editor, 1, "dropout0.2");
        QTest::keyClick(table, Qt::Key_Up, Qt::ControlModifier);
        QCOMPARE(model.specText(), QString("net:784:dropout0.2,fc128,relu,fc10"));
        QVERIFY(model.dropoutSpin()->isHidden()); // its own probability
        QTest::keyClick(table, Qt::Key_Down, Qt::ControlModifier);
        QCOMPARE(table->currentRow(), 1);
        QTest::keyClick(table, Qt::Key_Delete);
        QCOMPARE(model.specText(), QString("net:784:fc128,relu,fc10"));

        // A few layers pasted into one row: one row per layer, in its place.
        editRow(editor, 1, "tanh, dropout0.1");
        QCOMPARE(editor->layerTexts(), QStringList({"fc128", "tanh", "dropout0.1", "fc10"}));
        // A whole network (it ends in fc) pasted into a row replaces the
        // list, not the row alone (issue 49: the rows it replaced stayed).
        editRow(editor, 2, "fc64, relu,fc10");
        QCOMPARE(editor->layerTexts(), QStringList({"fc64", "relu", "fc10"}));
        QCOMPARE(column(editor, LayerListEditor::ShapeColumn), QStringList({"64", "64", "10"}));
        QCOMPARE(editor->parameterCount(), 784 * 64 + 64 + 64 * 10 + 10);
        // --model's spec pasted on the list (Ctrl+V, no row edited): its
        // shape and its layers.
        QGuiApplication::clipboard()->setText("net:784:fc32,relu,fc10");
        table->setCurrentCell(1, 0);
        QTest::keyClick(table, Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(model.specText(), QString("net:784:fc32,relu,fc10"));
        QCOMPARE(editor->shapeText(), QString("784"));

        // Remove stays where it was while layers go (the table keeps its
        // height), so that the next click removes the next layer.
        model.setSpecText("net:784:fc128,relu,fc64,relu,fc32,relu,fc10");
        model.show();
        QVERIFY(QTest::qWaitForWindowExposed(&model));
        table->setCurrentCell(0, 0);
        QCoreApplication::processEvents();
        const int removeAt = editor->removeButton()->mapTo(&model, QPoint()).y();
        for (int i = 0; i < 4; ++i) {
            editor->removeButton()->click();
            QCoreApplication::processEvents();
            QCOMPARE(editor->removeButton()->mapTo(&model, QPoint()).y(), removeAt);
        }
        QCOMPARE(editor->layerTexts(), QStringList({"fc32", "relu", "fc10"}));

        // Named for assistive technology.
        QCOMPARE(editor->addButton()->accessibleName(), QString("Add layer"));
        QCOMPARE(editor->removeButton()->accessibleName(), QString("Remove layer"));
        QCOMPARE(editor->upButton()->accessibleName(), QString("Move layer up"));
        QCOMPARE(editor->downButton()->accessibleName(), QString("Move layer down"));
        QCOMPARE(table->accessibleName(), QString("Layers"));
    }

    // The engine's refusal, at the Model group and at the row it names.
    void invalidListIsRefusedAtItsRow_data() {
        QTest::addColumn<int>("row"); // the row edited, -1: the input shape
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("marked"); // the row marked, -1: none
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("described"); // rows still showing their shape
        QTest::newRow("kernel too large")
            << 3 << "conv20k50" << 3
            << "layer 4 (conv20k50) has a kernel of 50 but its input is 10x12x12" << 3;
        QTest::newRow("unknown layer")
            << 2 << "relu6" << 2 << "layer 3 (relu6) is not a layer" << 2;
        QTest::newRow("fc over an image")
            << 7 << "relu" << 8 << "layer 9 (fc50) takes a vector, but its input is the image "
            << 8;
        QTest::newRow("does not end in fc")
            << 11 << "relu" << 11 << "the network must end with fcN" << 12;
        QTest::newRow("bad probability")
            << 10 << "dropout1.5" << 10 << "layer 11 (dropout1.5) has a probability outside" << 10;
        QTest::newRow("bad shape")
            << -1 << "1x28" << -1 << "the input shape \"1x28\" is not CxHxW" << 0;
    }

    void invalidListIsRefusedAtItsRow() {
        QFETCH(int, row);
        QFETCH(QString, text);
        QFETCH(int, marked);
        QFETCH(QString, expected);
        QFETCH(int, described);
        hwl::ui::MainWindow window;
        ExperimentForm* form = window.form();
        form->setConfig(on784(kMnistList));
        QVERIFY(window.startAction()->isEnabled());
        auto* model = form->findChild<ModelFields*>();
        LayerListEditor* editor = model->layerList();
        QSignalSpy validity(form, &ExperimentForm::validityChanged);
        if (row < 0)
            editor->shapeEdit()->setText(text);
        else
            editRow(editor, row, text);

        QVERIFY(!form->isValid());
        QCOMPARE(validity.count(), 1);
        QVERIFY(!window.startAction()->isEnabled());
        QVERIFY2(window.startAction()->toolTip().contains(expected),
                 qPrintable(window.startAction()->toolTip()));
        const QString message = form->problems().value("model");
        QVERIFY2(message.contains(expected), qPrintable(hwl::test::problemText(*form)));
        QVERIFY(hwl::test::messageGiven(form->errorLabel("model"), form));
        QCOMPARE(form->errorLabel("model")->text(), message);
        QWidget* field = row < 0 ? static_cast<QWidget*>(editor->shapeEdit()) : editor->table();
        QCOMPARE(form->fieldWidget("model"), field);
        QVERIFY(field->property("hwlError").toBool());
        QVERIFY(field->toolTip().startsWith(message));
        // The row the engine names: red, its message as its tooltip.
        QCOMPARE(editor->problemRow(), marked);
        QCOMPARE(editor->shapeIsWrong(), row < 0);
        for (int r = 0; r < editor->table()->rowCount(); ++r) {
            const QTableWidgetItem* item = editor->table()->item(r, LayerListEditor::TextColumn);
            QCOMPARE(item->toolTip().contains(expected), r == marked);
            QCOMPARE(item->data(Qt::ForegroundRole).isValid(), r == marked);
            QCOMPARE(cell(editor, r, LayerListEditor::ShapeColumn).isEmpty(), r >= described);
        }
        QCOMPARE(editor->parameterCount(), -1);
        QCOMPARE(editor->totalLabel()->text(),
                 QString("Parameters: not known until the list is valid"));

        // Undone: valid again, nothing marked, Start back.
        if (row < 0)
            editor->shapeEdit()->setText("1x28x28");
        else
            editRow(editor, row, kMnistList.section(':', 2).section(',', row, row));
        QVERIFY2(form->isValid(), qPrintable(hwl::test::problemText(*form)));
        QVERIFY(window.startAction()->isEnabled());
        QCOMPARE(editor->problemRow(), -1);
        QVERIFY(!field->property("hwlError").toBool());
        QVERIFY(!hwl::test::messageGiven(form->errorLabel("model"), form));
        for (int r = 0; r < editor->table()->rowCount(); ++r)
            QVERIFY(!editor->table()->item(r, 0)->data(Qt::ForegroundRole).isValid());
        QCOMPARE(editor->parameterCount(), 21840);
    }

    // The marked row's red follows the window's theme, as the form's frames do.
    void markedRowFollowsTheTheme() {
        ModelFields model;
        model.setSpecText("net:1x28x28:conv10k50,flatten,fc10");
        LayerListEditor* editor = model.layerList();
        QCOMPARE(editor->problemRow(), 0);
        auto red = [&] {
            return editor->table()->item(0, 0)->data(Qt::ForegroundRole).value<QBrush>().color();
        };
        const QPalette light = QApplication::palette();
        QCOMPARE(red(),
                 QColor(hwl::ui::errorColour(light.color(QPalette::Window).lightness() < 128)));
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        QApplication::setPalette(dark);
        QCoreApplication::sendPostedEvents(); // the widgets hear of a new palette in an event
        QCOMPARE(red(), QColor(hwl::ui::errorColour(true)));
        QApplication::setPalette(light);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(red(), QColor(hwl::ui::errorColour(false)));
    }

    void mlpToListAndBack() {
        ExperimentForm form;
        form.setConfig(on784("mlp:784-256-64-10:tanh"));
        auto* model = form.findChild<ModelFields*>();
        chooseKind(model, "Layer list");
        LayerListEditor* editor = model->layerList();
        QCOMPARE(editor->shapeText(), QString("784"));
        QCOMPARE(editor->layerTexts(), QStringList({"fc256", "tanh", "fc64", "tanh", "fc10"}));
        QCOMPARE(QString::fromStdString(form.config().model),
                 QString("net:784:fc256,tanh,fc64,tanh,fc10"));
        QCOMPARE(editor->parameterCount(), 784 * 256 + 256 + 256 * 64 + 64 + 64 * 10 + 10);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QVERIFY(!model->widthsEdit()->isVisibleTo(&form));
        QVERIFY(!model->dropoutSpin()->isVisibleTo(&form)); // no dropout layer

        // A list that spells an MLP goes back as its widths.
        editRow(editor, 2, "fc32");
        chooseKind(model, "MLP");
        QCOMPARE(model->widthsEdit()->text(), QString("784-256-32-10"));
        QCOMPARE(model->activationCombo()->currentText(), QString("tanh"));
        QCOMPARE(form.config().model, std::string("mlp:784-256-32-10:tanh"));
        QVERIFY(!editor->isVisibleTo(&form));

        // A list no MLP spells leaves the widths as they were.
        chooseKind(model, "Layer list");
        editRow(editor, 1, "gelu");
        chooseKind(model, "MLP");
        QCOMPARE(model->widthsEdit()->text(), QString("784-256-32-10"));

        // The embedding bag has no list: its list is the one shown before.
        chooseKind(model, "Layer list");
        QCOMPARE(editor->layerTexts(), QStringList({"fc256", "tanh", "fc32", "tanh", "fc10"}));
        chooseKind(model, "Embedding bag");
        chooseKind(model, "Layer list");
        QCOMPARE(editor->layerTexts(), QStringList({"fc256", "tanh", "fc32", "tanh", "fc10"}));
    }

    void cnnToList() {
        ModelFields model;
        model.setSpecText("mlp:784-128-10");
        chooseKind(&model, "CNN (mnist_hogwild)");
        QCOMPARE(model.specText(), QString("cnn:mnist"));
        chooseKind(&model, "Layer list");
        QCOMPARE(model.specText(), kMnistList);
        QCOMPARE(model.layerList()->table()->rowCount(), 12);
        QCOMPARE(model.layerList()->parameterCount(), 21840);
    }

    // The Dropout field shows where a layer reads it (and where it holds a
    // value the model refuses, so that the refusal is seen).
    void dropoutFieldFollowsTheLayers() {
        ExperimentForm form;
        form.setConfig(on784("net:784:fc64,dropout0.3,fc10"));
        auto* model = form.findChild<ModelFields*>();
        QDoubleSpinBox* dropout = model->dropoutSpin();
        QVERIFY(!dropout->isVisibleTo(&form));
        editRow(model->layerList(), 1, "dropout");
        QVERIFY(dropout->isVisibleTo(&form));
        dropout->setValue(0.25);
        QVERIFY2(form.isValid(), qPrintable(hwl::test::problemText(form)));
        QCOMPARE(form.config().dropout, 0.25);
        QVERIFY(dropout->toolTip().contains("layer list"));
        editRow(model->layerList(), 1, "dropout0.3");
        QVERIFY(dropout->isVisibleTo(&form)); // kept in view: the model refuses it now
        QVERIFY(!form.isValid());
        QVERIFY(form.problems().value("dropout").contains("this model has none"));
        QVERIFY(dropout->property("hwlError").toBool());
    }
};

HWL_GUI_TEST_MAIN(TestLayerEditor)
#include "tst_layereditor.moc"
