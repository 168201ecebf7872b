#include "teaching/targetrace.h"

#include "widgets/numbers.h"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {

QString tr(const char* text) {
    return QObject::tr(text);
}

double secondsOf(const ComparedRow& r) {
    return r.summary.target.trainSeconds;
}

/// Samples per second: the table's figure, the whole run's (a run that
/// stops at the target has trained within a few ms of its time to it).
double rateOf(const ComparedRow& r) {
    return r.summary.samplesPerSecond;
}

/// Seconds as the table writes them: two decimals ("9.00", not "9").
QString seconds(double s) {
    return formatDecimal(s, 2);
}

QString ratio(double x) {
    return formatDecimal(x, x < 10 ? 2 : 1);
}

/// How a later run `o` compares with the first, `best`, and which factor decided.
QString placeSentence(const ComparedRow& best, const ComparedRow& o) {
    const double samples = double(o.summary.target.samples) /
                           double(std::max<std::uint64_t>(1, best.summary.target.samples));
    const double speed = rateOf(best) > 0 ? rateOf(o) / rateOf(best) : 0;
    // time(o) / time(best) = samples ratio / speed ratio (exactly with the
    // rates until the target; the table's differ from those by the last ms).
    const bool samplesDecided = samples >= (speed > 0 ? 1 / speed : 0);
    return tr("%1 took %2 s: %3 times the samples at %4 times the speed, so %5 decided.")
        .arg(o.label, seconds(secondsOf(o)), ratio(samples), ratio(speed),
             samplesDecided ? tr("the samples it needed") : tr("its speed"));
}

/// The runs that missed the target, each with its best test accuracy.
QString missedSentence(const QList<const ComparedRow*>& missed) {
    QStringList parts;
    for (const ComparedRow* r : missed) {
        const TargetResult& t = r->summary.target;
        parts << (std::isnan(t.bestAccuracy)
                      ? tr("%1 made no evaluation").arg(r->label)
                      : tr("%1 did not reach it in %2 epochs (best test accuracy %3%)")
                            .arg(r->label, formatCount(r->summary.epochsCompleted),
                                 formatDecimal(100.0 * t.bestAccuracy, 2)));
    }
    return parts.isEmpty() ? QString() : QLatin1Char(' ') + parts.join(QStringLiteral("; ")) + '.';
}

} // namespace

QString targetRaceSentence(const ComparisonRecord& c) {
    // The engine's race (io/targetrace.h), each row an entrant of one run.
    std::vector<RaceEntrant> entrants;
    for (const ComparedRow& r : c.rows)
        entrants.push_back({r.label.toStdString(), {r.summary}});
    QList<const ComparedRow*> leaders, later, missed;
    for (const RacePlace& p : raceToTarget(entrants)) {
        const ComparedRow* r = &c.rows[qsizetype(p.entrant)];
        (!p.reached() ? missed : leaders.isEmpty() || p.aboutFirst ? leaders : later).append(r);
    }
    if (leaders.isEmpty())
        return tr("No run reached its target.") + missedSentence(missed);
    const ComparedRow& best = *leaders.front();
    const QString target = QString::fromStdString(best.summary.target.describe());
    QString text =
        leaders.size() > 1
            ? tr("%1 reached %2 about as soon: within 10% of the first (%3, %4 s of training), "
                 "the spread between repeated runs, not a win.")
                  .arg(runNames(leaders), target, best.label, seconds(secondsOf(best)))
            : tr("%1 reached %2 first: %3 s of training, %4 samples at %5 samples/s.")
                  .arg(best.label, target, seconds(secondsOf(best)),
                       formatCount(std::int64_t(best.summary.target.samples)),
                       formatDecimal(rateOf(best), 0));
    for (const ComparedRow* o : later)
        text += QLatin1Char(' ') + placeSentence(best, *o);
    return text + missedSentence(missed);
}

QStringList targetCells(const ComparedRow& r) {
    const TargetResult& t = r.summary.target;
    if (!t.reached)
        return {tr("not reached"), QStringLiteral("–")};
    return {seconds(t.trainSeconds), formatCount(std::int64_t(t.samples))};
}

} // namespace hwl::ui
