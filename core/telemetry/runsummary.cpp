#include "telemetry/runsummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace hwl {

bool TargetResult::metBy(double testAccuracy, double testLoss) const {
    // A tolerance of none: the figure the user reads (rounded) may show the
    // target while the measured one is a hair short; it is the measured one.
    return (accuracy > 0 && std::isfinite(testAccuracy) && 100.0 * testAccuracy >= accuracy) ||
           (loss > 0 && std::isfinite(testLoss) && testLoss <= loss);
}

std::string TargetResult::describe() const {
    char buf[96];
    std::string text;
    if (accuracy > 0) {
        std::snprintf(buf, sizeof buf, "test accuracy %g%%", accuracy);
        text = buf;
    }
    if (loss > 0) {
        std::snprintf(buf, sizeof buf, "test loss %g", loss);
        text += (text.empty() ? "" : " or ") + std::string(buf);
    }
    return text;
}

std::string TargetResult::outcomeText(int epochsCompleted) const {
    char buf[256];
    if (reached)
        // The time is samples over the rate: how many it took (statistical
        // efficiency) and how fast they went (hardware efficiency).
        std::snprintf(buf, sizeof buf,
                      " reached %s epoch %d, after %.3g s of training (%.3g s wall): %llu "
                      "samples (%llu steps) at %.0f samples/s",
                      duringEpoch ? "during" : "at", epochs, trainSeconds, wallSeconds,
                      (unsigned long long)samples, (unsigned long long)steps,
                      trainSeconds > 0 ? double(samples) / trainSeconds : 0.0);
    else if (std::isnan(bestAccuracy))
        std::snprintf(buf, sizeof buf, " not reached: no evaluation was made");
    else
        std::snprintf(buf, sizeof buf,
                      " not reached in %d epoch%s; best: test accuracy %.2f%%, test loss %.4g",
                      epochsCompleted, epochsCompleted == 1 ? "" : "s", 100.0 * bestAccuracy,
                      bestLoss);
    return describe() + buf;
}

const char* outcomeName(LearningOutcome o) {
    switch (o) {
    case LearningOutcome::Learned:
        return "learned";
    case LearningOutcome::AtChance:
        return "at chance";
    case LearningOutcome::Diverged:
        return "diverged";
    case LearningOutcome::NotJudged:
        break;
    }
    return "not judged";
}

const char* resultName(const RunSummary& s) {
    if (s.outcome == LearningOutcome::Diverged || s.outcome == LearningOutcome::AtChance)
        return outcomeName(s.outcome);
    return stateName(s.state);
}

void judgeLearning(RunSummary& s) {
    s.outcome = LearningOutcome::NotJudged;
    s.outcomeReason.clear();
    if ((s.state != RunState::Finished && s.state != RunState::Stopped) || s.epochsCompleted < 1)
        return;
    const bool test = s.evaluated;
    const double loss = test ? s.testLoss : s.trainLoss;
    const char* which = test ? "test" : "training";
    char text[320];
    const double ceiling = std::max(1.25 * s.startLoss, s.startLoss + 0.05);
    if (!std::isfinite(loss) || (std::isfinite(s.startLoss) && loss > ceiling)) {
        s.outcome = LearningOutcome::Diverged;
        if (std::isfinite(s.startLoss))
            std::snprintf(text, sizeof text,
                          "the %s loss ended at %.4g, above the %.4g the model started from", which,
                          loss, s.startLoss);
        else
            std::snprintf(text, sizeof text, "the %s loss ended at %g", which, loss);
        s.outcomeReason = text;
        return;
    }
    if (test && std::isfinite(s.chanceAccuracy) && s.testRows > 0) {
        const double c = s.chanceAccuracy;
        const double band = c + std::max(0.01, 3 * std::sqrt(c * (1 - c) / double(s.testRows)));
        if (s.testAccuracy <= band) {
            s.outcome = LearningOutcome::AtChance;
            std::snprintf(text, sizeof text,
                          "the test accuracy ended at %.2f%%, within what always answering the "
                          "most common class scores (%.2f%%, up to %.2f%% by chance on %lld "
                          "rows)",
                          100 * s.testAccuracy, 100 * c, 100 * band, (long long)s.testRows);
            s.outcomeReason = text;
            return;
        }
    }
    s.outcome = LearningOutcome::Learned;
}

} // namespace hwl
