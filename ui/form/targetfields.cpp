#include "form/targetfields.h"

#include "config/fields.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>

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
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("00.00 %")) + 24);
    return spin;
}
} // namespace

TargetFields::TargetFields(QObject* parent) : QObject(parent) {
    accuracy_ = targetSpin("target-accuracy", "targetAccuracy", 2,
                           tr("Target test accuracy: the run stops at the first epoch's end "
                              "whose test accuracy reaches it, and reports the time, samples and "
                              "epochs it took (none: no target)"));
    accuracy_->setSuffix(QStringLiteral(" %"));
    accuracy_->setPrefix(tr("target "));
    accuracy_->setSpecialValueText(tr("no target"));
    accuracy_->setSingleStep(1);
    loss_ = targetSpin("target-loss", "targetLoss", 4,
                       tr("Target test loss: the run stops at the first epoch's end whose test "
                          "loss is at most this (none: no target)"));
    loss_->setSingleStep(0.05);
    loss_->setPrefix(tr("loss "));
    loss_->setSpecialValueText(tr("no loss target"));
    trainPast_ = new QCheckBox(tr("Train on"));
    trainPast_->setObjectName("trainPastTarget");
    trainPast_->setToolTip(tr("Train all the epochs even after the target is reached (the time "
                              "to it is still reported)"));
    row_ = new QHBoxLayout;
    row_->setContentsMargins(0, 0, 0, 0);
    row_->addWidget(accuracy_, 1);
    row_->addWidget(loss_, 1);
    row_->addWidget(trainPast_);
    for (QDoubleSpinBox* spin : {accuracy_, loss_})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &TargetFields::edited);
    connect(trainPast_, &QCheckBox::toggled, this, &TargetFields::edited);
}

QWidget* TargetFields::fieldWidget(const QString& field) const {
    if (field == QLatin1String("target-accuracy"))
        return accuracy_;
    if (field == QLatin1String("target-loss"))
        return loss_;
    if (field == QLatin1String("train-past-target"))
        return trainPast_;
    return nullptr;
}

void TargetFields::apply(ExperimentConfig& c) const {
    c.targetAccuracy = accuracy_->value();
    c.targetLoss = loss_->value();
    c.trainPastTarget = trainPast_->isChecked();
}

void TargetFields::setConfig(const ExperimentConfig& c) {
    const QSignalBlocker a(accuracy_), l(loss_), t(trainPast_);
    accuracy_->setValue(c.targetAccuracy);
    loss_->setValue(c.targetLoss);
    trainPast_->setChecked(c.trainPastTarget);
}

} // namespace hwl::ui
