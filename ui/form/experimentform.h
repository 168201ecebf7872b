#pragma once
// ExperimentForm: the experiment panel of the main window. It edits every
// ExperimentConfig field except `init`, `out` and `tensorboard` (the window
// sets those via its menus; the form keeps whatever setConfig() received
// and returns them).
//
// Groups: Model (ModelFields), Dataset (DatasetFields), Parallelism
// (ParallelismFields, made from the engine's strategy catalog), Optimizer.
// After every edit the form validates: ExperimentConfig::validate() plus the
// engine's checks before loading (checkBeforeLoading: dataset files and
// folders exist, the model fits a dataset whose shape is known, Fashion-MNIST
// is installed). Each problem is shown AT its field: a red frame (dynamic
// property "hwlError" = true, see formstyle.h), the message first in the
// editor's tooltip, and a red label under it; the first problem is also
// said in a line at the top of the form (problemSummary(), also Start's
// tooltip in the window), so that an error two scrolls below view is not a
// mystery. Messages use the form's words: a field's key or flag in an
// engine message ("--momentum 0") becomes the label of its row ("Momentum 0").
//
// GPU modes: startGpuProbe() looks for CUDA devices once, on a thread of its
// own (the probe is a child process and may take a second); until it
// answers, the GPU modes stay selectable. When it finds none, they are
// listed disabled with one sentence (noGpuSentence()) as their tooltip and
// under the mode list, and a chosen GPU mode is the form's error.
//
// Spin boxes and combo boxes take the mouse wheel only once focused: a
// wheel over an unfocused one scrolls the form instead of editing it.
//
// The form has no scroll area of its own: put it in a QScrollArea (the main
// window does). It fits a ~340 px wide dock. GUI thread only.
#include "config/experimentconfig.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>

class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QVBoxLayout;

namespace hwl::ui {

class ModelFields;
class DatasetFields;
class OptimizerFields;
class TargetFields;
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
    /// unknown names). "model": the widths edit (MLP), the V spin box
    /// (embedding bag) or the layer table (a layer list); "dataset": the path edit (IDX / CSV /
    /// LIBSVM) or the source combo.
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

    /// The first problem in the form's order, in one line: "Momentum: GPU
    /// Hogwild (CUDA blocks) takes plain SGD (Momentum 0): ..." (plus how
    /// many more fields are marked). Empty when valid. Shown at the top of
    /// the form; the window makes it Start's tooltip.
    QString problemSummary() const;
    QLabel* problemSummaryLabel() const { return summary_; }
    /// What the form calls a field (JSON name): its row's label ("Learning
    /// rate"), a check box's text in quotes, the group's title for model
    /// and dataset; the name itself for fields the form does not show.
    QString fieldLabel(const QString& field) const;
    /// An engine message about `field` in the form's words (FormWords).
    QString inFormWords(const QString& field, QString message) const;

    /// Looks for CUDA devices once, in the background (nothing in builds
    /// without the CUDA backend: the catalog lists the GPU modes as not
    /// built); the answer comes to setGpuAvailability(). Also started by
    /// choosing a GPU mode while nothing is known.
    void startGpuProbe();
    /// What the probe found: `detail` is the devices when `available`, else
    /// what CUDA reported. Unavailable: the GPU modes and the cuda device
    /// are disabled with noGpuSentence(detail) and a chosen one makes the
    /// form invalid with it (so Start is disabled before anything is reset).
    void setGpuAvailability(bool available, const QString& detail);
    /// Whether the probe answered (or setGpuAvailability() was called).
    bool gpuAvailabilityKnown() const { return gpuKnown_; }
    bool gpuAvailable() const { return gpuKnown_ && gpuMissing_.isEmpty(); }
    /// "No GPU found on this machine (CUDA reported: ...): GPU modes are
    /// unavailable".
    static QString noGpuSentence(const QString& reported);

signals:
    void validityChanged(bool valid);
    /// After every edit and after setConfig().
    void changed();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildOptimizer(QVBoxLayout* column);
    /// The row that shows an experiment's out folder while it is set, with
    /// Forget; showOut() fills it from out_.
    void buildOutRow(QVBoxLayout* column);
    void showOut();
    void onEdited();
    void revalidate();
    /// The summary line: the first problem cut to the line, and Show.
    void showSummary();
    QMap<QString, QString> findProblems() const;
    void showProblems(const QMap<QString, QString>& found);
    /// The problem fields in the form's order (then any others).
    QStringList orderedProblemFields() const;
    /// Scrolls the form's scroll area to a field and focuses it.
    void showField(const QString& field);

    ModelFields* model_ = nullptr;
    DatasetFields* dataset_ = nullptr;
    ParallelismFields* parallelism_ = nullptr;
    QWidget* content_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QLineEdit* lr_ = nullptr;
    OptimizerFields* optimizer_ = nullptr; ///< the optimizer and its hyper-parameters
    TargetFields* target_ = nullptr;       ///< the target to train to
    QFormLayout* optimiserForm_ = nullptr;
    QLineEdit* weightDecay_ = nullptr;
    QLineEdit* lrSchedule_ = nullptr;
    QSpinBox* warmupSteps_ = nullptr;
    QSpinBox* accumulate_ = nullptr;
    QSpinBox* epochs_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QMap<QString, QLabel*> errorLabels_;
    QLabel* summary_ = nullptr;
    bool gpuKnown_ = false;
    bool probing_ = false;
    QString gpuMissing_; ///< noGpuSentence(), once the probe found no device

    std::string init_, resume_, out_, tensorboard_;
    QWidget* outRow_ = nullptr;
    QLabel* outLabel_ = nullptr;
    std::uint64_t lastSeed_ = 42;
    QMap<QString, QString> problems_;
    bool running_ = false;
    bool filling_ = false;
};

} // namespace hwl::ui
