#include "form/optimizerfields.h"

#include "form/formeditors.h"

#include "strategy/validation.h"
#include "widgets/formstyle.h"
#include "widgets/numbers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>

#include <limits>
#include <string_view>

namespace hwl::ui {

namespace {
/// The fields of the rows that come and go with the optimizer (and, for
/// optimizer-state, the mode).
constexpr const char* kRowFields[] = {"momentum",
                                      "nesterov",
                                      "beta1",
                                      "beta2",
                                      "eps",
                                      "alpha",
                                      "lr-decay",
                                      "initial-accumulator",
                                      "optimizer-state"};
/// An eps left empty: the rule's own default (eps 0).
bool emptyEps(const char* key, const QLineEdit* edit) {
    return std::string_view(key) == "eps" && edit->text().trimmed().isEmpty();
}
} // namespace

OptimizerFields::OptimizerFields(QObject* parent) : QObject(parent) {
    optimizer_ = new QComboBox;
    optimizer_->setObjectName("optimizer");
    optimizer_->setAccessibleName(tr("Optimizer"));
    optimizer_->setToolTip(tr("The update rule, as torch.optim applies it; each worker keeps "
                              "its own state (AdamW: decoupled weight decay)"));
    for (const std::string& name : findField("optimizer")->choices())
        optimizer_->addItem(QString::fromStdString(name));
    sharing_ = new QComboBox;
    sharing_->setObjectName("optimizerState");
    sharing_->setAccessibleName(tr("Optimizer state"));
    sharing_->setToolTip(tr("Where the Hogwild workers keep the optimizer's state: per-worker "
                            "(each its own moments and step count, as PyTorch's mnist_hogwild) "
                            "or shared (one copy beside the shared parameters, updated without "
                            "a lock like them, one step count for all)"));
    for (const std::string& name : findField("optimizer-state")->choices())
        sharing_->addItem(QString::fromStdString(name));
    nesterov_ = new QCheckBox(tr("Nesterov"));
    nesterov_->setObjectName("nesterov");
    nesterov_->setToolTip(tr("SGD with Nesterov momentum (needs a momentum above 0)"));
    using C = ExperimentConfig;
    auto number = [this](const char* key, const char* name, const QString& what, double C::*member,
                         const char* example) {
        numbers_.push_back({key, makeNumberEdit(name, numberTip(key, what)), member, example});
    };
    number("momentum", "momentum", tr("SGD momentum; each worker keeps its own buffer"),
           &C::momentum, "0.9");
    number("beta1", "beta1", tr("Adam's first moment decay (betas[0])"), &C::beta1, "0.9");
    number("beta2", "beta2", tr("Adam's second moment decay (betas[1])"), &C::beta2, "0.999");
    number("eps", "eps",
           tr("The term added to the denominator; empty: the rule's default (shown greyed: "
              "1e-8, Adagrad's 1e-10)"),
           &C::eps, "1e-8");
    number("alpha", "alpha", tr("RMSprop's smoothing constant"), &C::alpha, "0.99");
    number("lr-decay", "lrDecay", tr("Adagrad's rate decay"), &C::lrDecay, "0");
    number("initial-accumulator", "initialAccumulator", tr("Adagrad's initial accumulator value"),
           &C::initialAccumulator, "0");
    rateHint_ = makeNoteLabel("warning");
    rateHint_->setObjectName("rateHint");
    connect(optimizer_, &QComboBox::currentIndexChanged, this, [this] {
        if (!filling_)
            emit edited();
    });
    connect(sharing_, &QComboBox::currentIndexChanged, this, [this] {
        if (!filling_)
            emit edited();
    });
    connect(nesterov_, &QCheckBox::toggled, this, [this] {
        if (!filling_)
            emit edited();
    });
    for (const Number& n : numbers_)
        connect(n.edit, &QLineEdit::textChanged, this, [this] {
            if (!filling_)
                emit edited();
        });
}

void OptimizerFields::addRows(QFormLayout* form, const AddError& addError) {
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(numbers_.front().edit, 1);
    row->addWidget(nesterov_);
    momentumRow_ = row;
    form->addRow(tr("Momentum"), row);
    addError("momentum", true); // typed: its message hangs under it
    addError("nesterov", false);
    const QString labels[] = {tr("Beta 1"), tr("Beta 2"),   tr("Epsilon"),
                              tr("Alpha"),  tr("LR decay"), tr("Initial accumulator")};
    for (std::size_t i = 1; i < numbers_.size(); ++i) {
        form->addRow(labels[i - 1], numbers_[i].edit);
        addError(numbers_[i].key, true);
    }
}

void OptimizerFields::apply(ExperimentConfig& c) const {
    c.optimizer =
        parseOptimizerKind(optimizer_->currentText().toStdString()).value_or(OptimizerKind::Sgd);
    c.nesterov = nesterov_->isChecked();
    c.optimizerState =
        parseStateSharing(sharing_->currentText().toStdString()).value_or(StateSharing::PerWorker);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const Number& n : numbers_)
        c.*n.member = emptyEps(n.key, n.edit) ? 0.0 : judged<double>(n.key, n.edit).value_or(nan);
    const ExperimentConfig read = c, defaults;
    for (const char* key : kRowFields) {
        const Field& f = *findField(key);
        if (!fieldApplies(f, read))
            f.set(c, f.get(defaults));
    }
}

void OptimizerFields::setConfig(const ExperimentConfig& c) {
    filling_ = true;
    optimizer_->setCurrentText(QString::fromLatin1(toString(c.optimizer)));
    nesterov_->setChecked(c.nesterov);
    sharing_->setCurrentText(QString::fromLatin1(toString(c.optimizerState)));
    for (const Number& n : numbers_) // eps 0: the rule's own, shown as the placeholder
        n.edit->setText(n.member == &ExperimentConfig::eps && c.eps == 0
                            ? QString()
                            : shortestNumber(c.*n.member));
    filling_ = false;
    updateRateHint(c);
}

void OptimizerFields::showRows(QFormLayout* form, const ExperimentConfig& c) const {
    for (const char* key : kRowFields) {
        QWidget* editor = fieldWidget(QLatin1String(key));
        const bool applies = fieldApplies(*findField(key), c);
        editor->setEnabled(applies);
        if (editor == sharing_) // beside the rule, on the rate's row
            editor->setVisible(applies);
        else if (momentumRow_->indexOf(editor) < 0)
            form->setRowVisible(editor, applies);
    }
    // Momentum and Nesterov share a row: SGD's.
    form->setRowVisible(momentumRow_, fieldApplies(*findField("momentum"), c));
    // An empty eps is the rule's own: its value shown greyed.
    fieldWidget(QStringLiteral("eps"))
        ->setProperty("placeholderText",
                      tr("default %1").arg(shortestNumber(defaultEps(c.optimizer))));
    if (int(c.optimizer) != hintedRule_) // a rule chosen: its usual rate, once
        const_cast<OptimizerFields*>(this)->updateRateHint(c);
}

QWidget* OptimizerFields::fieldWidget(const QString& field) const {
    if (field == QLatin1String("optimizer"))
        return optimizer_;
    if (field == QLatin1String("nesterov"))
        return nesterov_;
    if (field == QLatin1String("optimizer-state"))
        return sharing_;
    for (const Number& n : numbers_)
        if (field == QLatin1String(n.key))
            return n.edit;
    return nullptr;
}

QMap<QString, QString> OptimizerFields::unparsedNumbers(const ExperimentConfig& c) const {
    QMap<QString, QString> found;
    for (const Number& n : numbers_)
        if (fieldApplies(*findField(n.key), c) && !emptyEps(n.key, n.edit) &&
            !judged<double>(n.key, n.edit))
            found.insert(QString::fromLatin1(n.key),
                         tr("\"%1\" is not a number; e.g. %2")
                             .arg(n.edit->text(), QLatin1String(n.example)));
    return found;
}

bool OptimizerFields::isNumber(const QString& field) const {
    for (const Number& n : numbers_)
        if (field == QLatin1String(n.key))
            return true;
    return false;
}

void OptimizerFields::updateRateHint(const ExperimentConfig& c) {
    hintedRule_ = int(c.optimizer);
    setNote(rateHint_, rateHintFor(c));
}

QString OptimizerFields::rateHintFor(const ExperimentConfig& c) {
    const double usual = torchDefaultLr(c.optimizer);
    if (usual <= 0 || !(c.lr >= 10 * usual))
        return {};
    static const QMap<OptimizerKind, QString> names{{OptimizerKind::Adam, "Adam"},
                                                    {OptimizerKind::AdamW, "AdamW"},
                                                    {OptimizerKind::RmsProp, "RMSprop"},
                                                    {OptimizerKind::Adagrad, "Adagrad"}};
    return tr("%1 usually takes a learning rate near %2 (torch.optim's default); %3 is %4 "
              "times that")
        .arg(names.value(c.optimizer), shortestNumber(usual), shortestNumber(c.lr),
             formatSignificant(c.lr / usual, 2));
}

} // namespace hwl::ui
