#include "io/runstable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace hwl {

namespace {
/// A figure as sweep.csv writes it: %.6g (a whole number below 2^53 in
/// full), empty when not a number.
std::string number(double x) {
    if (!std::isfinite(x))
        return {};
    char text[32];
    const bool whole = x == std::floor(x) && std::fabs(x) < 9007199254740992.0;
    std::snprintf(text, sizeof text, whole ? "%.0f" : "%.6g", x);
    return text;
}

const char* resultOf(const TableRun& r) {
    return r.started ? resultName(r.summary) : "refused";
}

} // namespace

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text) {
        quoted.push_back(c);
        if (c == '"')
            quoted.push_back('"'); // doubled
    }
    quoted.push_back('"');
    return quoted;
}

namespace {
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double samplesPerSecond(const TableRun& r) {
    return r.started ? r.summary.samplesPerSecond : kNone;
}
double testAccuracy(const TableRun& r) {
    return r.summary.evaluated ? r.summary.testAccuracy : kNone;
}
double testLoss(const TableRun& r) {
    return r.summary.evaluated ? r.summary.testLoss : kNone;
}
double trainLoss(const TableRun& r) {
    return r.summary.epochsCompleted > 0 ? r.summary.trainLoss : kNone;
}
double trainSeconds(const TableRun& r) {
    return r.started ? r.summary.trainSeconds : kNone;
}
/// With a target: the training seconds and samples to it; NaN when not reached.
double targetSeconds(const TableRun& r) {
    return r.summary.target.reached ? r.summary.target.trainSeconds : kNone;
}
double targetSamples(const TableRun& r) {
    return r.summary.target.reached ? double(r.summary.target.samples) : kNone;
}
std::string targetText(const TableRun& r) {
    return r.summary.target.state();
}

double startupSeconds(const TableRun& r) {
    const auto& s = r.summary.startupSeconds;
    return s.empty() ? kNone : *std::max_element(s.begin(), s.end());
}
double commShare(const TableRun& r) {
    const double share = r.summary.commShare();
    return share < 0 ? kNone : share;
}
double lostUpdates(const TableRun& r) {
    return r.summary.lostUpdates.empty() ? kNone : double(r.summary.totalLostUpdates());
}

/// A numeric figure's text: number() of its value.
template <double (*Value)(const TableRun&)>
std::string textOf(const TableRun& r) {
    return number(Value(r));
}
template <double (*Value)(const TableRun&)>
RunFigure numeric(const char* column) {
    return {column, &textOf<Value>, Value};
}
} // namespace

const std::vector<RunFigure>& runFigures() {
    static const std::vector<RunFigure> figures = {
        {"result", [](const TableRun& r) { return std::string(resultOf(r)); }, nullptr},
        {"exit", [](const TableRun& r) { return std::to_string(r.exitCode); }, nullptr},
        numeric<samplesPerSecond>("samples_per_s"),
        numeric<testAccuracy>("test_accuracy"),
        numeric<testLoss>("test_loss"),
        numeric<trainLoss>("train_loss"),
        numeric<trainSeconds>("train_seconds"),
        {"target", &targetText, nullptr},
        numeric<targetSeconds>("target_seconds"),
        numeric<targetSamples>("target_samples"),
        numeric<startupSeconds>("startup_seconds"),
        numeric<commShare>("comm_share"),
        numeric<lostUpdates>("lost_updates"),
    };
    return figures;
}

std::string runsCsv(const std::vector<std::string>& keys, const std::vector<TableRun>& runs) {
    std::string csv;
    const auto field = [&csv](const std::string& text, bool first = false) {
        if (!first)
            csv.push_back(',');
        csv.append(csvField(text));
    };
    field("run", true);
    for (const std::string& key : keys)
        field(key);
    for (const RunFigure& f : runFigures())
        field(f.column);
    field("error");
    csv.push_back('\n');
    for (const TableRun& r : runs) {
        field(r.label, true);
        for (std::size_t k = 0; k < keys.size(); ++k)
            field(k < r.values.size() ? r.values[k] : std::string());
        for (const RunFigure& f : runFigures())
            field(f.text(r));
        field(r.error);
        csv.push_back('\n');
    }
    return csv;
}

} // namespace hwl
