#include "io/runscompare.h"

#include "config/fields.h"
#include "io/runfolders.h"
#include "io/runsummaryfile.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace hwl {

namespace {
using json = nlohmann::json;
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

/// A figure for the eye: samples/s with k/M, accuracy in percent, the
/// others to 4 significant digits.
std::string shown(const std::string& column, double x) {
    if (!std::isfinite(x))
        return "-";
    char text[32];
    if (column == "samples_per_s" && x >= 1e6)
        std::snprintf(text, sizeof text, "%.2fM", x / 1e6);
    else if (column == "samples_per_s" && x >= 1e3)
        std::snprintf(text, sizeof text, "%.1fk", x / 1e3);
    else if (column == "test_accuracy")
        std::snprintf(text, sizeof text, "%.2f%%", 100 * x);
    else
        std::snprintf(text, sizeof text, "%.4g", x);
    return text;
}

/// The figures a table shows: all but exit (a folder keeps no exit status),
/// and only those some run has.
std::vector<const RunFigure*> shownFigures(const std::vector<FolderRun>& runs) {
    std::vector<const RunFigure*> figures;
    for (const RunFigure& f : runFigures()) {
        if (std::string(f.column) == "exit")
            continue;
        const bool some = std::any_of(runs.begin(), runs.end(), [&](const FolderRun& r) {
            return f.value ? std::isfinite(f.value(r.run)) : !f.text(r.run).empty();
        });
        if (some)
            figures.push_back(&f);
    }
    return figures;
}

/// A text figure over a group: "3 finished" or "2 finished, 1 failed";
/// "2 reached, 1 not reached".
std::string countsText(const RunFigure& f, const std::vector<const FolderRun*>& group) {
    std::map<std::string, int> counts;
    for (const FolderRun* r : group)
        ++counts[f.text(r->run)];
    std::string text;
    for (const auto& [result, n] : counts)
        text.append(text.empty() ? "" : ", ").append(std::to_string(n)).append(" ").append(result);
    return text;
}

/// A row's name: the run's folder; a group's, the first one's with its
/// seed written * when the folder names it (a sweep's "lr=0.1,seed=*"),
/// else with how many more.
std::string groupLabel(const std::vector<const FolderRun*>& group) {
    std::string label = group.front()->label;
    if (group.size() == 1)
        return label;
    const auto seed = group.front()->fields.find("seed");
    if (seed != group.front()->fields.end()) {
        const std::string named = "seed=" + seed->second;
        if (const std::size_t at = label.rfind(named); at != std::string::npos)
            return label.substr(0, at) + "seed=*" + label.substr(at + named.size());
    }
    return label.append(" and ").append(std::to_string(group.size() - 1)).append(" more");
}

void addRow(RunsTable& t, const std::string& label, const std::vector<std::string>& keys,
            const std::map<std::string, std::string>& fields,
            const std::vector<const RunFigure*>& figures,
            const std::vector<const FolderRun*>& group) {
    std::vector<std::string> cells{label};
    std::vector<double> values{kNone}, spreads(1, kNone), medians(1, kNone);
    for (const std::string& key : keys) {
        const auto it = fields.find(key);
        const std::string v = it == fields.end() ? "" : it->second;
        cells.push_back(v.size() > 1 && v.front() == '"' ? json::parse(v).get<std::string>() : v);
        char* end = nullptr;
        const double number = std::strtod(v.c_str(), &end);
        values.push_back(!v.empty() && end == v.c_str() + v.size() ? number : kNone);
        spreads.push_back(kNone);
        medians.push_back(kNone);
    }
    if (t.grouped) {
        cells.push_back(std::to_string(group.size()));
        values.push_back(double(group.size()));
        spreads.push_back(kNone);
        medians.push_back(kNone);
    }
    for (const RunFigure* f : figures) {
        spreads.push_back(kNone);
        medians.push_back(kNone);
        if (!f->value) {
            cells.push_back(t.grouped ? countsText(*f, group) : f->text(group.front()->run));
            values.push_back(kNone);
            continue;
        }
        std::vector<double> xs;
        for (const FolderRun* r : group)
            xs.push_back(f->value(r->run));
        const Spread s = spreadOf(xs);
        std::string text = shown(f->column, s.mean);
        if (t.grouped && s.n > 1)
            text += " ± " + shown(f->column, s.sd);
        const bool toTarget = std::string(f->column) == "target_seconds";
        const std::string ofAll =
            std::to_string(s.n) + " of " + std::to_string(group.size()) + " reached";
        if (t.grouped && toTarget) // never a run silently dropped: k of N
            text = s.n == 0
                       ? ofAll
                       : "median " + shown(f->column, s.median) + ", " + text + " (" + ofAll + ")";
        cells.push_back(text);
        values.push_back(s.mean);
        spreads.back() = s.sd;
        medians.back() = s.median;
    }
    t.cells.push_back(std::move(cells));
    t.values.push_back(std::move(values));
    t.spreads.push_back(std::move(spreads));
    t.medians.push_back(std::move(medians));
}
} // namespace

Spread spreadOf(const std::vector<double>& xs) {
    Spread s;
    std::vector<double> known;
    for (double x : xs)
        if (std::isfinite(x))
            known.push_back(x);
    s.n = known.size();
    if (known.empty())
        return s;
    s.mean = std::accumulate(known.begin(), known.end(), 0.0) / double(known.size());
    std::sort(known.begin(), known.end());
    const std::size_t half = known.size() / 2;
    s.median = known.size() % 2 ? known[half] : (known[half - 1] + known[half]) / 2;
    s.lo = known.front();
    s.hi = known.back();
    if (known.size() > 1) {
        double squares = 0;
        for (double x : known)
            squares += (x - s.mean) * (x - s.mean);
        s.sd = std::sqrt(squares / double(known.size() - 1)); // the sample's (n - 1)
    }
    return s;
}

FolderRun folderRunFromJson(const std::string& text, const std::string& label,
                            const std::string& origin) {
    FolderRun r;
    r.label = label;
    r.run.label = label;
    r.run.summary = runSummaryFromJson(text, origin); // judges the text first
    r.run.started = true;
    const json doc = json::parse(text);
    if (doc.contains("experiment") && doc["experiment"].is_object())
        for (const auto& [key, value] : doc["experiment"].items())
            r.fields[key] = value.dump();
    if (r.run.summary.state == RunState::Failed)
        r.run.error = r.run.summary.failure;
    return r;
}

FolderRun folderRunOf(const ExperimentConfig& config, const TableRun& row) {
    FolderRun r;
    r.label = row.label;
    r.run = row;
    const json experiment = json::parse(config.toJson()); // kept while items() walks it
    for (const auto& [key, value] : experiment.items())
        r.fields[key] = value.dump();
    return r;
}

std::vector<std::string> varyingFields(const std::vector<FolderRun>& runs) {
    std::vector<std::map<std::string, std::string>> fields;
    fields.reserve(runs.size());
    for (const FolderRun& r : runs)
        fields.push_back(r.fields);
    return varyingKeys(fields);
}

RunsTable runsTable(const std::vector<FolderRun>& runs, bool groupSeeds) {
    RunsTable t;
    std::vector<std::string> keys = varyingFields(runs);
    std::vector<std::vector<const FolderRun*>> groups; // a row's runs
    if (groupSeeds) {
        std::vector<std::map<std::string, std::string>> fields;
        for (const FolderRun& r : runs)
            fields.push_back(r.fields);
        for (const std::vector<std::size_t>& group : repeatGroups(fields)) {
            groups.emplace_back();
            for (const std::size_t i : group)
                groups.back().push_back(&runs[i]);
        }
        t.grouped = groups.size() < runs.size();
        if (t.grouped)
            keys.erase(std::remove(keys.begin(), keys.end(), "seed"), keys.end());
    }
    if (!t.grouped) { // every run a row of its own, seed and all
        keys = varyingFields(runs);
        groups.clear();
        for (const FolderRun& r : runs)
            groups.push_back({&r});
    }
    const std::vector<const RunFigure*> figures = shownFigures(runs);
    t.header.push_back(t.grouped ? "runs of" : "run");
    t.header.insert(t.header.end(), keys.begin(), keys.end());
    if (t.grouped)
        t.header.push_back("repeats");
    t.figure.assign(t.header.size(), false);
    for (const RunFigure* f : figures) {
        t.header.push_back(f->column);
        t.figure.push_back(f->value != nullptr);
    }
    for (const std::vector<const FolderRun*>& group : groups)
        addRow(t, groupLabel(group), keys, group.front()->fields, figures, group);
    return t;
}

bool sortRunsTable(RunsTable& t, const std::string& column, bool descending) {
    const auto at = std::find(t.header.begin(), t.header.end(), column);
    if (at == t.header.end())
        return false;
    const std::size_t c = std::size_t(at - t.header.begin());
    std::vector<std::size_t> order(t.cells.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    // A time to target is ranked by its median over repeats (MLPerf), the
    // rest by the mean; a run that did not reach it has none: last.
    const auto& by = t.grouped && column == "target_seconds" ? t.medians : t.values;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double x = by[a][c], y = by[b][c];
        if (std::isfinite(x) != std::isfinite(y))
            return std::isfinite(x); // unknown last, either way
        const bool less = std::isfinite(x) ? x < y : t.cells[a][c] < t.cells[b][c];
        const bool more = std::isfinite(x) ? y < x : t.cells[b][c] < t.cells[a][c];
        return descending ? more : less;
    });
    RunsTable sorted = t;
    for (std::size_t i = 0; i < order.size(); ++i) {
        sorted.cells[i] = t.cells[order[i]];
        sorted.values[i] = t.values[order[i]];
        sorted.spreads[i] = t.spreads[order[i]];
        sorted.medians[i] = t.medians[order[i]];
    }
    t = std::move(sorted);
    return true;
}

namespace {
/// A figure as sweep.csv writes it (%.6g), empty when unknown.
std::string csvNumber(double x) {
    if (!std::isfinite(x))
        return {};
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", x);
    return text;
}

std::string csvText(const RunsTable& t) {
    std::string out;
    for (std::size_t c = 0; c < t.header.size(); ++c) {
        out.append(c ? "," : "").append(csvField(t.header[c]));
        if (t.grouped && t.figure[c])
            out.append("_mean,").append(csvField(t.header[c] + "_sd"));
        if (t.grouped && t.header[c] == "target_seconds")
            out.append(",target_seconds_median");
    }
    out += "\n";
    for (std::size_t r = 0; r < t.cells.size(); ++r) {
        for (std::size_t c = 0; c < t.header.size(); ++c) {
            out.append(c ? "," : "");
            const bool toTarget = t.grouped && t.header[c] == "target_seconds";
            out.append(t.figure[c] ? csvNumber(t.values[r][c]) : csvField(t.cells[r][c]));
            if (t.grouped && t.figure[c])
                out.append(",").append(csvNumber(t.spreads[r][c]));
            if (toTarget)
                out.append(",").append(csvNumber(t.medians[r][c]));
        }
        out += "\n";
    }
    return out;
}
} // namespace

std::string formatRunsTable(const RunsTable& t, TableFormat format) {
    if (format == TableFormat::Csv)
        return csvText(t); // quoted: a line break in a cell stays in it
    std::vector<std::vector<std::string>> rows{t.header};
    rows.insert(rows.end(), t.cells.begin(), t.cells.end());
    for (auto& row : rows) // a cell on one line (a folder's name may hold a line break)
        for (std::string& cell : row)
            std::replace_if(
                cell.begin(), cell.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    std::string out;
    if (format == TableFormat::Markdown) {
        for (std::size_t r = 0; r < rows.size(); ++r) {
            for (std::string cell : rows[r]) {
                for (std::size_t p = cell.find('|'); p != std::string::npos;
                     p = cell.find('|', p + 2))
                    cell.replace(p, 1, "\\|");
                out += "| " + cell + " ";
            }
            out += "|\n";
            if (r == 0) {
                for (std::size_t c = 0; c < rows[0].size(); ++c)
                    out += "|---";
                out += "|\n";
            }
        }
        return out;
    }
    // Aligned text, padded by code points (± is two bytes in UTF-8).
    const auto visible = [](const std::string& s) {
        return std::size_t(
            std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
    };
    std::vector<std::size_t> widths(t.header.size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], visible(row[c]));
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            out.append(c ? "  " : "").append(row[c]);
            if (c + 1 < row.size())
                out += std::string(widths[c] - visible(row[c]), ' ');
        }
        out += "\n";
    }
    return out;
}

} // namespace hwl
