#include "teaching/comparisonverdict.h"

#include "teaching/targetrace.h"

#include "io/metricslog.h"
#include "telemetry/sample.h"
#include "widgets/numbers.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <vector>

namespace hwl::ui {

namespace {

QString tr(const char* text) {
    return QObject::tr(text);
}

/// About three significant digits, grouped: "0.0123", "5.20", "1,234";
/// below 0.001 as a power of ten, "5.0e-7", never "0.000000".
QString significant(double x) {
    if (x == 0 || !std::isfinite(x))
        return formatDecimal(x, 0);
    if (std::fabs(x) < 1e-3)
        return QString::number(x, 'e', 1).replace(QStringLiteral("e-0"), QStringLiteral("e-"));
    const int decimals = std::clamp(2 - int(std::floor(std::log10(std::fabs(x)))), 0, 6);
    return formatDecimal(x, decimals);
}

QString milliseconds(double ms) {
    return formatDecimal(ms, ms < 100 ? 1 : 0);
}

/// The slowest and quickest worker's start-up in ms; {-1, -1} when none
/// took a step or the workers are threads (their start-up is not a process's).
std::pair<double, double> startupRange(const ComparedRow& r) {
    double lo = -1, hi = -1;
    if (!r.processes)
        return {lo, hi};
    for (const double s : r.summary.startupSeconds) {
        if (s < 0)
            continue;
        lo = lo < 0 ? s * 1e3 : std::min(lo, s * 1e3);
        hi = std::max(hi, s * 1e3);
    }
    return {lo, hi};
}

/// The compared figure of a row; < 0 when the run has none.
double figureOf(const ComparedRow& r, ComparedFigure figure) {
    switch (figure) {
    case ComparedFigure::Divergence:
        return r.divergence;
    case ComparedFigure::StartUp:
        return startupRange(r).second;
    case ComparedFigure::TimeToTarget: // targetrace.h decides it
        return r.summary.target.reached ? r.summary.target.trainSeconds : -1;
    case ComparedFigure::Throughput:
    case ComparedFigure::None:
        break;
    }
    return r.summary.samplesPerSecond > 0 ? r.summary.samplesPerSecond : -1;
}

/// The mean of a run's workers' divergence at its end; -1: none measured.
double finalDivergence(const ComparedRow& r) {
    const std::vector<double>& last = r.summary.divergence;
    if (last.empty())
        return -1;
    double final = 0;
    for (const double d : last)
        final += d / double(last.size());
    return final;
}

/// "20% more" / "3.1 times as": how much `big` exceeds `small` (both > 0).
/// A ratio of 2 or more as "N times", one decimal under 100 ("4.6 times",
/// "4,972 times"); else as a percentage.
QString howMuch(double big, double small, const char* more, const char* times) {
    const double ratio = big / small;
    if (ratio >= 2)
        return QObject::tr(times).arg(formatDecimal(ratio, ratio < 100 ? 1 : 0));
    const double pct = 100 * (ratio - 1);
    return QObject::tr(more).arg(formatDecimal(pct, pct < 10 ? 1 : 0));
}

/// Whether `o` is within the spread of the best run `best` on `figure`:
/// samples/s or divergence within 10%; start-up ranges that overlap (each
/// run's workers' fastest to slowest: which starts first then depends on
/// the machine and the moment, not on the method).
bool withinSpread(const ComparedRow& best, const ComparedRow& o, ComparedFigure figure) {
    if (figure == ComparedFigure::StartUp) {
        const auto [lo, hi] = startupRange(best);
        const auto [olo, ohi] = startupRange(o);
        return olo <= hi && lo <= ohi;
    }
    const double w = figureOf(best, figure), v = figureOf(o, figure);
    return std::max(w, v) <= kAboutEqual * std::min(w, v);
}

/// Runs that differ only in their seed: the range of their samples/s, and
/// never a winner.
QString seedSpreadSentence(const QList<const ComparedRow*>& measured) {
    double lo = figureOf(*measured.front(), ComparedFigure::Throughput), hi = lo;
    for (const ComparedRow* r : measured) {
        lo = std::min(lo, figureOf(*r, ComparedFigure::Throughput));
        hi = std::max(hi, figureOf(*r, ComparedFigure::Throughput));
    }
    return tr("These runs differ only in their seed: their samples/s range from %1 to %2 (%3% "
              "apart), the spread between repeats of one experiment, not a difference between "
              "them.")
        .arg(formatDecimal(lo, 0), formatDecimal(hi, 0),
             formatDecimal(100 * (hi / lo - 1), hi / lo - 1 < 0.1 ? 1 : 0));
}

/// The sentence when every measured run is within the best one's spread.
QString tieSentence(const QList<const ComparedRow*>& measured, ComparedFigure figure) {
    const QString all = runNames(measured);
    const double w = figureOf(*measured.front(), figure);
    const bool exact = w == figureOf(*measured.back(), figure);
    if (figure == ComparedFigure::StartUp) {
        QStringList ranges;
        for (const ComparedRow* r : measured) {
            const auto [lo, hi] = startupRange(*r);
            ranges << tr("%1 %2–%3 ms").arg(r->label, milliseconds(lo), milliseconds(hi));
        }
        return exact ? tr("%1 started their workers as soon: all within %2 ms of launch.")
                           .arg(all, milliseconds(w))
                     : tr("%1 started their workers about as soon (%2): their ranges overlap, "
                          "so which is first depends on the machine and the moment.")
                           .arg(all, ranges.join(QStringLiteral(", ")));
    }
    if (figure == ComparedFigure::Divergence)
        return exact ? tr("%1 had the same median divergence over their steps: %2.")
                           .arg(all, significant(w))
                     : tr("%1 diverged about as much: median divergences within 10%, the "
                          "spread between repeated runs.")
                           .arg(all);
    return exact ? tr("%1 ran as many samples per second: %2.").arg(all, formatDecimal(w, 0))
                 : tr("%1 ran about as many samples per second: within 10%, the spread between "
                      "repeated runs, not a win.")
                       .arg(all);
}

/// How one other run `o` compares with the winner `best`.
QString againstWinner(const ComparedRow& best, const ComparedRow& o, ComparedFigure figure,
                      bool first) {
    const double w = figureOf(best, figure), v = figureOf(o, figure);
    const bool higherWins = figure == ComparedFigure::Throughput || figure == ComparedFigure::None;
    if (withinSpread(best, o, figure))
        return figure == ComparedFigure::StartUp
                   ? tr("%1 ms for %2 (within the spread: the ranges overlap)")
                         .arg(milliseconds(v), o.label)
                   : tr("about as %1 as %2 (within run-to-run spread)")
                         .arg(higherWins ? tr("many") : tr("much"), o.label);
    if (higherWins)
        return (first ? howMuch(w, v, "%1% more samples per second than %2",
                                "%1 times as many samples per second as %2")
                      : howMuch(w, v, "%1% more than %2", "%1 times as many as %2"))
            .arg(o.label);
    if (figure == ComparedFigure::StartUp)
        return tr("%1 ms for %2 (%3)")
            .arg(milliseconds(v), o.label, howMuch(v, w, "%1% longer", "%1 times as long"));
    return w > 0 ? tr("%1 for %2 (%3)")
                       .arg(significant(v), o.label, howMuch(v, w, "%1% more", "%1 times as much"))
                 : tr("%1 for %2").arg(significant(v), o.label);
}

/// The sentence on the compared figure: which run won, by how much; or
/// that none did, where the gaps are within the spread.
QString winnerSentence(const ComparisonRecord& c) {
    const ComparedFigure figure = c.figure;
    QList<const ComparedRow*> measured;
    for (const ComparedRow& r : c.rows)
        if (figureOf(r, figure) >= 0)
            measured.append(&r);
    if (measured.size() < 2)
        return tr("Fewer than two runs measured what the comparison compares: nothing to "
                  "set side by side.");
    if (c.seedOnly && (figure == ComparedFigure::Throughput || figure == ComparedFigure::None))
        return seedSpreadSentence(measured);
    const bool higherWins = figure == ComparedFigure::Throughput || figure == ComparedFigure::None;
    std::stable_sort(measured.begin(), measured.end(), [&](const auto* a, const auto* b) {
        return higherWins ? figureOf(*a, figure) > figureOf(*b, figure)
                          : figureOf(*a, figure) < figureOf(*b, figure);
    });
    const ComparedRow& best = *measured.front();
    // The leaders: the best run and every run within its spread. More
    // than one, and no run is named the winner among them.
    QList<const ComparedRow*> leaders, others;
    for (const ComparedRow* r : measured)
        (r == &best || withinSpread(best, *r, figure) ? leaders : others).append(r);
    if (others.isEmpty())
        return tieSentence(measured, figure);
    if (leaders.size() > 1) {
        QStringList behind;
        for (const ComparedRow* o : others)
            behind << againstWinner(best, *o, figure, false);
        const double w = figureOf(best, figure);
        const QString own = figure == ComparedFigure::StartUp ? tr("%1 ms").arg(milliseconds(w))
                            : figure == ComparedFigure::Divergence
                                ? significant(w)
                                : tr("%1 samples/s").arg(formatDecimal(w, 0));
        return tieSentence(leaders, figure) + ' ' +
               tr("Beside %1's %2: %3.").arg(best.label, own, behind.join(QStringLiteral(", ")));
    }
    QStringList against;
    for (qsizetype i = 1; i < measured.size(); ++i)
        against << againstWinner(best, *measured[i], figure, i == 1);
    const QString rest = against.join(QStringLiteral(", "));
    const double w = figureOf(best, figure);
    if (higherWins)
        return tr("%1 ran %2.").arg(best.label, rest);
    if (figure == ComparedFigure::StartUp)
        return tr("%1 started its workers soonest: all of them took their first step within "
                  "%2 ms of launch, against %3.")
            .arg(best.label, milliseconds(w), rest);
    // "All run long" only where its end was 0 too (data-parallel's
    // replicas): a median of 0 alone can hide a drift late in the run.
    if (w == 0 && finalDivergence(best) == 0)
        return tr("%1's divergence was 0 all run long, against a median of %2.")
            .arg(best.label, rest);
    return tr("%1 diverged least: a median divergence of %2 over its steps, against %3.")
        .arg(best.label, significant(w), rest);
}

QString figureCell(const ComparedRow& r, ComparedFigure figure) {
    if (figure == ComparedFigure::StartUp) {
        const auto [lo, hi] = startupRange(r);
        return hi < 0 ? QStringLiteral("–")
                      : QStringLiteral("%1–%2").arg(milliseconds(lo), milliseconds(hi));
    }
    const double final = finalDivergence(r);
    if (final < 0 && r.divergence < 0)
        return QStringLiteral("–");
    return QStringLiteral("%1 / %2").arg(final < 0 ? QStringLiteral("–") : significant(final),
                                         r.divergence < 0 ? QStringLiteral("–")
                                                          : significant(r.divergence));
}

QList<QStringList> tableOf(const ComparisonRecord& c) {
    const bool allFinished = std::all_of(c.rows.begin(), c.rows.end(), [](const ComparedRow& r) {
        return r.summary.state == RunState::Finished;
    });
    QStringList header{tr("run")};
    if (!allFinished)
        header << tr("result");
    header << tr("samples/s") << tr("test accuracy") << tr("train s");
    if (c.figure == ComparedFigure::Divergence)
        header << tr("divergence, final / median");
    else if (c.figure == ComparedFigure::StartUp)
        header << tr("start-up ms, min–max");
    else if (c.figure == ComparedFigure::TimeToTarget)
        header << raceHeader();
    QList<QStringList> table{header};
    const QList<QStringList> race =
        c.figure == ComparedFigure::TimeToTarget ? raceCells(c) : QList<QStringList>{};
    for (const ComparedRow& r : c.rows) {
        const RunSummary& s = r.summary;
        QStringList row{r.label};
        if (!allFinished)
            row << QString::fromLatin1(stateName(s.state));
        row << formatDecimal(s.samplesPerSecond, 0)
            << (s.evaluated ? formatDecimal(100.0 * s.testAccuracy, 2) + '%' : QStringLiteral("–"))
            << formatDecimal(s.trainSeconds, 2);
        if (c.figure == ComparedFigure::Divergence || c.figure == ComparedFigure::StartUp)
            row << figureCell(r, c.figure);
        else if (c.figure == ComparedFigure::TimeToTarget)
            row << race.value(table.size() - 1);
        table << row;
    }
    return table;
}

} // namespace

QString runNames(const QList<const ComparedRow*>& rows) {
    QStringList names;
    for (const ComparedRow* r : rows)
        names << r->label;
    if (names.size() == 1)
        return names.front();
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + tr(" and ") + names.back();
}

double medianDivergence(const MetricsLog& log) {
    std::vector<double> values;
    log.forEach([&](const Sample& s) {
        if (s.kind == Sample::Step && std::isfinite(s.divergence))
            values.push_back(double(s.divergence));
    });
    if (values.empty())
        return -1;
    const auto middle = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

Verdict comparisonVerdict(const ComparisonRecord& c) {
    Verdict v;
    const int made = int(c.rows.size());
    const bool allFinished = std::all_of(c.rows.begin(), c.rows.end(), [](const ComparedRow& r) {
        return r.summary.state == RunState::Finished;
    });
    v.kind = allFinished && made == c.planned ? Verdict::Fine : Verdict::Finding;
    v.title = made == c.planned ? tr("%1: %2 runs side by side").arg(c.title, formatCount(made))
                                : tr("%1: %2 of %3 runs, side by side (stopped)")
                                      .arg(c.title, formatCount(made), formatCount(c.planned));
    v.body = c.figure == ComparedFigure::TimeToTarget ? targetRaceSentence(c) : winnerSentence(c);
    const auto readOn = [&v](const char* chart, const QString& name) {
        v.chart = QString::fromLatin1(chart);
        v.chartName = name;
    };
    if (c.figure == ComparedFigure::Throughput)
        readOn("rateChart", tr("throughput"));
    else if (c.figure == ComparedFigure::Divergence)
        readOn("divergenceChart", tr("divergence"));
    else if (c.figure == ComparedFigure::TimeToTarget)
        readOn("accuracyChart", tr("test accuracy"));
    v.table = tableOf(c);
    return v;
}

const Preset* comparingPreset(const std::vector<Preset>& presets, const QString& activeId,
                              const std::vector<PresetRun>& runs) {
    for (const Preset& p : presets) {
        if (QString::fromStdString(p.id) != activeId || p.compare.size() != runs.size())
            continue;
        if (std::equal(runs.begin(), runs.end(), p.compare.begin(),
                       [](const PresetRun& a, const PresetRun& b) { return a.label == b.label; }))
            return &p;
    }
    return nullptr;
}

} // namespace hwl::ui
