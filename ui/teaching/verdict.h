#pragma once
// What a finished run found, in the window's words, for the banner shown
// over the charts at the end of a run (MainWindow): the pitfall it detected
// and what to tick to fix it, the workers that died, the lost updates it
// counted, or plainly how it ended. The engine's explanations say the same
// in command-line words; this is the window's reading of the same summary.
#include "config/experimentconfig.h"
#include "run/run.h"

#include <QFrame>
#include <QString>

class QLabel;

namespace hwl::ui {

struct Verdict {
    enum Kind { Fine, Finding, Problem };
    Kind kind = Fine;
    QString title; ///< one line, e.g. "Parameters were not shared"
    QString body;  ///< plain text, a few sentences: what happened and what to do
};

/// The verdict on run `config` that ended with `summary`.
Verdict verdictOf(const ExperimentConfig& config, const RunSummary& summary);

/// The banner above the charts that shows a verdict until it is closed or
/// the next run starts. Red for a problem, amber for a finding, green else.
class VerdictBanner : public QFrame {
    Q_OBJECT
public:
    explicit VerdictBanner(QWidget* parent = nullptr);
    void showVerdict(const Verdict& verdict);
    QString text() const; ///< title and body, for tests and screenshots

private:
    QLabel* title_ = nullptr;
    QLabel* body_ = nullptr;
};

} // namespace hwl::ui
