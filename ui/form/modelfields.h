#pragma once
// The "Model" group of the experiment form: model kind, and the MLP's layer
// widths and activation, the embedding bag's V, D, C, or a layer list's
// input shape and layers (LayerListEditor); the dropout field where a layer
// takes it (cnn:mnist, a list's dropout written without a probability).
// It edits the `--model` text (ExperimentConfig::model) and `--dropout`.
//
// Choosing "Layer list" starts from the network the group showed: an MLP's
// layers (mlp:784-128-10 is net:784:fc128,relu,fc10), cnn:mnist's list;
// from the embedding bag, which no list spells, the list it had. Going back
// to MLP from a list that spells one (fc layers with one activation) shows
// its widths. GUI thread only.
#include "model/modelspec.h"
#include "widgets/fieldnote.h"

#include <QGroupBox>
#include <QString>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace hwl::ui {

class LayerListEditor;

class ModelFields : public QGroupBox {
    Q_OBJECT
public:
    explicit ModelFields(QWidget* parent = nullptr);

    /// The model text built from the widgets, canonical when valid
    /// (mlp:784-128-10, mlp:20-8-4:tanh, embedding-bag:5000-32-4,
    /// net:784:fc128,relu,fc10).
    QString specText() const;
    /// Fills the widgets from a model text. A text that does not parse is
    /// kept as is and returned by specText() until the next edit, so its
    /// error stays visible instead of being silently replaced.
    void setSpecText(const QString& text);

    bool isEmbeddingBag() const;
    bool isCnn() const;
    bool isLayerList() const;
    /// The dropout layers' probability (ExperimentConfig::dropout); setting
    /// it is not an edit. Its row shows where a layer takes it
    /// (ModelSpec::usesDropoutField()) or where it holds another value than
    /// the default (which the form then refuses at it).
    double dropout() const;
    void setDropout(double p);
    /// The main editor: the widths edit (MLP), the V spin box (embedding
    /// bag), the kind (the CNN has no sizes), or a layer list's table (its
    /// input shape when that is what the engine refuses).
    QWidget* mainEditor() const;
    /// Every editor an error about the model is marked on (the visible ones).
    QList<QWidget*> editors() const;
    /// Every editor that editors() may name, shown or not.
    QList<QWidget*> allEditors() const;
    QLabel* errorLabel() const { return error_; }

    QComboBox* kindCombo() const { return kind_; }
    QLineEdit* widthsEdit() const { return widths_; }
    QComboBox* activationCombo() const { return activation_; }
    QSpinBox* vocabSpin() const { return vocab_; }
    QSpinBox* dimSpin() const { return dim_; }
    QSpinBox* classesSpin() const { return classes_; }
    QDoubleSpinBox* dropoutSpin() const { return dropout_; }
    LayerListEditor* layerList() const { return layers_; }

signals:
    /// Any edit (by the user or programmatic, not by setSpecText()).
    void edited();

private:
    /// The mlp: text of the widths and activation.
    QString mlpText() const;
    void onEdited();
    void onKindChosen();
    void fillWidths(const ModelSpec& mlp);
    void updateVisibility();
    /// Hangs the model's message under `above`, the field it is about.
    void placeError(QWidget* above);

    QFormLayout* form_ = nullptr;
    QComboBox* kind_ = nullptr;
    QLineEdit* widths_ = nullptr;
    QComboBox* activation_ = nullptr;
    QSpinBox* vocab_ = nullptr;
    QSpinBox* dim_ = nullptr;
    QSpinBox* classes_ = nullptr;
    QDoubleSpinBox* dropout_ = nullptr;
    LayerListEditor* layers_ = nullptr;
    FieldNote* error_ = nullptr;
    int shownKind_ = 0; ///< the kind the widgets showed before the combo changed
    QString raw_;       ///< an unparsable text from setSpecText(), until the next edit
    bool filling_ = false;
};

} // namespace hwl::ui
