#pragma once
// The "Model" group of the experiment form: model kind, and the MLP's layer
// widths and activation, the embedding bag's V, D, C, or the CNN's dropout.
// It edits the `--model` text (ExperimentConfig::model) and `--dropout`.
// GUI thread only.
#include <QGroupBox>
#include <QString>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace hwl::ui {

class ModelFields : public QGroupBox {
    Q_OBJECT
public:
    explicit ModelFields(QWidget* parent = nullptr);

    /// The model text built from the widgets, canonical when valid
    /// (mlp:784-128-10, mlp:20-8-4:tanh, embedding-bag:5000-32-4).
    QString specText() const;
    /// Fills the widgets from a model text. A text that does not parse is
    /// kept as is and returned by specText() until the next edit, so its
    /// error stays visible instead of being silently replaced.
    void setSpecText(const QString& text);

    bool isEmbeddingBag() const;
    bool isCnn() const;
    /// The CNN's dropout probability (ExperimentConfig::dropout); setting it
    /// is not an edit.
    double dropout() const;
    void setDropout(double p);
    /// The main editor: the widths edit (MLP), the V spin box (embedding
    /// bag) or the kind (the CNN has no sizes).
    QWidget* mainEditor() const;
    /// Every editor an error about the model is marked on (the visible ones).
    QList<QWidget*> editors() const;
    QLabel* errorLabel() const { return error_; }

    QComboBox* kindCombo() const { return kind_; }
    QLineEdit* widthsEdit() const { return widths_; }
    QComboBox* activationCombo() const { return activation_; }
    QSpinBox* vocabSpin() const { return vocab_; }
    QSpinBox* dimSpin() const { return dim_; }
    QSpinBox* classesSpin() const { return classes_; }
    QDoubleSpinBox* dropoutSpin() const { return dropout_; }

signals:
    /// Any edit (by the user or programmatic, not by setSpecText()).
    void edited();

private:
    void onEdited();
    void updateVisibility();

    QFormLayout* form_ = nullptr;
    QComboBox* kind_ = nullptr;
    QLineEdit* widths_ = nullptr;
    QComboBox* activation_ = nullptr;
    QSpinBox* vocab_ = nullptr;
    QSpinBox* dim_ = nullptr;
    QSpinBox* classes_ = nullptr;
    QDoubleSpinBox* dropout_ = nullptr;
    QLabel* error_ = nullptr;
    QString raw_; ///< an unparsable text from setSpecText(), until the next edit
    bool filling_ = false;
};

} // namespace hwl::ui
