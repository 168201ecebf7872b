#pragma once
// The "Model" group of the experiment form: model kind, and either the MLP's
// layer widths and activation or the embedding bag's V, D, C. It edits the
// `--model` text (ExperimentConfig::model). GUI thread only.
#include <QGroupBox>
#include <QString>

class QComboBox;
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
    /// The main editor: the widths edit (MLP) or the V spin box (embedding bag).
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
    QLabel* error_ = nullptr;
    QString raw_; ///< an unparsable text from setSpecText(), until the next edit
    bool filling_ = false;
};

} // namespace hwl::ui
