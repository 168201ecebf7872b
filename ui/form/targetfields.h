#pragma once
// The experiment form's target row: the test accuracy or loss to train to
// (0: none) and whether the run trains on past it. GUI thread only.
#include "config/experimentconfig.h"

#include <QObject>

class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QWidget;

namespace hwl::ui {

class TargetFields : public QObject {
    Q_OBJECT

public:
    explicit TargetFields(QObject* parent = nullptr);

    /// The three editors in one row, for the form to place (it owns it then).
    QHBoxLayout* row() const { return row_; }
    /// The editor of field `field` (target-accuracy, target-loss,
    /// train-past-target), or null.
    QWidget* fieldWidget(const QString& field) const;
    void apply(ExperimentConfig& c) const;
    void setConfig(const ExperimentConfig& c);

Q_SIGNALS:
    void edited();

private:
    QHBoxLayout* row_;
    QDoubleSpinBox* accuracy_;
    QDoubleSpinBox* loss_;
    QCheckBox* trainPast_;
};

} // namespace hwl::ui
