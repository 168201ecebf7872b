#include "io/runstable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace hwl {

namespace {
/// A figure as sweep.csv writes it: %.6g, empty when not a number.
std::string number(double x) {
    if (!std::isfinite(x))
        return {};
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", x);
    return text;
}

const char* resultOf(const TableRun& r) {
    return r.started ? toString(r.summary.state) : "refused";
}

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
} // namespace

const std::vector<RunFigure>& runFigures() {
    static const std::vector<RunFigure> figures = {
        {"result", [](const TableRun& r) { return std::string(resultOf(r)); }},
        {"exit", [](const TableRun& r) { return std::to_string(r.exitCode); }},
        {"samples_per_s",
         [](const TableRun& r) {
             return r.started ? number(r.summary.samplesPerSecond) : std::string();
         }},
        {"test_accuracy",
         [](const TableRun& r) {
             return r.summary.evaluated ? number(r.summary.testAccuracy) : std::string();
         }},
        {"test_loss",
         [](const TableRun& r) {
             return r.summary.evaluated ? number(r.summary.testLoss) : std::string();
         }},
        {"train_loss",
         [](const TableRun& r) {
             return r.summary.epochsCompleted > 0 ? number(r.summary.trainLoss) : std::string();
         }},
        {"train_seconds",
         [](const TableRun& r) {
             return r.started ? number(r.summary.trainSeconds) : std::string();
         }},
        {"startup_seconds",
         [](const TableRun& r) {
             const auto& s = r.summary.startupSeconds;
             return s.empty() ? std::string() : number(*std::max_element(s.begin(), s.end()));
         }},
        {"comm_share",
         [](const TableRun& r) {
             const auto& c = r.summary.commSeconds;
             const double loop = r.summary.trainSeconds * double(c.size());
             return c.empty() || loop <= 0
                        ? std::string()
                        : number(std::accumulate(c.begin(), c.end(), 0.0) / loop);
         }},
        {"lost_updates",
         [](const TableRun& r) {
             return r.summary.lostUpdates.empty() ? std::string()
                                                  : std::to_string(r.summary.totalLostUpdates());
         }},
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
