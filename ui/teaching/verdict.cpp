#include "teaching/verdict.h"

#include <algorithm>
#include <optional>

#include "strategy/catalog.h"
#include "widgets/numbers.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QObject>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace hwl::ui {

namespace {
QString tr(const char* text) {
    return QObject::tr(text);
}

/// A percentage with about three significant digits: "12.3", "0.0421".
QString percent(double share) {
    return formatDecimal(share, share >= 10 ? 1 : share >= 1 ? 2 : share > 0 ? 4 : 0);
}

/// The lost-update sentence, or empty when the run did not count them. The
/// advice follows the pace the run had: a paced run already shows fewer.
QString lostUpdatesLine(const ExperimentConfig& config, const RunSummary& s, std::uint32_t pace) {
    if (s.updateWrites.empty())
        return {};
    const std::uint64_t writes = s.totalUpdateWrites(), lost = s.totalLostUpdates();
    const double share = writes ? 100.0 * double(lost) / double(writes) : 0.0;
    QString line = tr("Lost updates: %1 of %2 block writes (%3%) overlapped another worker's "
                      "write of the same parameters.")
                       .arg(formatCount(lost), formatCount(writes), percent(share));
    if (locksEachUpdate(config))
        line += tr(" Under the lock none can be: one worker writes at a time.");
    else if (lost > 0 && pace > 0)
        line += tr(" Choose threads (locked) to see none, at the price of the lock. This run "
                   "ran paced, at %1 steps/s per worker, where writes rarely meet; at full "
                   "speed many more overlap.")
                    .arg(formatCount(std::uint64_t(pace)));
    else if (lost > 0)
        line += tr(" Choose threads (locked) to see none, at the price of the lock; slow the "
                   "pace to see fewer (writes then rarely meet).");
    return line;
}
/// The engine's words as a sentence: "The test loss ended ... from."
QString sentence(const std::string& words) {
    QString text = QString::fromStdString(words);
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text + '.';
}
} // namespace

namespace {
Verdict problem(QString title, QString body) {
    Verdict v;
    v.kind = Verdict::Problem;
    v.title = std::move(title);
    v.body = std::move(body);
    return v;
}

/// The red verdicts, worst first, or nothing: parameters not shared,
/// losses that became NaN, workers that died, a failure, a finite blow-up,
/// a pitfall.
std::optional<Verdict> problemOf(const ExperimentConfig& config, const RunSummary& s) {
    if (!config.share && !s.explanations.empty())
        return problem(tr("Parameters were not shared"),
                       tr("Each worker trained its own private copy, so the test accuracy, "
                          "measured on the window's copy, never moved, and exported weights "
                          "would be the untouched initial ones. Tick Share parameters and run "
                          "again."));
    const auto diverged = [](const std::string& failure) {
        return QString::fromStdString(failure).startsWith(QLatin1String("training diverged"),
                                                          Qt::CaseInsensitive);
    };
    const auto died = formatCount(std::uint64_t(s.workerFailures.size()));
    if (!s.workerFailures.empty() &&
        std::all_of(s.workerFailures.begin(), s.workerFailures.end(), diverged)) {
        // Not workers that died of something: the arithmetic ran away. What
        // happened, then the advice once (the engine's own clause left out).
        QString what = QString::fromStdString(s.workerFailures.front());
        what = what.left(what.indexOf(QLatin1String("; lower the"), 0, Qt::CaseInsensitive));
        return problem(tr("Training diverged"),
                       sentence(what.toStdString()) +
                           (s.workerFailures.size() > 1
                                ? tr(" %1 workers' losses ran away.").arg(died)
                                : QString()) +
                           tr(" Lower the learning rate and run again."));
    }
    if (!s.workerFailures.empty()) {
        // Every worker died: no other was stopped, nor went on.
        const bool all = s.workerFailures.size() >= std::size_t(std::max(1, config.workers));
        const QString first = QString::fromStdString(s.workerFailures.front());
        if (all && s.workerFailures.size() > 1)
            return problem(tr("All %1 workers died").arg(died),
                           tr("%1. Each of them failed so: none was left to train.").arg(first));
        return problem(s.workerFailures.size() == 1 ? tr("A worker died")
                                                    : tr("%1 workers died").arg(died),
                       first + (all ? QStringLiteral(".")
                                : config.onWorkerFailure == FailurePolicy::Stop
                                    ? tr(". The run stopped the others (Worker dies: stop); with "
                                         "continue they would have finished without it.")
                                    : tr(". The others went on without it (Worker dies: "
                                         "continue).")));
    }
    if (s.state == RunState::Failed)
        return problem(tr("The run failed"), QString::fromStdString(s.failure));
    if (s.outcome == LearningOutcome::Diverged)
        // Finite, but the arithmetic ran away all the same: never a green
        // "Finished" (a run at lr 50 ended at 10% accuracy, test loss 111.7).
        return problem(
            tr("Training diverged"),
            sentence(s.outcomeReason) +
                (s.evaluated
                     ? tr(" Test accuracy %1%.").arg(formatDecimal(100.0 * s.testAccuracy, 2))
                     : QString()) +
                tr(" The steps overshot: lower the learning rate and run again."));
    if (!s.explanations.empty())
        return problem(tr("The run found a pitfall"),
                       QString::fromStdString(s.explanations.front()));
    return std::nullopt;
}
/// A run with a target: whether it reached it, where, and its best figures if not.
void targetVerdict(Verdict& v, const RunSummary& s, const QString& rate) {
    const TargetResult& t = s.target;
    const QString target = QString::fromStdString(t.describe());
    if (!t.reached) {
        v.kind = Verdict::Finding;
        v.title = tr("Target not reached in %1 epochs").arg(formatCount(s.epochsCompleted));
        v.body =
            tr("%1 was not reached: the best test accuracy was %2%, the best test loss "
               "%3. %4 samples per second.")
                .arg(target.left(1).toUpper() + target.mid(1),
                     formatDecimal(100.0 * t.bestAccuracy, 2), formatDecimal(t.bestLoss, 4), rate);
        return;
    }
    v.title = t.duringEpoch ? tr("Reached %1 during epoch %2").arg(target, formatCount(t.epochs))
                            : tr("Reached %1 at epoch %2").arg(target, formatCount(t.epochs));
    v.body =
        tr("%1 s of training to it (%2 s wall), %3 samples, %4 steps; %5 samples per second.")
            .arg(formatDecimal(t.trainSeconds, 3), formatDecimal(t.wallSeconds, 3),
                 formatCount(std::int64_t(t.samples)), formatCount(std::int64_t(t.steps)), rate);
    if (s.epochsCompleted > t.epochs - (t.duringEpoch ? 1 : 0)) // --train-past-target
        v.body +=
            tr(" Trained on to epoch %1: test accuracy %2% at the end.")
                .arg(formatCount(s.epochsCompleted), formatDecimal(100.0 * s.testAccuracy, 2));
}
} // namespace

Verdict verdictOf(const ExperimentConfig& config, const RunSummary& s, std::uint32_t pace) {
    if (std::optional<Verdict> bad = problemOf(config, s))
        return *bad;
    Verdict v;
    if (s.outcome == LearningOutcome::AtChance) {
        v.kind = Verdict::Finding;
        v.title = tr("Learned nothing: accuracy at chance");
        v.body = sentence(s.outcomeReason) +
                 tr(" The model learned nothing it could use: its labels may be random, or the "
                    "learning rate too small or too large to learn in %1 epochs.")
                     .arg(formatCount(s.epochsCompleted));
        return v;
    }
    // Amber only for updates that were lost: a count of none (under the
    // lock, or writes that never met) is good news, green.
    const QString lost = lostUpdatesLine(config, s, pace);
    v.kind = lost.isEmpty() || s.totalLostUpdates() == 0 ? Verdict::Fine : Verdict::Finding;
    v.title = s.state == RunState::Stopped
                  ? tr("Stopped after %1 of %2 epochs")
                        .arg(formatCount(s.epochsCompleted), formatCount(config.epochs))
              : s.epochsCompleted == 1
                  ? tr("Finished 1 epoch")
                  : tr("Finished %1 epochs").arg(formatCount(s.epochsCompleted));
    const QString rate = formatDecimal(s.samplesPerSecond, 0);
    if (s.target.set() && s.state != RunState::Stopped) {
        targetVerdict(v, s, rate);
        if (!lost.isEmpty())
            v.body += ' ' + lost;
        return v;
    }
    v.body = s.evaluated ? tr("Test accuracy %1%, %2 samples per second.")
                               .arg(formatDecimal(100.0 * s.testAccuracy, 2), rate)
                         : tr("%1 samples per second.").arg(rate);
    if (!lost.isEmpty())
        v.body += ' ' + lost;
    return v;
}

void VerdictBanner::fitTitleFont() {
    QFont bold = font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    title_->setFont(bold);
}

void VerdictBanner::changeEvent(QEvent* event) {
    QFrame::changeEvent(event);
    if (event->type() == QEvent::FontChange && title_)
        fitTitleFont();
}

VerdictBanner::VerdictBanner(QWidget* parent) : QFrame(parent) {
    setObjectName("verdict");
    setFrameShape(QFrame::StyledPanel);
    auto* row = new QHBoxLayout(this);
    auto* text = new QVBoxLayout;
    title_ = new QLabel;
    fitTitleFont();
    body_ = new QLabel;
    body_->setWordWrap(true);
    body_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A comparison's runs side by side: rich text, so that the columns line up.
    table_ = new QLabel;
    table_->setObjectName("verdictTable");
    table_->setTextFormat(Qt::RichText);
    table_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->hide();
    text->addWidget(title_);
    text->addWidget(body_);
    text->addWidget(table_);
    row->addLayout(text, 1);
    auto* close = new QToolButton;
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Hide until the next run ends"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    row->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void VerdictBanner::showVerdict(const Verdict& verdict) {
    // Colours that read on light and dark palettes alike: a tinted
    // background, the palette's own text colour.
    const char* tint = verdict.kind == Verdict::Problem   ? "rgba(220, 50, 47, 60)"
                       : verdict.kind == Verdict::Finding ? "rgba(230, 160, 0, 60)"
                                                          : "rgba(40, 160, 60, 45)";
    setStyleSheet(QStringLiteral("#verdict { background: %1; border-radius: 4px; }").arg(tint));
    title_->setText(verdict.title);
    verdict_ = verdict;
    setBody();
    rows_ = verdict.table;
    QString html;
    for (qsizetype r = 0; r < rows_.size(); ++r) {
        html += QStringLiteral("<tr>");
        for (qsizetype c = 0; c < rows_[r].size(); ++c) // numbers right, the run's name left
            html += QStringLiteral("<%1 align=\"%2\" style=\"padding: 0 8px 0 0\">%3</%1>")
                        .arg(r == 0 ? "th" : "td", c == 0 ? "left" : "right",
                             rows_[r][c].toHtmlEscaped());
        html += QStringLiteral("</tr>");
    }
    table_->setText(QStringLiteral("<table cellspacing=\"0\">%1</table>").arg(html));
    table_->setVisible(!rows_.isEmpty());
    show();
}

void VerdictBanner::setChartsOut(const QStringList& noRoom, const QStringList& unticked) {
    if (noRoom == noRoom_ && unticked == unticked_)
        return;
    noRoom_ = noRoom;
    unticked_ = unticked;
    setBody();
}

void VerdictBanner::setBody() {
    body_->setText(verdict_.body + chartSentence());
}

QString VerdictBanner::chartSentence() const {
    const QString& chart = verdict_.chart;
    if (chart.isEmpty())
        return {};
    if (unticked_.contains(chart))
        return tr(" The %1 chart draws every run: tick it in the View menu to see it.")
            .arg(verdict_.chartName);
    if (noRoom_.contains(chart))
        return tr(" The %1 chart draws every run, but the window has no room for it now: fold "
                  "the tabs under the charts or make the window larger to see it.")
            .arg(verdict_.chartName);
    return tr(" The %1 chart shows every run.").arg(verdict_.chartName);
}

QString VerdictBanner::text() const {
    QString text = title_->text() + '\n' + body_->text();
    for (const QStringList& row : rows_)
        text += '\n' + row.join(QStringLiteral(" | "));
    return text;
}

} // namespace hwl::ui
