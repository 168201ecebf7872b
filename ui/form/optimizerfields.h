#pragma once
// The optimizer's rows of the experiment form's Optimizer group: the
// update rule (--optimizer) and each rule's hyper-parameters (momentum and
// Nesterov for SGD, the betas, eps, RMSprop's alpha, Adagrad's rate decay
// and initial accumulator) and where the Hogwild modes keep its state
// (--optimizer-state: per-worker or shared). A row is shown and enabled where the field
// table says its field applies (fieldApplies(): the chosen optimizer), and
// a hidden row's field is written as its default, as the validator wants.
// GUI thread only.
#include "config/experimentconfig.h"

#include <QMap>
#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLayout;
class QLabel;
class QLineEdit;
class QWidget;

namespace hwl::ui {

class OptimizerFields : public QObject {
    Q_OBJECT
public:
    /// Gives a field its error: the field's JSON key, and whether it is
    /// typed (its message hangs under its editor: widgets/fieldnote.h) or
    /// a choice (its message a row under the last row).
    using AddError = std::function<void(const char*, bool)>;

    explicit OptimizerFields(QObject* parent = nullptr);

    /// Adds the hyper-parameters' rows to `form` (momentum and Nesterov on
    /// one row), each followed by its error's. The optimizer's combo
    /// (fieldWidget("optimizer")) and the state's (fieldWidget("optimizer-state"),
    /// shown where it applies) go where the form puts them: beside the
    /// learning rate.
    void addRows(QFormLayout* form, const AddError& addError);
    /// Reads the editors into `c` (a number that does not parse: NaN), then
    /// writes the default of every field that does not apply to `c`.
    void apply(ExperimentConfig& c) const;
    void setConfig(const ExperimentConfig& c);
    /// Shows and enables each row in `form` where its field applies to `c`.
    void showRows(QFormLayout* form, const ExperimentConfig& c) const;
    /// The editor of a field (JSON key), or null.
    QWidget* fieldWidget(const QString& field) const;
    /// The number fields that apply to `c` and whose text does not parse:
    /// JSON key -> "\"text\" is not a number; e.g. 0.9".
    QMap<QString, QString> unparsedNumbers(const ExperimentConfig& c) const;
    /// Whether `field` is a number these rows edit.
    bool isNumber(const QString& field) const;
    /// The note under the rate (the form puts it there): a rate far above
    /// the rule's usual one, said when the rule is chosen or the rate
    /// typed (on leaving it, not at each key: the form does not jump).
    QLabel* rateHint() const { return rateHint_; }
    void updateRateHint(const ExperimentConfig& c);
    /// What rateHint() says of `c`: empty unless its rate is at least ten
    /// times the rule's torch.optim default ("Adam usually takes a learning
    /// rate near 0.001 (torch.optim's default); 0.03 is 30 times that").
    static QString rateHintFor(const ExperimentConfig& c);

signals:
    /// Any edit by the user or programmatic (not by setConfig()).
    void edited();

private:
    struct Number {
        const char* key;
        QLineEdit* edit;
        double ExperimentConfig::*member;
        const char* example;
    };

    QComboBox* optimizer_ = nullptr;
    QComboBox* sharing_ = nullptr; ///< optimizer-state: per-worker | shared
    QCheckBox* nesterov_ = nullptr;
    QLayout* momentumRow_ = nullptr; ///< the momentum's edit and nesterov_
    std::vector<Number> numbers_;
    QLabel* rateHint_ = nullptr;
    mutable int hintedRule_ = -1; ///< the rule rateHint_ was last made for
    bool filling_ = false;
};

} // namespace hwl::ui
