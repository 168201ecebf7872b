#include "cli/report.h"

#include "io/runscompare.h"
#include "io/targetrace.h"

#include "strategy/catalog.h"
#include "toy/countertoy.h"

#include <algorithm>
#include <cstdio>

namespace hwl {

std::string humanRate(double perSecond) {
    char text[32];
    if (perSecond >= 1e6)
        std::snprintf(text, sizeof text, "%.2fM", perSecond / 1e6);
    else if (perSecond >= 1e3)
        std::snprintf(text, sizeof text, "%.1fk", perSecond / 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f", perSecond);
    return text;
}

void progressBar(const TelemetryReader& t, std::uint64_t expectedSamples) {
    const std::uint64_t samples = t.samplesSoFar();
    const double fraction =
        expectedSamples ? std::min(1.0, double(samples) / double(expectedSamples)) : 0;
    const double elapsed = t.elapsed();
    const int width = 30, filled = int(fraction * width);
    std::string bar(std::size_t(filled), '=');
    if (filled < width)
        bar += '>' + std::string(std::size_t(width - filled - 1), ' ');
    std::fprintf(stderr, "\r[%s] %3d%%  %s samples/s  %s", bar.c_str(), int(fraction * 100),
                 humanRate(elapsed > 0 ? double(samples) / elapsed : 0).c_str(),
                 t.runState() == RunState::Paused ? "paused " : "       ");
    std::fflush(stderr);
}

void clearProgress() {
    std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
}

std::string sampleLine(const Sample& s, const LineStyle& style) {
    if (s.kind == Sample::Step || (style.quiet && s.kind != Sample::Eval))
        return {};
    char line[160];
    if (s.kind == Sample::EpochEnd && style.scheduled) // the rate its last step took
        std::snprintf(
            line, sizeof line, "epoch %u  worker %d  loss %.4f  lr %.6g  (%llu samples, %.2f s)\n",
            s.epoch, s.worker, double(s.loss), double(s.lr), (unsigned long long)s.samples, s.time);
    else if (s.kind == Sample::EpochEnd)
        std::snprintf(line, sizeof line, "epoch %u  worker %d  loss %.4f  (%llu samples, %.2f s)\n",
                      s.epoch, s.worker, double(s.loss), (unsigned long long)s.samples, s.time);
    else if (style.haveTestSet && style.evalInside) // several in an epoch: where each was
        std::snprintf(line, sizeof line,
                      "epoch %u  %llu samples  test loss %.4f  accuracy %.2f%%\n", s.epoch,
                      (unsigned long long)s.samples, double(s.loss), 100.0 * double(s.accuracy));
    else if (style.haveTestSet)
        std::snprintf(line, sizeof line, "epoch %u  test loss %.4f  accuracy %.2f%%\n", s.epoch,
                      double(s.loss), 100.0 * double(s.accuracy));
    else
        return {};
    return line;
}

void printPrepared(const Run& run) {
    for (const auto& note : run.notes())
        std::printf("warning: %s\n", note.c_str());
    const RunInfo& info = run.info();
    std::printf("data: %s; test: %s\n", info.trainDescription.c_str(),
                info.testRows ? info.testDescription.c_str() : "none");
    std::printf("model: %lld parameters\n", (long long)info.parameters);
}

namespace {
std::string startupText(const RunSummary& s) {
    std::string startup;
    for (std::size_t r = 0; r < s.startupSeconds.size(); ++r) {
        char part[48];
        if (s.startupSeconds[r] < 0)
            std::snprintf(part, sizeof part, "%s%zu: took no step", r ? ", " : "", r);
        else
            std::snprintf(part, sizeof part, "%s%zu: %.2f ms", r ? ", " : "", r,
                          s.startupSeconds[r] * 1e3);
        startup += part;
    }
    return startup;
}
} // namespace

std::string lostUpdatesText(const RunSummary& s, const std::string& noun) {
    const std::uint64_t writes = s.totalUpdateWrites(), lost = s.totalLostUpdates();
    std::string parts;
    for (std::size_t r = 0; r < s.updateWrites.size(); ++r) {
        char part[128];
        std::snprintf(part, sizeof part, "%s%s %zu: %llu of %llu", r ? ", " : "", noun.c_str(), r,
                      (unsigned long long)s.lostUpdates[r], (unsigned long long)s.updateWrites[r]);
        parts += part;
    }
    char total[96];
    std::snprintf(total, sizeof total, "%llu of %llu (%.4f%%); ", (unsigned long long)lost,
                  (unsigned long long)writes, writes ? 100.0 * double(lost) / double(writes) : 0.0);
    return total + parts;
}

std::string counterToyText(int workers, std::int64_t increments) {
    const std::vector<CounterToyResult> results = runCounterToy(workers, increments);
    char line[200];
    std::snprintf(line, sizeof line,
                  "shared counter: %d workers each add 1 to one shared float %lld times "
                  "(expected %llu)\n",
                  workers, (long long)increments, (unsigned long long)results.front().expected);
    std::string text = line;
    for (const CounterToyResult& r : results) {
        std::snprintf(line, sizeof line, "  %-7s final %9.0f  lost %9llu (%5.1f%%)  %8.2f ms  %s\n",
                      r.way.c_str(), r.final, (unsigned long long)r.lost,
                      100.0 * double(r.lost) / double(r.expected), r.seconds * 1e3, r.how.c_str());
        text += line;
    }
    return text + "  plain loses what two workers add at once: both load the same value and both "
                  "store it + 1.\n  atomic and locked never lose one; the price is the time.\n";
}

std::string communicationText(const RunSummary& s) {
    std::string text;
    for (std::size_t r = 0; r < s.bytesReduced.size(); ++r) {
        char part[96];
        std::snprintf(part, sizeof part, "%s%zu: %.3f s, %.0f%%, %.1f MB", r ? "; " : "", r,
                      s.commSeconds[r], 100.0 * std::max(0.0, s.commShare(r)),
                      double(s.bytesReduced[r]) / 1e6);
        text += part;
    }
    return text;
}

void printSummary(const Run& run, const RunSummary& s) {
    std::printf("summary: %s after %d of %d epochs; %llu samples in %.2f s training "
                "(%.3f s wall): %s samples/s\n",
                stateName(s.state), s.epochsCompleted, run.config().epochs,
                (unsigned long long)s.samples, s.trainSeconds, s.wallSeconds,
                humanRate(s.samplesPerSecond).c_str());
    std::printf("summary: worker start-up (launch to first step): %s\n", startupText(s).c_str());
    if (s.evaluated)
        std::printf("summary: final test accuracy %.2f%%, test loss %.4f, train loss %.4f\n",
                    100.0 * s.testAccuracy, s.testLoss, s.trainLoss);
    else if (run.info().testRows == 0)
        std::printf("summary: final train loss %.4f (no test set)\n", s.trainLoss);
    else
        std::printf("summary: the test set was not evaluated (no epoch completed)\n");
    if (s.target.set())
        std::printf("summary: target: %s\n", s.target.outcomeText(s.epochsCompleted).c_str());
    if (s.outcome == LearningOutcome::Diverged)
        std::printf("summary: diverged: %s; lower the learning rate (--lr)\n",
                    s.outcomeReason.c_str());
    else if (s.outcome == LearningOutcome::AtChance)
        std::printf("summary: at chance: %s: the model learned nothing it could use\n",
                    s.outcomeReason.c_str());
    if (!s.updateWrites.empty()) {
        const StrategyTraits* traits = findStrategy(run.config());
        std::printf("summary: lost updates: %s\n",
                    lostUpdatesText(s, traits ? traits->workerNoun : "worker").c_str());
    }
    for (const auto& failure : s.workerFailures)
        std::printf("worker failure: %s\n", failure.c_str());
    for (const auto& explanation : s.explanations)
        std::printf("pitfall: %s\n", explanation.c_str());
    for (const auto& remark : s.remarks)
        std::printf("summary: %s\n", remark.c_str());
    if (!s.bytesReduced.empty())
        std::printf(
            "summary: communication (time in collectives, share of the training loop, bytes "
            "reduced): %s\n",
            communicationText(s).c_str());
    if (s.droppedSamples)
        std::printf("summary: %llu telemetry samples were dropped (monitor too slow)\n",
                    (unsigned long long)s.droppedSamples);
}

namespace {
/// Each worker's start-up in ms ("3.1 2.9"), "-" for thread workers and
/// for a run that never got that far.
std::string startupCell(const ComparedRun& r) {
    if (!workersAreProcesses(r.config))
        return "-";
    std::string cell;
    for (const double seconds : r.summary.startupSeconds) {
        char part[24];
        if (seconds < 0)
            std::snprintf(part, sizeof part, "%snone", cell.empty() ? "" : " ");
        else
            std::snprintf(part, sizeof part, "%s%.1f", cell.empty() ? "" : " ", seconds * 1e3);
        cell += part;
    }
    return cell.empty() ? "-" : cell;
}
} // namespace

std::string comparisonText(const std::string& presetId, const std::vector<ComparedRun>& runs,
                           std::size_t planned) {
    bool processes = false;
    std::size_t width = 5;
    for (const ComparedRun& r : runs) {
        processes = processes || workersAreProcesses(r.config);
        width = std::max(width, r.label.size());
    }
    char line[256];
    std::snprintf(line, sizeof line, "comparison: %s, %zu of %zu runs\n", presetId.c_str(),
                  runs.size(), planned);
    std::string text = line;
    const bool targets = std::any_of(runs.begin(), runs.end(),
                                     [](const ComparedRun& r) { return r.summary.target.set(); });
    std::snprintf(line, sizeof line, "  %-*s  %-8s  %9s  %13s  %8s%s%s\n", int(width), "run",
                  "result", "samples/s", "test accuracy", "train s",
                  targets ? "  to target s  samples to target" : "",
                  processes ? "  start-up ms (each worker)" : "");
    text += line;
    for (const ComparedRun& r : runs) {
        const RunSummary& s = r.summary;
        char accuracy[16] = "-";
        if (s.evaluated)
            std::snprintf(accuracy, sizeof accuracy, "%.2f%%", 100.0 * s.testAccuracy);
        char target[48] = "";
        if (targets && s.target.reached)
            std::snprintf(target, sizeof target, "  %11.3g  %16llu", s.target.trainSeconds,
                          (unsigned long long)s.target.samples);
        else if (targets)
            std::snprintf(target, sizeof target, "  %11s  %16s", "not reached", "-");
        std::snprintf(line, sizeof line, "  %-*s  %-8s  %9s  %13s  %8.2f%s%s%s\n", int(width),
                      r.label.c_str(), stateName(s.state), humanRate(s.samplesPerSecond).c_str(),
                      accuracy, s.trainSeconds, target, processes ? "  " : "",
                      processes ? startupCell(r).c_str() : "");
        text += line;
    }
    return text;
}

std::string sweepText(const std::vector<std::string>& keys, const std::vector<TableRun>& runs,
                      std::size_t planned) {
    std::vector<std::size_t> widths;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        std::size_t w = keys[k].size();
        for (const TableRun& r : runs)
            w = std::max(w, k < r.values.size() ? r.values[k].size() : 0);
        widths.push_back(std::min<std::size_t>(w, 40));
    }
    std::string text =
        "sweep: " + std::to_string(runs.size()) + " of " + std::to_string(planned) + " runs\n ";
    char cell[128];
    for (std::size_t k = 0; k < keys.size(); ++k) {
        std::snprintf(cell, sizeof cell, " %-*s", int(widths[k]), keys[k].c_str());
        text += cell;
    }
    const bool targets = std::any_of(runs.begin(), runs.end(),
                                     [](const TableRun& r) { return r.summary.target.set(); });
    text += targets ? "  result    samples/s  test accuracy  test loss   train s  to target s\n"
                    : "  result    samples/s  test accuracy  test loss   train s\n";
    for (const TableRun& r : runs) {
        text += " ";
        for (std::size_t k = 0; k < keys.size(); ++k) {
            std::snprintf(cell, sizeof cell, " %-*s", int(widths[k]),
                          k < r.values.size() ? r.values[k].c_str() : "");
            text += cell;
        }
        const RunSummary& s = r.summary;
        char accuracy[16] = "-", loss[16] = "-";
        if (s.evaluated) {
            std::snprintf(accuracy, sizeof accuracy, "%.2f%%", 100.0 * s.testAccuracy);
            std::snprintf(loss, sizeof loss, "%.4f", s.testLoss);
        }
        char seconds[16] = "-";
        if (r.started)
            std::snprintf(seconds, sizeof seconds, "%.2f", s.trainSeconds);
        std::snprintf(cell, sizeof cell, "  %-8s  %9s  %13s  %9s  %8s",
                      r.started ? stateName(s.state) : "refused",
                      r.started ? humanRate(s.samplesPerSecond).c_str() : "-", accuracy, loss,
                      seconds);
        text += cell;
        if (targets) { // "not reached" never left out: a run that missed it says so
            char toTarget[24] = "-";
            if (s.target.reached)
                std::snprintf(toTarget, sizeof toTarget, "%.3g", s.target.trainSeconds);
            else if (r.started && s.target.set())
                std::snprintf(toTarget, sizeof toTarget, "not reached");
            std::snprintf(cell, sizeof cell, "  %11s", toTarget);
            text += cell;
        }
        text += "\n";
    }
    return text;
}

std::string raceText(const std::vector<ComparedRun>& runs, const std::vector<PresetRun>& planned) {
    std::vector<RaceEntrant> entrants;
    std::string target;
    for (const ComparedRun& r : runs) {
        if (!r.summary.target.set())
            continue;
        target = r.summary.target.describe();
        std::string group = r.label;
        for (const PresetRun& p : planned)
            if (p.label == r.label && !p.group.empty())
                group = p.group;
        if (entrants.empty() || entrants.back().label != group)
            entrants.push_back({group, {}});
        entrants.back().runs.push_back(r.summary);
    }
    if (entrants.empty())
        return {};
    std::string text = "race to " + target +
                       " (training seconds to it over the repeats: median, range; "
                       "samples to it and samples/s: medians):\n";
    char line[256];
    const std::vector<RacePlace> places = raceToTarget(entrants);
    for (std::size_t i = 0; i < places.size(); ++i) {
        const RacePlace& p = places[i];
        const int place = p.aboutFirst ? 1 : int(i) + 1; // the first's, or its own
        if (!p.reached()) {
            std::snprintf(line, sizeof line, "  -  %-16s not reached in any of %zu runs\n",
                          p.label.c_str(), p.runs);
        } else {
            std::snprintf(line, sizeof line,
                          "  %d. %-16s %8.3g s (%.3g-%.3g)  %zu of %zu reached  %.0f samples  %s "
                          "samples/s%s\n",
                          place, p.label.c_str(), p.seconds.median, p.seconds.lo, p.seconds.hi,
                          p.seconds.n, p.runs, p.samples.median, humanRate(p.rate.median).c_str(),
                          p.aboutFirst ? "  (about as soon as the first: within its range)" : "");
        }
        text += line;
    }
    return text;
}

std::string repeatsText(const std::vector<PresetRun>& planned, const std::vector<TableRun>& rows) {
    std::vector<FolderRun> runs;
    for (const TableRun& row : rows)
        for (const PresetRun& run : planned)
            if (run.label == row.label && row.started)
                runs.push_back(folderRunOf(run.config, row));
    const RunsTable table = runsTable(runs, true);
    if (!table.grouped)
        return {};
    return "repeats: each figure's mean ± standard deviation over the seeds\n" +
           formatRunsTable(table, TableFormat::Text);
}

} // namespace hwl
