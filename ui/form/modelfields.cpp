#include "form/modelfields.h"

#include "model/modelspec.h"
#include "util/limits.h"
#include "widgets/formstyle.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

#include <exception>

namespace hwl::ui {

namespace {
constexpr int kMaxWidth = int(limits::kMaxWidth);

QSpinBox* sizeSpin(const char* name, int value, const QString& tip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(QString::fromLatin1(name));
    spin->setRange(1, kMaxWidth);
    spin->setValue(value);
    spin->setGroupSeparatorShown(true);
    spin->setToolTip(tip);
    return spin;
}
} // namespace

ModelFields::ModelFields(QWidget* parent) : QGroupBox(tr("Model"), parent) {
    form_ = makeForm(this);

    kind_ = new QComboBox;
    kind_->setObjectName("modelKind");
    kind_->addItem(tr("MLP"), int(ModelSpec::Kind::Mlp));
    kind_->addItem(tr("Embedding bag"), int(ModelSpec::Kind::EmbeddingBag));
    kind_->addItem(tr("CNN (mnist_hogwild)"), int(ModelSpec::Kind::Cnn));
    kind_->setItemData(0,
                       tr("Fully connected layers with an activation between them, softmax "
                          "cross-entropy; works on dense and sparse data"),
                       Qt::ToolTipRole);
    kind_->setItemData(1,
                       tr("Mean of the embeddings of a sparse row's tokens, then linear D -> "
                          "C; needs a sparse dataset (sparse-bow or LIBSVM)"),
                       Qt::ToolTipRole);
    kind_->setItemData(2,
                       tr("PyTorch's examples/mnist_hogwild network: two 5x5 convolutions with "
                          "max-pooling, dropout and two linear layers over 28x28 images "
                          "(Fashion-MNIST, an IDX folder); trains on the CPU"),
                       Qt::ToolTipRole);
    form_->addRow(tr("Kind"), kind_);

    widths_ = new QLineEdit;
    widths_->setObjectName("modelWidths");
    widths_->setPlaceholderText("784-128-10");
    widths_->setToolTip(tr("Layer widths, input first: IN-H1-...-OUT (IN-OUT is logistic "
                           "regression). IN must equal the dataset's features, OUT at least its "
                           "classes."));
    form_->addRow(tr("Widths"), widths_);

    activation_ = new QComboBox;
    activation_->setObjectName("modelActivation");
    for (Activation a : {Activation::Relu, Activation::Tanh, Activation::Sigmoid})
        activation_->addItem(QString::fromLatin1(toString(a)), int(a));
    activation_->setToolTip(tr("Activation between the hidden layers"));
    form_->addRow(tr("Activation"), activation_);

    vocab_ = sizeSpin("modelVocab", 5000,
                      tr("V: vocabulary size (rows of the embedding table); at least the "
                         "dataset's vocabulary"));
    dim_ = sizeSpin("modelDim", 32, tr("D: embedding dimension"));
    classes_ = sizeSpin("modelClasses", 4, tr("C: classes; at least the dataset's classes"));
    form_->addRow(tr("Vocabulary V"), vocab_);
    form_->addRow(tr("Dimension D"), dim_);
    form_->addRow(tr("Classes C"), classes_);

    dropout_ = new QDoubleSpinBox;
    dropout_->setObjectName("dropout");
    dropout_->setRange(0, 0.95);
    dropout_->setSingleStep(0.05);
    dropout_->setDecimals(6);
    dropout_->setValue(0.5);
    dropout_->setToolTip(tr("The chance that dropout zeroes a conv2 channel or an fc1 unit "
                            "while training, as the example's Dropout2d and dropout; 0 turns "
                            "it off. Evaluation never drops."));
    form_->addRow(tr("Dropout"), dropout_);

    error_ = makeNoteLabel("error");
    error_->setObjectName("modelError");
    form_->addRow(error_);

    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        updateVisibility();
        onEdited();
    });
    connect(widths_, &QLineEdit::textChanged, this, &ModelFields::onEdited);
    connect(activation_, &QComboBox::currentIndexChanged, this, &ModelFields::onEdited);
    for (QSpinBox* spin : {vocab_, dim_, classes_})
        connect(spin, &QSpinBox::valueChanged, this, &ModelFields::onEdited);
    connect(dropout_, &QDoubleSpinBox::valueChanged, this, &ModelFields::onEdited);
    setSpecText("mlp:784-128-10");
}

bool ModelFields::isEmbeddingBag() const {
    return kind_->currentData().toInt() == int(ModelSpec::Kind::EmbeddingBag);
}

bool ModelFields::isCnn() const {
    return kind_->currentData().toInt() == int(ModelSpec::Kind::Cnn);
}

double ModelFields::dropout() const {
    return dropout_->value();
}

void ModelFields::setDropout(double p) {
    const bool wasFilling = filling_;
    filling_ = true;
    dropout_->setValue(p);
    filling_ = wasFilling;
}

QString ModelFields::specText() const {
    if (!raw_.isNull())
        return raw_;
    if (isCnn())
        return QStringLiteral("cnn:mnist");
    if (isEmbeddingBag())
        return QStringLiteral("embedding-bag:%1-%2-%3")
            .arg(vocab_->value())
            .arg(dim_->value())
            .arg(classes_->value());
    QString widths = widths_->text();
    widths.remove(QLatin1Char(' '));
    QString text = QStringLiteral("mlp:") + widths;
    const auto act = Activation(activation_->currentData().toInt());
    if (act != Activation::Relu)
        text += QLatin1Char(':') + QString::fromLatin1(toString(act));
    return text;
}

void ModelFields::setSpecText(const QString& text) {
    filling_ = true;
    raw_ = QString();
    try {
        const ModelSpec spec = parseModelSpec(text.toStdString());
        kind_->setCurrentIndex(kind_->findData(int(spec.kind)));
        if (spec.kind == ModelSpec::Kind::Mlp) {
            QStringList parts;
            for (auto w : spec.layers)
                parts << QString::number(w);
            widths_->setText(parts.join(QLatin1Char('-')));
            activation_->setCurrentIndex(activation_->findData(int(spec.activation)));
        } else if (spec.kind == ModelSpec::Kind::EmbeddingBag) {
            vocab_->setValue(int(spec.vocab));
            dim_->setValue(int(spec.dim));
            classes_->setValue(int(spec.classes));
        }
    } catch (const std::exception&) {
        // Keep the text; show its MLP part where there is one.
        const bool bag = text.startsWith(QLatin1String("embedding-bag:"));
        kind_->setCurrentIndex(
            kind_->findData(int(bag ? ModelSpec::Kind::EmbeddingBag : ModelSpec::Kind::Mlp)));
        if (!bag)
            widths_->setText(text.startsWith(QLatin1String("mlp:")) ? text.mid(4) : text);
        activation_->setCurrentIndex(0);
        raw_ = text.isNull() ? QStringLiteral("") : text;
    }
    filling_ = false;
    updateVisibility();
}

QWidget* ModelFields::mainEditor() const {
    if (isEmbeddingBag())
        return vocab_;
    if (isCnn())
        return kind_;
    return widths_;
}

QList<QWidget*> ModelFields::editors() const {
    if (isEmbeddingBag())
        return {vocab_, dim_, classes_};
    if (isCnn())
        return {kind_};
    return {widths_};
}

void ModelFields::onEdited() {
    if (filling_)
        return;
    raw_ = QString();
    emit edited();
}

void ModelFields::updateVisibility() {
    const bool bag = isEmbeddingBag(), cnn = isCnn(), mlp = !bag && !cnn;
    form_->setRowVisible(widths_, mlp);
    form_->setRowVisible(activation_, mlp);
    form_->setRowVisible(vocab_, bag);
    form_->setRowVisible(dim_, bag);
    form_->setRowVisible(classes_, bag);
    form_->setRowVisible(dropout_, cnn);
    // The error sits under the field it is about: the widths (an MLP's
    // errors are about them, not the activation), V, D, C, or the CNN's
    // dropout (its errors: a dataset it does not fit).
    QWidget* above = bag   ? static_cast<QWidget*>(classes_)
                     : cnn ? static_cast<QWidget*>(dropout_)
                           : static_cast<QWidget*>(widths_);
    int errorRow = -1, aboveRow = -1;
    QFormLayout::ItemRole role;
    form_->getWidgetPosition(error_, &errorRow, &role);
    form_->getWidgetPosition(above, &aboveRow, &role);
    if (errorRow == aboveRow + 1)
        return;
    const bool shown = !error_->isHidden();
    const QFormLayout::TakeRowResult taken = form_->takeRow(errorRow);
    form_->getWidgetPosition(above, &aboveRow, &role);
    QLayoutItem* item = taken.fieldItem ? taken.fieldItem : taken.labelItem;
    form_->insertRow(aboveRow + 1, item->widget());
    delete item;
    error_->setVisible(shown);
}

} // namespace hwl::ui
