#include "form/targetfields.h"

#include "config/fields.h"
#include "strategy/validation.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSpinBox>

namespace hwl::ui {

namespace {
/// A spin box for a target field, its range from the field table; at 0 it reads "none".
QDoubleSpinBox* targetSpin(const char* key, const char* name, int decimals, const QString& tip) {
    auto* spin = new QDoubleSpinBox;
    spin->setObjectName(QString::fromLatin1(name));
    const Field* f = findField(key);
    spin->setRange(f->min, f->max);
    spin->setDecimals(decimals);
    spin->setSpecialValueText(TargetFields::tr("none"));
    spin->setToolTip(tip);
    spin->setAccessibleName(tip.section(QLatin1Char(':'), 0, 0));
    // As wide as the row leaves, not as its largest value's text: the form
    // column stays as narrow as before the target came.
    spin->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("≥ 00.00 %")) + 24);
    return spin;
}
} // namespace

TargetFields::TargetFields(QObject* parent) : QObject(parent) {
    accuracy_ = targetSpin("target-accuracy", "targetAccuracy", 2,
                           tr("Target test accuracy: the run stops at the first evaluation "
                              "(each epoch's end, or every N steps) whose test accuracy reaches "
                              "it, and reports the time, samples and epochs it took (none: no "
                              "target)"));
    accuracy_->setSuffix(QStringLiteral(" %"));
    // Short texts: the row shares the form's width with the epochs and
    // Train on, so "target 75.00 %" was cut to "target 75." (the tooltip
    // and accessible name say the rest).
    accuracy_->setPrefix(tr("≥ "));
    accuracy_->setSpecialValueText(tr("no target"));
    accuracy_->setSingleStep(1);
    loss_ = targetSpin("target-loss", "targetLoss", 4,
                       tr("Target test loss: the run stops at the first evaluation whose test "
                          "loss is at most this (none: no target)"));
    loss_->setSingleStep(0.05);
    loss_->setPrefix(tr("≤ "));
    loss_->setSpecialValueText(tr("loss: none"));
    trainPast_ = new QCheckBox(tr("Train on"));
    trainPast_->setObjectName("trainPastTarget");
    trainPast_->setToolTip(tr("Train all the epochs even after the target is reached (the time "
                              "to it is still reported)"));
    evalEvery_ = new QSpinBox;
    evalEvery_->setObjectName("evalEvery");
    const Field* every = findField("eval-every");
    evalEvery_->setRange(int(every->min), int(every->max));
    evalEvery_->setPrefix(tr("test every "));
    evalEvery_->setSuffix(tr(" steps"));
    evalEvery_->setSpecialValueText(tr("test at epoch ends"));
    evalEvery_->setAccessibleName(tr("Evaluate every"));
    evalEvery_->setSingleStep(50);
    evalEvery_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    evalEvery_->setMinimumWidth(
        evalEvery_->fontMetrics().horizontalAdvance(tr("test at epoch ends")) + 24);
    evalEvery_->setToolTip(
        tr("How often the test set is evaluated (the workers wait meanwhile): at each "
           "epoch's end, and also every N steps of each worker when N is set, so that a "
           "target's crossing is known to within N steps. The GPU modes evaluate at epoch "
           "ends only"));
    connect(evalEvery_, &QSpinBox::valueChanged, this, &TargetFields::edited);
    followMode(ExperimentConfig{});
    row_ = new QHBoxLayout;
    row_->setContentsMargins(0, 0, 0, 0);
    row_->addWidget(accuracy_, 1);
    row_->addWidget(loss_, 1);
    row_->addWidget(trainPast_);
    for (QDoubleSpinBox* spin : {accuracy_, loss_})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &TargetFields::edited);
    connect(trainPast_, &QCheckBox::toggled, this, &TargetFields::edited);
}

QHBoxLayout* TargetFields::besideEvalEvery(QWidget* editor) const {
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(editor, 1);
    row->addWidget(evalEvery_, 2);
    return row;
}

QWidget* TargetFields::fieldWidget(const QString& field) const {
    if (field == QLatin1String("target-accuracy"))
        return accuracy_;
    if (field == QLatin1String("target-loss"))
        return loss_;
    if (field == QLatin1String("train-past-target"))
        return trainPast_;
    if (field == QLatin1String("eval-every"))
        return evalEvery_;
    return nullptr;
}

void TargetFields::apply(ExperimentConfig& c) const {
    c.targetAccuracy = accuracy_->value();
    c.targetLoss = loss_->value();
    c.trainPastTarget = trainPast_->isChecked();
    c.evalEvery = evalEvery_->value();
    // Where the mode takes no cadence, its default, as a hidden row of the
    // Parallelism group writes.
    resetInapplicableFields(c, [](const Field& f) { return f.key == std::string("eval-every"); });
}

void TargetFields::setConfig(const ExperimentConfig& c) {
    const QSignalBlocker a(accuracy_), l(loss_), t(trainPast_), e(evalEvery_);
    accuracy_->setValue(c.targetAccuracy);
    loss_->setValue(c.targetLoss);
    trainPast_->setChecked(c.trainPastTarget);
    evalEvery_->setValue(c.evalEvery);
    followMode(c);
}

void TargetFields::followMode(const ExperimentConfig& c) {
    const bool takes = fieldApplies(*findField("eval-every"), c);
    evalEvery_->setEnabled(takes);
    evalEvery_->setVisible(takes);
}

} // namespace hwl::ui
