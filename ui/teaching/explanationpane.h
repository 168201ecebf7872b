#pragma once
// ExplanationPane: the text beside the charts. It says what the active
// preset shows and what to look at, marks it as modified (naming the fields)
// once the form no longer matches it (a change its text invites, such as
// ticking Share parameters in forgot-to-share, is said as followed instead), and for an experiment
// that is not a preset (opened from a file, or edited past recognition) describes its mode instead,
// so it is never stale. Where the text speaks of a measured figure it quotes
// the run in front of the reader ({{lost *}}), filled in as the run goes.
// GUI thread only.
#include "config/experimentconfig.h"
#include "preset/measuredfigure.h"
#include "preset/presets.h"

#include <QTextBrowser>

namespace hwl::ui {

class ExplanationPane : public QTextBrowser {
    Q_OBJECT
public:
    explicit ExplanationPane(QWidget* parent = nullptr);

    /// The preset just applied to the form.
    void showPreset(const hwl::Preset& preset);
    /// An experiment that is no preset (`origin`: where it came from, e.g.
    /// "Opened from run.json"; `name`: what its runs are named after, e.g.
    /// "run.json").
    void showExperiment(const ExperimentConfig& config, const QString& origin, const QString& name);
    /// The form changed: marks the preset as modified (or as itself again).
    void formChanged(const ExperimentConfig& config);
    /// The runs of the preset so far, whose figures its text quotes
    /// ({{lost *}}: preset/measuredfigure.h); the reader's place is kept.
    void setMeasured(const std::vector<hwl::MeasuredRun>& runs);

    /// The name of the experiment shown when it is no preset ("run.json");
    /// empty for a preset.
    QString experimentName() const { return preset_.id.empty() ? name_ : QString(); }
    /// The active preset's id; empty when the experiment is none.
    QString activePreset() const { return QString::fromStdString(preset_.id); }
    /// Whether the form differs from the active preset in a field its text
    /// does not invite changing.
    bool modified() const { return !changed_.isEmpty(); }
    /// Those fields (JSON names), in the field table's order.
    const QStringList& changedFields() const { return changed_; }
    /// The invited changes made, in the form's words ("Share parameters
    /// ticked"); empty when none.
    QString followed() const { return followed_.join(QStringLiteral(", ")); }

signals:
    /// A link of the explanation to one of the window's instruments was
    /// clicked: "race-stepper", "counter-toy".
    void instrumentRequested(const QString& name);

private:
    void render();

    hwl::Preset preset_;     ///< id empty: no preset
    QString origin_;         ///< for an experiment that is no preset
    QString name_;           ///< its runs' name
    ExperimentConfig shown_; ///< the experiment described (no preset)
    QStringList changed_;    ///< fields that differ from the preset, not invited
    QStringList followed_;   ///< invited changes made, in the form's words
    std::vector<hwl::MeasuredRun> measured_;
};

/// The fields (JSON names) in which `a` and `b` differ.
QStringList differingFields(const ExperimentConfig& a, const ExperimentConfig& b);

} // namespace hwl::ui
