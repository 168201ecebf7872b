#pragma once
// MeasuredRuns: the runs of the active preset as the explanation quotes them
// ({{lost *}}, preset/measuredfigure.h): the runs of a comparison that ended,
// and the run going, whose figures so far it rebuilds from the worker table
// about once a second. Plain data and one signal; GUI thread only.
#include "preset/measuredfigure.h"
#include "runs/runcontroller.h"

#include <QElapsedTimer>
#include <QObject>

#include <vector>

namespace hwl::ui {

class MeasuredRuns : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// A run starts: `label` is its comparison's label ("" for a run of its
    /// own); `fresh`: the first run of what is measured (a single run, or a
    /// comparison's first), which forgets the runs before it. A run made
    /// after the change the text invites (`quoted` false) is not measured:
    /// the text describes the pitfall, not its fix (forgot-to-share's
    /// "stays flat at chance" is not said of the run with Share ticked).
    void runStarted(const std::string& label, bool fresh, bool sharedState, bool quoted = true);
    /// The run going, so far: its workers, and the run's summary so far (its
    /// evaluations), `elapsed` seconds after its start. changed() follows
    /// about once a second, and at once after a new evaluation.
    void runGoing(const QList<WorkerRow>& rows, const RunSummary& sofar, double elapsed);
    /// The run going ended with `summary` (the median divergence of its steps).
    void runEnded(const RunSummary& summary, double divergence);
    /// Forgets every run (a preset or experiment was chosen).
    void clear();
    const std::vector<MeasuredRun>& runs() const { return runs_; }

    /// The figures of a run so far from its worker table.
    static RunSummary summarySoFar(const QList<WorkerRow>& rows, const RunSummary& sofar,
                                   double elapsed);

Q_SIGNALS:
    void changed(const std::vector<hwl::MeasuredRun>& runs);

private:
    std::vector<MeasuredRun> runs_;
    bool going_ = false;
    QElapsedTimer lastSaid_;
};

} // namespace hwl::ui
