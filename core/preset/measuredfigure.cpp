#include "preset/measuredfigure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace hwl {

namespace {

constexpr const char* kKinds[] = {"rate", "acc",   "train", "comm", "mb",    "startup",
                                  "lost", "steps", "wall",  "div",  "target"};

struct Term {
    std::string kind, run;
};

/// "KIND RUN" or "KIND RUN / KIND RUN" into terms; empty when malformed.
std::vector<Term> termsOf(const std::string& figure, std::string* why) {
    std::vector<Term> terms;
    std::stringstream parts(figure);
    std::string part;
    while (std::getline(parts, part, '/')) {
        std::istringstream words(part);
        Term t;
        std::string extra;
        if (!(words >> t.kind >> t.run) || (words >> extra)) {
            if (why)
                *why = "\"" + part + "\" is not KIND RUN";
            return {};
        }
        if (std::find(std::begin(kKinds), std::end(kKinds), t.kind) == std::end(kKinds)) {
            if (why)
                *why = "no figure kind \"" + t.kind + "\"";
            return {};
        }
        terms.push_back(t);
    }
    if (terms.empty() || terms.size() > 2) {
        if (why)
            *why = "a figure is KIND RUN or KIND RUN / KIND RUN";
        return {};
    }
    return terms;
}

/// One run's values of a kind (several for each worker's), none when unknown.
void valuesOf(const std::string& kind, const MeasuredRun& r, std::vector<double>& out) {
    const RunSummary& s = r.summary;
    const auto add = [&out](double x, bool known) {
        if (known && std::isfinite(x))
            out.push_back(x);
    };
    if (kind == "rate")
        add(s.samplesPerSecond, s.samplesPerSecond > 0);
    else if (kind == "acc")
        add(100 * s.testAccuracy, s.evaluated);
    else if (kind == "train")
        add(s.trainSeconds, s.trainSeconds > 0 && s.samples > 0);
    else if (kind == "wall")
        add(s.wallSeconds, s.wallSeconds > 0);
    else if (kind == "target")
        add(s.target.trainSeconds, s.target.reached && s.target.trainSeconds > 0);
    else if (kind == "comm")
        add(100 * s.commShare(), s.commShare() >= 0);
    else if (kind == "mb" && !s.bytesReduced.empty())
        add(std::accumulate(s.bytesReduced.begin(), s.bytesReduced.end(), 0.0) / 1e6 /
                double(s.bytesReduced.size()),
            true);
    else if (kind == "startup")
        for (const double seconds : s.startupSeconds)
            add(seconds * 1e3, seconds >= 0);
    else if (kind == "lost")
        add(100 * double(s.totalLostUpdates()) / double(s.totalUpdateWrites()),
            s.totalUpdateWrites() > 0);
    else if (kind == "steps" && r.sharedState)
        add(double(std::accumulate(s.workerSteps.begin(), s.workerSteps.end(), std::uint64_t(0))),
            !s.workerSteps.empty());
    else if (kind == "steps")
        for (const std::uint64_t steps : s.workerSteps)
            add(double(steps), true);
    else if (kind == "div")
        add(r.divergence, r.divergence >= 0);
}

std::vector<double> termValues(const Term& t, const std::vector<MeasuredRun>& runs) {
    std::vector<double> out;
    for (const MeasuredRun& r : runs)
        if (t.run == "*" || t.run == r.label)
            valuesOf(t.kind, r, out);
    // "wall *" is the whole preset's: its runs one after another.
    if (t.kind == "wall" && t.run == "*" && out.size() > 1)
        out = {std::accumulate(out.begin(), out.end(), 0.0)};
    return out;
}

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

/// About three significant digits: "3.76", "12.3", "1,234" without the
/// grouping (the window's locale is not the engine's), "5.0e-07".
std::string significant(double x) {
    char text[32];
    const double a = std::fabs(x);
    if (a != 0 && a < 1e-3)
        std::snprintf(text, sizeof text, "%.1e", x);
    else if (a >= 100 || a == 0)
        std::snprintf(text, sizeof text, "%.0f", x);
    else if (a >= 10)
        std::snprintf(text, sizeof text, "%.1f", x);
    else if (a >= 1)
        std::snprintf(text, sizeof text, "%.2f", x);
    else
        std::snprintf(text, sizeof text, "%.3g", x);
    return text;
}

} // namespace

bool parseFigure(const std::string& figure, std::string* why) {
    return !termsOf(figure, why).empty();
}

MeasuredValue measureFigure(const std::string& figure, const std::vector<MeasuredRun>& runs) {
    MeasuredValue v;
    const std::vector<Term> terms = termsOf(figure, nullptr);
    if (terms.empty())
        return v;
    v.kind = terms[0].kind;
    std::vector<double> a = termValues(terms[0], runs);
    if (terms.size() == 1) {
        v.values = std::move(a);
        return v;
    }
    v.ratio = true;
    const std::vector<double> b = termValues(terms[1], runs);
    if (!a.empty() && !b.empty() && mean(b) != 0)
        v.values = {mean(a) / mean(b)};
    return v;
}

std::string figureText(const MeasuredValue& v) {
    if (v.values.empty())
        return {};
    const auto [lo, hi] = std::minmax_element(v.values.begin(), v.values.end());
    if (v.ratio)
        return significant(*lo) + " times";
    const std::string range =
        *lo == *hi ? significant(*lo) : significant(*lo) + "-" + significant(*hi);
    if (v.kind == "acc" || v.kind == "comm" || v.kind == "lost")
        return range + "%";
    if (v.kind == "train" || v.kind == "wall" || v.kind == "target")
        return range + " s";
    if (v.kind == "startup")
        return range + " ms";
    if (v.kind == "mb")
        return range + " MB";
    if (v.kind == "rate")
        return range + " samples/s";
    return range; // steps, div
}

std::vector<std::string> figureTokens(const std::string& html) {
    std::vector<std::string> tokens;
    for (std::size_t at = html.find("{{"); at != std::string::npos; at = html.find("{{", at + 2)) {
        const std::size_t end = html.find("}}", at + 2);
        if (end == std::string::npos)
            break;
        tokens.push_back(html.substr(at + 2, end - at - 2));
    }
    return tokens;
}

std::string fillFigures(const std::string& html, const std::vector<MeasuredRun>& runs,
                        const std::string& before, const std::string& after,
                        const std::string& unknown) {
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = html.find("{{"); at != std::string::npos; at = html.find("{{", from)) {
        const std::size_t end = html.find("}}", at + 2);
        if (end == std::string::npos)
            break;
        out.append(html, from, at - from);
        const std::string text = figureText(measureFigure(html.substr(at + 2, end - at - 2), runs));
        out += text.empty() ? unknown : before + text + after;
        from = end + 2;
    }
    return out + html.substr(from);
}

} // namespace hwl
