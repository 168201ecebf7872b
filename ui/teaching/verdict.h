#pragma once
// What a finished run found, in the window's words, for the banner shown
// over the charts at the end of a run (MainWindow): the pitfall it detected
// and what to tick to fix it, the workers that died, the lost updates it
// counted, or plainly how it ended; after a comparison, its runs side by
// side (comparisonverdict.h). The engine's explanations say the same in
// command-line words; this is the window's reading of the same summary.
#include "config/experimentconfig.h"
#include "run/run.h"

#include <QFrame>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>

class QLabel;

namespace hwl::ui {

struct Verdict {
    enum Kind { Fine, Finding, Problem };
    Kind kind = Fine;
    QString title; ///< one line, e.g. "Parameters were not shared"
    QString body;  ///< plain text, a few sentences: what happened and what to do
    /// A table under the body (a comparison's runs): rows of cells, the
    /// first row the header. Empty: none.
    QList<QStringList> table;
    /// The chart a comparison's runs are read on (its objectName, e.g.
    /// "rateChart"; empty: none) and its name in words: the banner says it
    /// shows every run, or why it does not show now.
    QString chart, chartName;
};

/// The verdict on run `config` that ended with `summary`; `pace` is the
/// pace it ran at when it ended (steps per second per worker, 0: full
/// speed), which the lost-updates advice follows.
Verdict verdictOf(const ExperimentConfig& config, const RunSummary& summary,
                  std::uint32_t pace = 0);

/// The banner above the charts that shows a verdict until it is closed or
/// the next run starts. Red for a problem, amber for a finding, green else.
class VerdictBanner : public QFrame {
    Q_OBJECT
public:
    explicit VerdictBanner(QWidget* parent = nullptr);
    void showVerdict(const Verdict& verdict);
    /// The charts the window does not show now: `noRoom`, ticked but
    /// without room at this size; `unticked`, off in the View menu (object
    /// names). The sentence on the verdict's chart follows them.
    void setChartsOut(const QStringList& noRoom, const QStringList& unticked);
    /// Title, body and the table's rows (cells separated by " | "), a
    /// line each, for tests and screenshots.
    QString text() const;

protected:
    /// The title follows the banner's font (bold, a little larger), also
    /// when presentation scales it.
    void changeEvent(QEvent* event) override;

private:
    void fitTitleFont();
    /// The body: the verdict's, and its sentence on its chart as it shows.
    void setBody();
    /// That sentence: the chart shows every run, or why it does not show
    /// now; empty for a verdict without a chart.
    QString chartSentence() const;
    QLabel* title_ = nullptr;
    QLabel* body_ = nullptr;
    QLabel* table_ = nullptr;
    QList<QStringList> rows_;
    Verdict verdict_;
    QStringList noRoom_, unticked_;
};

} // namespace hwl::ui
