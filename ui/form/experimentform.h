#pragma once
// ExperimentForm: the experiment panel of the main window. It edits every
// ExperimentConfig field except `init` and `out` (the window sets those via
// its menus; the form keeps whatever setConfig() received and returns them).
//
// Groups: Model (ModelFields), Dataset (DatasetFields), Parallelism
// (ParallelismFields, made from the engine's strategy catalog), Optimiser.
// After every edit the form validates: ExperimentConfig::validate() plus the
// engine's checks before loading (checkBeforeLoading: dataset files and
// folders exist, the model fits a dataset whose shape is known, Fashion-MNIST
// is installed). Each problem is shown AT its field: a red frame (dynamic
// property "hwlError" = true, see formstyle.h), the message first in the
// editor's tooltip, and a red label under it.
//
// The form has no scroll area of its own: put it in a QScrollArea (the main
// window does). It fits a ~340 px wide dock. GUI thread only.
#include "config/experimentconfig.h"

#include <QMap>
#include <QString>
#include <QWidget>

class QLabel;
class QLineEdit;
class QSpinBox;
class QVBoxLayout;

namespace hwl::ui {

class ModelFields;
class DatasetFields;
class ParallelismFields;

class ExperimentForm : public QWidget {
    Q_OBJECT
public:
    /// Starts with ExperimentConfig::defaults().
    explicit ExperimentForm(QWidget* parent = nullptr);
    ~ExperimentForm() override;

    /// The experiment the fields describe (also when invalid: then
    /// validate() and problems() say why). Unparsable number texts give NaN
    /// (lr, momentum, weight-decay) or keep the last seed.
    hwl::ExperimentConfig config() const;
    /// Fills every field; config() == c afterwards for every valid c whose
    /// model and dataset texts are canonical (toString(parse(text)) == text)
    /// and whose test fraction is in [0, 0.99] with at most 4 decimals.
    /// A mode that fixes the worker count (serial) shows it. Emits changed(),
    /// and validityChanged() when the validity flips.
    void setConfig(const hwl::ExperimentConfig& c);

    /// Redraws the form in a light or dark window's colours. (A widget with
    /// a style sheet keeps the palette it had when the sheet was set: an
    /// application palette change alone leaves the form light.)
    void setDarkStyle(bool dark);

    bool isValid() const { return problems_.isEmpty(); }
    /// JSON field name ("model", "dataset", "workers", "lr", ...) -> the
    /// message shown at that field (several joined by newlines). Empty when
    /// valid.
    QMap<QString, QString> problems() const { return problems_; }
    /// The main editor of a field (JSON name), or nullptr (init, out,
    /// unknown names). "model": the widths edit (MLP) or the V spin box
    /// (embedding bag); "dataset": the path edit (IDX / CSV / LIBSVM) or the
    /// source combo.
    QWidget* fieldWidget(const QString& field) const;
    /// The red label under a field (nullptr for fields without one).
    QLabel* errorLabel(const QString& field) const;
    /// Inline warnings that do not make the experiment invalid.
    QLabel* workersWarning() const;
    QLabel* shareWarning() const;
    QLabel* startMethodNote() const;

    /// While running, nothing can be edited.
    void setRunning(bool running);
    bool isRunning() const { return running_; }

signals:
    void validityChanged(bool valid);
    /// After every edit and after setConfig().
    void changed();

private:
    void buildOptimiser(QVBoxLayout* column);
    void onEdited();
    void revalidate();
    QMap<QString, QString> findProblems() const;
    void showProblems(const QMap<QString, QString>& found);

    ModelFields* model_ = nullptr;
    DatasetFields* dataset_ = nullptr;
    ParallelismFields* parallelism_ = nullptr;
    QWidget* content_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QLineEdit* lr_ = nullptr;
    QLineEdit* momentum_ = nullptr;
    QLineEdit* weightDecay_ = nullptr;
    QSpinBox* epochs_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QMap<QString, QLabel*> errorLabels_;

    std::string init_, out_;
    std::uint64_t lastSeed_ = 42;
    QMap<QString, QString> problems_;
    bool running_ = false;
    bool filling_ = false;
};

} // namespace hwl::ui
