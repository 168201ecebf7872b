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

/// A later run `o` against the first, `best`: its samples and speed as
/// multiples of the first's, and which of the two decided its place.
struct Place {
    double samples = 0, speed = 0;
    bool samplesDecided = false;
};

Place placeOf(const ComparedRow& best, const ComparedRow& o) {
    Place p;
    p.samples = double(o.summary.target.samples) /
                double(std::max<std::uint64_t>(1, best.summary.target.samples));
    p.speed = rateOf(best) > 0 ? rateOf(o) / rateOf(best) : 0;
    // time(o) / time(best) = samples ratio / speed ratio (exactly with the
    // rates until the target; the table's differ from those by the last ms).
    p.samplesDecided = p.samples >= (p.speed > 0 ? 1 / p.speed : 0);
    return p;
}

/// The race's places: the leaders (the first, then those about as soon),
/// the later ones, the ones that missed, each in its order.
struct Race {
    QList<const ComparedRow*> leaders, later, missed;
};

Race raceOf(const ComparisonRecord& c) {
    // The engine's race (io/targetrace.h), each row an entrant of one run.
    std::vector<RaceEntrant> entrants;
    for (const ComparedRow& r : c.rows)
        entrants.push_back({r.label.toStdString(), {r.summary}});
    Race race;
    for (const RacePlace& p : raceToTarget(entrants)) {
        const ComparedRow* r = &c.rows[qsizetype(p.entrant)];
        (!p.reached()                             ? race.missed
         : race.leaders.isEmpty() || p.aboutFirst ? race.leaders
                                                  : race.later)
            .append(r);
    }
    return race;
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
    const Race race = raceOf(c);
    if (race.leaders.isEmpty())
        return tr("No run reached its target.") + missedSentence(race.missed);
    const ComparedRow& best = *race.leaders.front();
    const QString target = QString::fromStdString(best.summary.target.describe());
    QString text =
        race.leaders.size() > 1
            ? tr("%1 reached %2 about as soon: within 10% of the first (%3, %4 s of training), "
                 "the spread between repeated runs, not a win.")
                  .arg(runNames(race.leaders), target, best.label, seconds(secondsOf(best)))
            : tr("%1 reached %2 first: %3 s of training, %4 samples at %5 samples/s.")
                  .arg(best.label, target, seconds(secondsOf(best)),
                       formatCount(std::int64_t(best.summary.target.samples)),
                       formatDecimal(rateOf(best), 0));
    if (!race.later.isEmpty())
        text += tr(" Later, in order: %1. The table says what decided each place: the samples a "
                   "run needed or its speed, as multiples of the first's (its time is the one "
                   "over the other).")
                    .arg(runNames(race.later));
    return text + missedSentence(race.missed);
}

QStringList raceHeader() {
    return {tr("to target s"), tr("samples to target"), tr("× samples, speed"), tr("decided by")};
}

QList<QStringList> raceCells(const ComparisonRecord& c) {
    const Race race = raceOf(c);
    QList<QStringList> cells;
    for (const ComparedRow& r : c.rows) {
        const TargetResult& t = r.summary.target;
        if (!t.reached || race.leaders.isEmpty()) {
            cells << QStringList{tr("not reached"), QStringLiteral("–"), QStringLiteral("–"),
                                 QStringLiteral("–")};
            continue;
        }
        const ComparedRow& best = *race.leaders.front();
        const Place p = placeOf(best, r);
        const QString decided = &r == &best                 ? tr("first")
                                : race.leaders.contains(&r) ? tr("about as soon")
                                : p.samplesDecided          ? tr("samples needed")
                                                            : tr("its speed");
        cells << QStringList{seconds(t.trainSeconds), formatCount(std::int64_t(t.samples)),
                             ratio(p.samples) + QStringLiteral(", ") + ratio(p.speed), decided};
    }
    return cells;
}

} // namespace hwl::ui
