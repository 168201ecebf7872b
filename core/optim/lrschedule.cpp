#include "optim/lrschedule.h"

#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>

namespace hwl {

namespace {
[[noreturn]] void invalid(const std::string& spec, const std::string& why) {
    throw InputError("lr-schedule: \"" + spec + "\" is not valid: " + why +
                     ". Accepted forms: constant, step:EPOCHS:GAMMA (e.g. step:10:0.5: the "
                     "rate times 0.5 every 10 epochs), cosine");
}

std::string shortest(double x) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, x).ptr);
}
} // namespace

double LrSchedule::rate(int epoch, std::uint64_t step) const {
    const int e = std::max(epoch, 1) - 1; // the epochs completed before this one
    double lr = base;
    switch (kind) {
    case Kind::Constant:
        break;
    case Kind::Step:
        lr = base * std::pow(gamma, double(e / std::max(stepEpochs, 1)));
        break;
    case Kind::Cosine:
        lr = base * (1 + std::cos(std::numbers::pi * double(e) / double(std::max(epochs, 1)))) / 2;
        break;
    }
    if (warmupSteps > 0 && step < std::uint64_t(warmupSteps))
        lr *= double(step + 1) / double(warmupSteps);
    return lr;
}

LrSchedule parseLrSchedule(const std::string& spec) {
    LrSchedule s;
    if (spec == "constant")
        return s;
    if (spec == "cosine") {
        s.kind = LrSchedule::Kind::Cosine;
        return s;
    }
    if (spec.rfind("step:", 0) != 0)
        invalid(spec, "unknown schedule");
    const std::string rest = spec.substr(5);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos)
        invalid(spec, "step needs EPOCHS and GAMMA");
    const auto epochs = parseInteger(rest.substr(0, colon));
    const auto gamma = parseNumber(rest.substr(colon + 1));
    if (!epochs || *epochs < 1 || *epochs > 100000)
        invalid(spec, "EPOCHS must be a whole number in 1..100000");
    if (!gamma || !(*gamma > 0) || *gamma > 1)
        invalid(spec, "GAMMA must be a number in (0, 1]");
    s.kind = LrSchedule::Kind::Step;
    s.stepEpochs = int(*epochs);
    s.gamma = *gamma;
    return s;
}

std::string describeLrSchedule(const LrSchedule& s) {
    switch (s.kind) {
    case LrSchedule::Kind::Step:
        return "step:" + std::to_string(s.stepEpochs) + ":" + shortest(s.gamma);
    case LrSchedule::Kind::Cosine:
        return "cosine";
    case LrSchedule::Kind::Constant:
        break;
    }
    return "constant";
}

} // namespace hwl
