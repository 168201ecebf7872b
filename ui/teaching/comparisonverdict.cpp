#include "teaching/comparisonverdict.h"

#include "io/metricslog.h"
#include "telemetry/sample.h"
#include "widgets/numbers.h"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {

QString tr(const char* text) {
    return QObject::tr(text);
}

/// About three significant digits, grouped: "0.0123", "5.20", "1,234".
QString significant(double x) {
    if (x == 0 || !std::isfinite(x))
        return formatDecimal(x, 0);
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
        return r.meanDivergence;
    case ComparedFigure::StartUp:
        return startupRange(r).second;
    case ComparedFigure::Throughput:
    case ComparedFigure::None:
        break;
    }
    return r.summary.samplesPerSecond > 0 ? r.summary.samplesPerSecond : -1;
}

/// "20% more" / "3.1 times as": how much `big` exceeds `small` (both > 0).
QString howMuch(double big, double small, const char* more, const char* times) {
    const double ratio = big / small;
    if (ratio >= 2)
        return QObject::tr(times).arg(formatDecimal(ratio, 1));
    const double pct = 100 * (ratio - 1);
    return QObject::tr(more).arg(formatDecimal(pct, pct < 10 ? 1 : 0));
}

/// Two runs' samples/s within this ratio are about equal: repeated runs of
/// one preset differ by about that much on the 2-core VM (bench/presets.py:
/// hogwild-vs-locked's hogwild/locked ratio 1.5-1.8 over repeats, +-9%
/// about its middle), so a smaller gap is not a result to read.
constexpr double kAboutEqualRate = 1.10;

/// "fork, spawn and forkserver": every run's label (at least two).
QString namesOf(const QList<const ComparedRow*>& rows) {
    QStringList names;
    for (const ComparedRow* r : rows)
        names << r->label;
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + tr(" and ") + names.back();
}

/// The sentence on the compared figure: which run won, by how much.
QString winnerSentence(const QList<ComparedRow>& rows, ComparedFigure figure) {
    QList<const ComparedRow*> measured;
    for (const ComparedRow& r : rows)
        if (figureOf(r, figure) >= 0)
            measured.append(&r);
    if (measured.size() < 2)
        return tr("Fewer than two runs measured what the comparison compares: nothing to "
                  "set side by side.");
    const bool higherWins = figure == ComparedFigure::Throughput || figure == ComparedFigure::None;
    std::stable_sort(measured.begin(), measured.end(), [&](const auto* a, const auto* b) {
        return higherWins ? figureOf(*a, figure) > figureOf(*b, figure)
                          : figureOf(*a, figure) < figureOf(*b, figure);
    });
    const ComparedRow& best = *measured.front();
    const double w = figureOf(best, figure);
    if (w == figureOf(*measured.back(), figure)) { // a tie: no winner to name
        const QString all = namesOf(measured);
        if (higherWins)
            return tr("%1 ran as many samples per second: %2.").arg(all, formatDecimal(w, 0));
        if (figure == ComparedFigure::StartUp)
            return tr("%1 started their workers as soon: all within %2 ms of launch.")
                .arg(all, milliseconds(w));
        return tr("%1 had the same mean divergence over the run: %2.").arg(all, significant(w));
    }
    if (higherWins && w < kAboutEqualRate * figureOf(*measured.back(), figure)) {
        const QString all = namesOf(measured);
        return tr("%1 ran about as many samples per second: within 10%, the spread between "
                  "repeated runs, not a win.")
            .arg(all);
    }
    QStringList against;
    for (qsizetype i = 1; i < measured.size(); ++i) {
        const ComparedRow& o = *measured[i];
        const double v = figureOf(o, figure);
        const bool first = i == 1;
        if (higherWins && w < kAboutEqualRate * v) {
            against << tr("about as many as %1 (within run-to-run spread)").arg(o.label);
        } else if (higherWins) {
            against << (first ? howMuch(w, v, "%1% more samples per second than %2",
                                        "%1 times as many samples per second as %2")
                              : howMuch(w, v, "%1% more than %2", "%1 times as many as %2"))
                           .arg(o.label);
        } else if (figure == ComparedFigure::StartUp) {
            against << tr("%1 ms for %2 (%3)")
                           .arg(milliseconds(v), o.label,
                                howMuch(v, w, "%1% longer", "%1 times as long"));
        } else {
            against << (w > 0 ? tr("%1 for %2 (%3)")
                                    .arg(significant(v), o.label,
                                         howMuch(v, w, "%1% more", "%1 times as much"))
                              : tr("%1 for %2").arg(significant(v), o.label));
        }
    }
    const QString others = against.join(QStringLiteral(", "));
    if (higherWins)
        return tr("%1 ran %2.").arg(best.label, others);
    if (figure == ComparedFigure::StartUp)
        return tr("%1 started its workers soonest: all of them took their first step within "
                  "%2 ms of launch, against %3.")
            .arg(best.label, milliseconds(w), others);
    if (w == 0)
        return tr("%1's divergence was 0 all run long, against a mean of %2.")
            .arg(best.label, others);
    return tr("%1 diverged least: a mean divergence of %2 over the run, against %3.")
        .arg(best.label, significant(w), others);
}

QString figureCell(const ComparedRow& r, ComparedFigure figure) {
    if (figure == ComparedFigure::StartUp) {
        const auto [lo, hi] = startupRange(r);
        return hi < 0 ? QStringLiteral("–")
                      : QStringLiteral("%1–%2").arg(milliseconds(lo), milliseconds(hi));
    }
    const std::vector<double>& last = r.summary.divergence;
    if (last.empty() && r.meanDivergence < 0)
        return QStringLiteral("–");
    double final = 0;
    for (const double d : last)
        final += d / double(last.size());
    return QStringLiteral("%1 / %2").arg(last.empty() ? QStringLiteral("–") : significant(final),
                                         r.meanDivergence < 0 ? QStringLiteral("–")
                                                              : significant(r.meanDivergence));
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
        header << tr("divergence, final / mean");
    else if (c.figure == ComparedFigure::StartUp)
        header << tr("start-up ms, min–max");
    QList<QStringList> table{header};
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
        table << row;
    }
    return table;
}

} // namespace

double meanDivergence(const MetricsLog& log) {
    double sum = 0;
    std::uint64_t n = 0;
    log.forEach([&](const Sample& s) {
        if (s.kind == Sample::Step && std::isfinite(s.divergence)) {
            sum += double(s.divergence);
            ++n;
        }
    });
    return n ? sum / double(n) : -1;
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
    v.body = winnerSentence(c.rows, c.figure);
    if (c.figure == ComparedFigure::Throughput)
        v.body += tr(" The throughput chart shows every run.");
    else if (c.figure == ComparedFigure::Divergence)
        v.body += tr(" The divergence chart shows every run.");
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
