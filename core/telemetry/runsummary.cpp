#include "telemetry/runsummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hwl {

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
