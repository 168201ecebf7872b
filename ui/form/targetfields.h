#pragma once
// The experiment form's target row: the test accuracy or loss to train to
// (0: none) and whether the run trains on past it; and how often the test
// set is evaluated (at epoch ends, or every N steps too). GUI thread only.
#include "config/experimentconfig.h"

#include <QObject>

class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QSpinBox;
class QWidget;

namespace hwl::ui {

class TargetFields : public QObject {
    Q_OBJECT

public:
    explicit TargetFields(QObject* parent = nullptr);

    /// The three editors in one row, for the form to place (it owns it then).
    QHBoxLayout* row() const { return row_; }
    /// The editor of field `field` (target-accuracy, target-loss,
    /// train-past-target, eval-every), or null.
    QWidget* fieldWidget(const QString& field) const;
    /// A row of `editor` and the evaluations' cadence, for the form to place.
    QHBoxLayout* besideEvalEvery(QWidget* editor) const;
    /// Into `c`, whose mode is set: eval-every only where the mode takes it.
    void apply(ExperimentConfig& c) const;
    void setConfig(const ExperimentConfig& c);
    /// The cadence's editor is shown and enabled where `c`'s mode takes it
    /// (the CPU modes) only.
    void followMode(const ExperimentConfig& c);

Q_SIGNALS:
    void edited();

private:
    QHBoxLayout* row_;
    QDoubleSpinBox* accuracy_;
    QDoubleSpinBox* loss_;
    QCheckBox* trainPast_;
    QSpinBox* evalEvery_;
};

} // namespace hwl::ui
