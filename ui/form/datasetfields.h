#pragma once
// The "Dataset" group of the experiment form: the source kind, its sizes
// (synthetic kinds) or its path (IDX folder, CSV, LIBSVM file) with a Browse
// button, and the test fraction. It edits ExperimentConfig::dataset and
// ::testFraction. GUI thread only.
#include "data/datasetspec.h"
#include "widgets/fieldnote.h"

#include <QGroupBox>
#include <QString>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QWidget;

namespace hwl::ui {

class DatasetFields : public QGroupBox {
    Q_OBJECT
public:
    /// `fashionMnistAvailable`: when false the Fashion-MNIST item is disabled
    /// and its tooltip says how to install it.
    explicit DatasetFields(bool fashionMnistAvailable, QWidget* parent = nullptr);

    /// The dataset text built from the widgets (canonical when valid:
    /// random:10000x100:10, teacher:...:32, csv:/path/file.csv, ...).
    QString specText() const;
    /// Fills the widgets from a dataset text. A text that does not parse is
    /// kept as is and returned by specText() until the next edit.
    void setSpecText(const QString& text);
    double testFraction() const;
    /// Range 0..0.99, 4 decimals.
    void setTestFraction(double fraction);
    /// --normalize's text (data/normalize.h), as typed or chosen.
    QString normalizeText() const;
    void setNormalizeText(const QString& text);

    DatasetSpec::Kind kind() const;
    /// The main editor: the path edit for file kinds, the kind combo otherwise.
    QWidget* mainEditor() const;
    QLabel* errorLabel() const { return error_; }
    QLabel* testFractionErrorLabel() const { return testFractionError_; }
    QLabel* noteLabel() const { return note_; }

    QComboBox* kindCombo() const { return kind_; }
    QSpinBox* rowsSpin() const { return rows_; }
    QSpinBox* dimSpin() const { return dim_; }
    QSpinBox* classesSpin() const { return classes_; }
    QSpinBox* hiddenSpin() const { return hidden_; }
    QSpinBox* tokensSpin() const { return tokens_; }
    QLineEdit* pathEdit() const { return path_; }
    QPushButton* browseButton() const { return browse_; }
    QDoubleSpinBox* testFractionSpin() const { return testFraction_; }
    QComboBox* normalizeCombo() const { return normalize_; }
    QLabel* normalizeErrorLabel() const { return normalizeError_; }

signals:
    /// Any edit (by the user or programmatic, not by setSpecText()).
    void edited();

private:
    void buildKindRow(bool fashionMnistAvailable);
    void buildShapeRows();
    void buildPathRows();
    void onEdited();
    void browse();
    void updateVisibility();

    QFormLayout* form_ = nullptr;
    QComboBox* kind_ = nullptr;
    QSpinBox* rows_ = nullptr;
    QSpinBox* dim_ = nullptr;
    QSpinBox* classes_ = nullptr;
    QSpinBox* hidden_ = nullptr;
    QSpinBox* tokens_ = nullptr;
    QWidget* pathRow_ = nullptr;
    QLineEdit* path_ = nullptr;
    QPushButton* browse_ = nullptr;
    FieldNote* error_ = nullptr; ///< hung under mainEditor(); the form takes it over
    QDoubleSpinBox* testFraction_ = nullptr;
    FieldNote* testFractionError_ = nullptr;
    QComboBox* normalize_ = nullptr; ///< editable: the three names, or MEAN,STD typed
    FieldNote* normalizeError_ = nullptr;
    QLabel* note_ = nullptr;
    QString raw_; ///< an unparsable text from setSpecText(), until the next edit
    bool filling_ = false;
};

} // namespace hwl::ui
