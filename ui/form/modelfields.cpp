#include "form/modelfields.h"
#include "form/layerlisteditor.h"

#include "config/experimentconfig.h"
#include "model/modelspec.h"
#include "util/errors.h"
#include "util/limits.h"
#include "widgets/fieldnote.h"
#include "widgets/formstyle.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>

#include <exception>

namespace hwl::ui {

namespace {
constexpr int kMaxWidth = int(limits::kMaxWidth);

constexpr int kNet = int(ModelSpec::Kind::Net);

/// An MLP's layer list: mlp:784-128-10 is net:784:fc128,relu,fc10.
QStringList mlpLayers(const ModelSpec& mlp) {
    QStringList layers;
    for (std::size_t i = 1; i < mlp.layers.size(); ++i) {
        if (i > 1)
            layers << QString::fromLatin1(toString(mlp.activation));
        layers << QStringLiteral("fc%1").arg(mlp.layers[i]);
    }
    return layers;
}

QStringList layerTexts(const std::vector<Layer>& layers) {
    QStringList texts;
    for (const Layer& layer : layers)
        texts << QString::fromStdString(toString(layer));
    return texts;
}

/// The model kinds, each with what it is in its tooltip.
QComboBox* makeKindCombo() {
    const struct {
        const char* label;
        ModelSpec::Kind kind;
        const char* tip;
    } kinds[] = {
        {QT_TRANSLATE_NOOP("hwl::ui::ModelFields", "MLP"), ModelSpec::Kind::Mlp,
         QT_TRANSLATE_NOOP("hwl::ui::ModelFields",
                           "Fully connected layers with an activation between them, softmax "
                           "cross-entropy; works on dense and sparse data")},
        {QT_TRANSLATE_NOOP("hwl::ui::ModelFields", "Embedding bag"), ModelSpec::Kind::EmbeddingBag,
         QT_TRANSLATE_NOOP("hwl::ui::ModelFields",
                           "Mean of the embeddings of a sparse row's tokens, then linear D -> "
                           "C; needs a sparse dataset (sparse-bow or LIBSVM)")},
        {QT_TRANSLATE_NOOP("hwl::ui::ModelFields", "CNN (mnist_hogwild)"), ModelSpec::Kind::Cnn,
         QT_TRANSLATE_NOOP("hwl::ui::ModelFields",
                           "PyTorch's examples/mnist_hogwild network: two 5x5 convolutions with "
                           "max-pooling, dropout and two linear layers over 28x28 images "
                           "(Fashion-MNIST, an IDX folder); trains on the CPU")},
        {QT_TRANSLATE_NOOP("hwl::ui::ModelFields", "Layer list"), ModelSpec::Kind::Net,
         QT_TRANSLATE_NOOP("hwl::ui::ModelFields",
                           "Any stack of convolutions, pools, activations, dropout, flatten and "
                           "linear layers over an input shape (--model net:SHAPE:LAYERS), as "
                           "PyTorch's nn.Sequential of the same layers; dense data; the GPU modes "
                           "take only the lists that spell an MLP or cnn:mnist")},
    };
    auto* combo = new QComboBox;
    combo->setObjectName("modelKind");
    for (const auto& k : kinds) {
        combo->addItem(ModelFields::tr(k.label), int(k.kind));
        combo->setItemData(combo->count() - 1, ModelFields::tr(k.tip), Qt::ToolTipRole);
    }
    return combo;
}

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

    kind_ = makeKindCombo();
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

    layers_ = new LayerListEditor;
    form_->addRow(tr("Input shape"), layers_->shapeEdit());
    form_->addRow(layers_);

    dropout_ = new QDoubleSpinBox;
    dropout_->setObjectName("dropout");
    dropout_->setRange(0, 0.95);
    dropout_->setSingleStep(0.05);
    dropout_->setDecimals(6);
    dropout_->setValue(0.5);
    dropout_->setToolTip(tr("The probability of the dropout layers written without one: the "
                            "chance that a dropout zeroes a unit (Dropout2d: a channel) while "
                            "training; for the CNN its conv2 channels and fc1 units, for a "
                            "layer list its dropout and dropout2d. 0 turns them off; "
                            "evaluation never drops."));
    form_->addRow(tr("Dropout"), dropout_);

    error_ = new FieldNote; // the form takes it over (ExperimentForm)
    error_->setObjectName("modelError");

    connect(kind_, &QComboBox::currentIndexChanged, this, &ModelFields::onKindChosen);
    connect(layers_, &LayerListEditor::edited, this, [this] {
        updateVisibility(); // a dropout layer may have come or gone
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

bool ModelFields::isLayerList() const {
    return kind_->currentData().toInt() == kNet;
}

double ModelFields::dropout() const {
    return dropout_->value();
}

void ModelFields::setDropout(double p) {
    const bool wasFilling = filling_;
    filling_ = true;
    dropout_->setValue(p);
    filling_ = wasFilling;
    updateVisibility();
}

QString ModelFields::mlpText() const {
    QString widths = widths_->text();
    widths.remove(QLatin1Char(' '));
    QString text = QStringLiteral("mlp:") + widths;
    const auto act = Activation(activation_->currentData().toInt());
    if (act != Activation::Relu)
        text += QLatin1Char(':') + QString::fromLatin1(toString(act));
    return text;
}

QString ModelFields::specText() const {
    if (!raw_.isNull())
        return raw_;
    if (isCnn())
        return QStringLiteral("cnn:mnist");
    if (isLayerList())
        return layers_->specText();
    if (isEmbeddingBag())
        return QStringLiteral("embedding-bag:%1-%2-%3")
            .arg(vocab_->value())
            .arg(dim_->value())
            .arg(classes_->value());
    return mlpText();
}

void ModelFields::setSpecText(const QString& text) {
    filling_ = true;
    raw_ = QString();
    try {
        const ModelSpec spec = parseModelSpec(text.toStdString());
        kind_->setCurrentIndex(kind_->findData(int(spec.kind)));
        if (spec.kind == ModelSpec::Kind::Mlp) {
            fillWidths(spec);
        } else if (spec.kind == ModelSpec::Kind::EmbeddingBag) {
            vocab_->setValue(int(spec.vocab));
            dim_->setValue(int(spec.dim));
            classes_->setValue(int(spec.classes));
        } else if (spec.kind == ModelSpec::Kind::Net) {
            layers_->setList(QString::fromStdString(toString(spec.input)), layerTexts(spec.net));
        }
    } catch (const std::exception&) {
        // Keep the text; show its MLP part, or a list's shape and layers, where there is one.
        const bool bag = text.startsWith(QLatin1String("embedding-bag:"));
        const bool net = text.startsWith(QLatin1String("net:"));
        kind_->setCurrentIndex(kind_->findData(bag   ? int(ModelSpec::Kind::EmbeddingBag)
                                               : net ? kNet
                                                     : int(ModelSpec::Kind::Mlp)));
        if (net) {
            const QString list = text.section(QLatin1Char(':'), 2);
            layers_->setList(text.section(QLatin1Char(':'), 1, 1),
                             list.isEmpty() ? QStringList() : list.split(QLatin1Char(',')));
        } else if (!bag) {
            widths_->setText(text.startsWith(QLatin1String("mlp:")) ? text.mid(4) : text);
        }
        activation_->setCurrentIndex(0);
        raw_ = text.isNull() ? QStringLiteral("") : text;
    }
    shownKind_ = kind_->currentData().toInt();
    filling_ = false;
    updateVisibility();
}

void ModelFields::fillWidths(const ModelSpec& mlp) {
    const bool wasFilling = filling_;
    filling_ = true;
    QStringList parts;
    for (auto w : mlp.layers)
        parts << QString::number(w);
    widths_->setText(parts.join(QLatin1Char('-')));
    activation_->setCurrentIndex(activation_->findData(int(mlp.activation)));
    filling_ = wasFilling;
}

void ModelFields::onKindChosen() {
    const int kind = kind_->currentData().toInt();
    if (!filling_) {
        // Start from the network shown before: never an empty list.
        try {
            if (kind == kNet && shownKind_ == int(ModelSpec::Kind::Mlp)) {
                const ModelSpec mlp = parseModelSpec(mlpText().toStdString());
                layers_->setList(QString::number(mlp.layers.front()), mlpLayers(mlp));
            } else if (kind == kNet && shownKind_ == int(ModelSpec::Kind::Cnn)) {
                layers_->setList(QStringLiteral("1x28x28"), layerTexts(mnistLayers()));
            } else if (kind == int(ModelSpec::Kind::Mlp) && shownKind_ == kNet) {
                const std::string mlp =
                    parseModelSpec(layers_->specText().toStdString()).mlpEquivalent();
                if (!mlp.empty())
                    fillWidths(parseModelSpec(mlp));
            }
        } catch (const InputError&) {
            // What was shown is not a valid network: keep what the kind had.
        }
    }
    shownKind_ = kind;
    updateVisibility();
    onEdited();
}

QWidget* ModelFields::mainEditor() const {
    if (isEmbeddingBag())
        return vocab_;
    if (isCnn())
        return kind_;
    if (isLayerList())
        return editors().constFirst();
    return widths_;
}

QList<QWidget*> ModelFields::editors() const {
    if (isEmbeddingBag())
        return {vocab_, dim_, classes_};
    if (isCnn())
        return {kind_};
    if (isLayerList()) {
        // The engine's refusal of the list names its shape or a row; a
        // dataset it does not fit may be about either.
        if (layers_->shapeIsWrong())
            return {layers_->shapeEdit()};
        if (!layers_->problem().isEmpty())
            return {layers_->table()};
        return {layers_->table(), layers_->shapeEdit()};
    }
    return {widths_};
}

QList<QWidget*> ModelFields::allEditors() const {
    return {widths_, vocab_, dim_, classes_, layers_->shapeEdit(), layers_->table()};
}

void ModelFields::onEdited() {
    if (filling_)
        return;
    raw_ = QString();
    emit edited();
}

void ModelFields::updateVisibility() {
    const bool bag = isEmbeddingBag(), cnn = isCnn(), net = isLayerList();
    const bool mlp = !bag && !cnn && !net;
    form_->setRowVisible(widths_, mlp);
    form_->setRowVisible(activation_, mlp);
    form_->setRowVisible(vocab_, bag);
    form_->setRowVisible(dim_, bag);
    form_->setRowVisible(classes_, bag);
    form_->setRowVisible(layers_->shapeEdit(), net);
    form_->setRowVisible(layers_, net);
    // Where a layer reads it, or where it holds a value the form refuses
    // for this model (so that the refusal is seen at the field).
    form_->setRowVisible(dropout_, cnn || (net && layers_->usesDropoutField()) ||
                                       dropout_->value() != ExperimentConfig().dropout);
    // The error sits under the field it is about: the widths (an MLP's
    // errors are about them, not the activation), V, D, C, the layer list,
    // or the CNN's dropout (its errors: a dataset it does not fit).
    placeError(bag   ? static_cast<QWidget*>(classes_)
               : cnn ? static_cast<QWidget*>(dropout_)
               : net ? static_cast<QWidget*>(layers_)
                     : static_cast<QWidget*>(widths_));
}

void ModelFields::placeError(QWidget* above) {
    error_->setAnchor(above, this); // shown while any of the model's fields is in use
}

} // namespace hwl::ui
