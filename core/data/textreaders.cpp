// CSV and LIBSVM text datasets. The file is read a chunk at a time (gzip is
// unpacked when the content starts with its magic bytes), so memory holds
// the parsed rows, not the text; rows are parsed with std::from_chars and
// every problem names the file, the line and the column.
#include "data/datasourceio.h"
#include "data/datasources.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>
#include <vector>

namespace hwl {

namespace {

// Text files may be as large as the dataset budget.
constexpr std::uint64_t kMaxTextBytes = std::uint64_t(8) << 30;
// Labels at most this (the spec's class limit is 100000).
constexpr double kMaxLabel = 99999;

/// The memory budget of one load, taken when it starts (what is available
/// shrinks as the rows arrive).
struct Budget {
    std::string where;
    double bytes = detail::datasetBudget();
};

/// Makes room in `v` for `extra` more elements when it is full, doubling
/// it while the dataset's reservations (`otherBytes`: the other arrays')
/// stay within the memory budget; throws InputError naming the file beyond.
template <class T>
void roomFor(std::vector<T>& v, std::size_t extra, double otherBytes, const Budget& b) {
    if (v.capacity() - v.size() >= extra)
        return;
    const double budget = b.bytes - otherBytes;
    std::size_t want = std::max({v.capacity() * 2, v.size() + extra, std::size_t(4096)});
    if (double(want) * sizeof(T) > budget)
        want = std::size_t(std::max(0.0, budget) / sizeof(T));
    if (want < v.size() + extra)
        detail::checkDatasetBytes(double(v.size() + extra) * sizeof(T) + otherBytes,
                                  b.where + " (the parsed rows)", "use a smaller file", b.bytes);
    v.reserve(want);
}

template <class T>
double reserved(const std::vector<T>& v) {
    return double(v.capacity()) * sizeof(T);
}

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

bool isBlank(std::string_view s) {
    return trim(s).empty();
}

enum class Num { Ok, Empty, NotNumber, NaN, Inf, OutOfRange };

/// Parses a whole (trimmed) field as a float; "+1.5" and "1e-50" (to 0) too.
Num parseFloat(std::string_view s, float& out) {
    if (s.empty())
        return Num::Empty;
    if (s.front() == '+' && s.size() > 1 && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    if (ec == std::errc::result_out_of_range && ptr == end) {
        double d = 0;
        auto [p2, ec2] = std::from_chars(s.data(), end, d);
        if (ec2 == std::errc::result_out_of_range && p2 == end)
            return Num::OutOfRange;
        if (ec2 != std::errc() || p2 != end || std::fabs(d) >= 1.0)
            return Num::OutOfRange;
        out = float(d); // underflows to zero or a denormal
        return Num::Ok;
    }
    if (ec != std::errc() || ptr != end)
        return Num::NotNumber;
    if (std::isnan(out))
        return Num::NaN;
    if (std::isinf(out))
        return Num::Inf;
    return Num::Ok;
}

std::string quote(std::string_view s) {
    std::string q(1, '"');
    q.append(s.substr(0, s.size() > 40 ? 37 : s.size()));
    q.append(s.size() > 40 ? "...\"" : "\"");
    return q;
}

/// The message for a feature value that did not parse, or "" when it did.
std::string featureProblem(Num n, std::string_view field) {
    switch (n) {
    case Num::Ok:
        return {};
    case Num::Empty:
        return "the feature value is empty";
    case Num::NotNumber:
        return quote(field) + " is not a number";
    case Num::NaN:
        return "NaN is not allowed as a feature value";
    case Num::Inf:
        return "Inf is not allowed as a feature value";
    case Num::OutOfRange:
        return quote(field) + " is out of the range of a float";
    }
    return {};
}

/// Parses a label: an integer (written as such or as 3.0). On failure
/// returns the message; `allowMinusOne` admits -1 (LIBSVM's binary form).
std::string parseLabel(std::string_view field, bool allowMinusOne, std::int64_t& out) {
    float f = 0;
    const Num n = parseFloat(field, f);
    if (n == Num::Empty)
        return "the label is empty";
    if (n == Num::NotNumber || n == Num::NaN || n == Num::Inf)
        return "label " + quote(field) + " is not a number; labels are integers >= 0";
    double d = 0;
    std::string_view s = field;
    if (s.front() == '+')
        s.remove_prefix(1);
    std::from_chars(s.data(), s.data() + s.size(), d);
    if (n == Num::OutOfRange || d > kMaxLabel)
        return "label " + std::string(field) + " is too large; labels must be at most " +
               std::to_string(std::int64_t(kMaxLabel));
    if (d != std::floor(d))
        return "label " + std::string(field) +
               " is not an integer; labels are class numbers 0, 1, 2, ...";
    if (d < 0 && !(allowMinusOne && d == -1))
        return "label " + std::string(field) + " is negative; labels must be integers >= 0" +
               (allowMinusOne ? ", or exactly the pair -1/+1" : "");
    out = std::int64_t(d);
    return {};
}

std::string position(const std::string& where, std::int64_t line, std::int64_t column) {
    return where + ", line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
}

std::int32_t checkedClasses(const std::string& where, std::int64_t maxLabel) {
    if (maxLabel < 1)
        throw InputError(where + ": every label is " + std::to_string(maxLabel) +
                         ", so there is only one class; a classifier needs at least two "
                         "(labels 0, 1, ...)");
    return std::int32_t(maxLabel + 1);
}

// The messages of a CSV file the loader refuses before its rows: shared
// with the header peek, so that the form says what the run would.
std::string csvOneColumn(const std::string& where, std::int64_t lineNo) {
    return where + ": line " + std::to_string(lineNo) +
           " has 1 column; expected the label, then at least one feature, separated by commas";
}
std::string csvEmpty(const std::string& where) {
    return where + " is empty; expected rows of: label,feature,feature,...";
}
std::string csvHeaderOnly(const std::string& where, std::int64_t lineNo) {
    return where + " has no data rows, only the header line " + std::to_string(lineNo) +
           "; expected rows of: label,feature,...";
}

/// True when a CSV line's first field is not a number: a header line.
bool isCsvHeader(std::string_view line) {
    float f = 0;
    const Num n = parseFloat(trim(line.substr(0, line.find(','))), f);
    return n == Num::NotNumber || n == Num::Empty;
}

/// Parses the label and `columns - 1` features of one CSV row into `ds`.
void parseCsvRow(const std::string& where, std::string_view line, std::int64_t lineNo,
                 std::int64_t columns, Dataset& ds, std::int64_t& maxLabel) {
    std::size_t start = 0;
    for (std::int64_t c = 1; c <= columns; ++c) {
        std::size_t comma = line.find(',', start);
        if (comma == std::string_view::npos)
            comma = line.size();
        const auto field = trim(line.substr(start, comma - start));
        start = comma + 1;
        if (c == 1) {
            std::int64_t label = 0;
            const std::string problem = parseLabel(field, false, label);
            if (!problem.empty())
                throw InputError(position(where, lineNo, c) + problem);
            ds.labels.push_back(std::int32_t(label));
            maxLabel = std::max(maxLabel, label);
            continue;
        }
        float v = 0;
        const std::string problem = featureProblem(parseFloat(field, v), field);
        if (!problem.empty())
            throw InputError(position(where, lineNo, c) + problem);
        ds.dense.push_back(v);
    }
}

} // namespace

Dataset loadCsv(const std::filesystem::path& file) {
    const Budget budget{"csv " + quoted(file)};
    const std::string& where = budget.where;
    detail::TextLines lines(file, kMaxTextBytes, "csv file");
    Dataset ds;
    std::string_view line;
    std::int64_t columns = 0, firstLine = 0, maxLabel = -1;
    while (lines.next(line)) {
        if (isBlank(line))
            continue;
        const std::int64_t lineNo = lines.number();
        const auto cols = std::int64_t(std::count(line.begin(), line.end(), ',')) + 1;
        if (firstLine == 0) {
            firstLine = lineNo;
            columns = cols;
            if (cols < 2)
                throw InputError(csvOneColumn(where, lineNo));
            ds.dim = columns - 1;
            if (isCsvHeader(line))
                continue;
        }
        if (cols != columns)
            throw InputError(where + ": line " + std::to_string(lineNo) + " has " +
                             std::to_string(cols) + " columns, line " + std::to_string(firstLine) +
                             " has " + std::to_string(columns) +
                             "; every row needs the label and the same number of features");
        roomFor(ds.labels, 1, reserved(ds.dense), budget);
        roomFor(ds.dense, std::size_t(ds.dim), reserved(ds.labels), budget);
        parseCsvRow(where, line, lineNo, columns, ds, maxLabel);
    }
    if (firstLine == 0)
        throw InputError(csvEmpty(where));
    if (ds.labels.empty())
        throw InputError(csvHeaderOnly(where, firstLine));
    ds.rows = std::int64_t(ds.labels.size());
    ds.numClasses = checkedClasses(where, maxLabel);
    ds.description = detail::describe("csv:" + file.string(), ds);
    return ds;
}

std::int64_t detail::peekCsvFeatures(const std::filesystem::path& file) {
    const std::string where = "csv " + quoted(file);
    constexpr std::size_t kPeekBytes = std::size_t(1) << 20;
    bool gzipped = false;
    std::string text = readFilePrefix(file, kPeekBytes, "csv file", gzipped);
    const bool whole = text.size() < kPeekBytes;
    std::string_view rest(text);
    if (rest.substr(0, 3) == "\xEF\xBB\xBF")
        rest.remove_prefix(3);
    std::int64_t lineNo = 0, columns = -1, headerLine = 0;
    while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        if (nl == std::string_view::npos && !whole)
            break; // the line goes on past what was read
        const std::string_view line = rest.substr(0, nl);
        rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
        ++lineNo;
        if (isBlank(line))
            continue;
        if (columns >= 0)
            return columns - 1; // a row after the header line
        columns = std::int64_t(std::count(line.begin(), line.end(), ',')) + 1;
        if (columns < 2)
            throw InputError(csvOneColumn(where, lineNo));
        if (!isCsvHeader(line))
            return columns - 1;
        headerLine = lineNo;
    }
    if (whole && columns < 0)
        throw InputError(csvEmpty(where));
    if (whole)
        throw InputError(csvHeaderOnly(where, headerLine));
    return columns < 0 ? -1 : columns - 1;
}

namespace {

/// The labels of a LIBSVM file seen so far: enough to tell its binary -1/+1
/// form from plain class numbers once the whole file is read.
struct LibsvmLabels {
    std::int64_t firstMinusOneLine = 0;
    std::int64_t firstOtherLine = 0;
    std::int64_t otherLabel = 0;
    bool sawPlusOne = false;

    void note(std::int64_t label, std::int64_t lineNo) {
        if (label == -1 && firstMinusOneLine == 0)
            firstMinusOneLine = lineNo;
        else if (label == 1)
            sawPlusOne = true;
        else if (label != -1 && firstOtherLine == 0) {
            firstOtherLine = lineNo;
            otherLabel = label;
        }
    }
};

/// Parses the INDEX:VALUE token `tok` at `column` of line `lineNo` and appends
/// it to the row being read. `prevIndex` is the row's previous index; it
/// becomes this one.
void parseLibsvmEntry(const Budget& budget, std::int64_t lineNo, std::int64_t column,
                      std::string_view tok, std::int64_t& prevIndex, Dataset& ds) {
    const std::string& where = budget.where;
    const std::size_t colon = tok.find(':');
    if (colon == std::string_view::npos || colon == 0)
        throw InputError(position(where, lineNo, column) + "token " + quote(tok) +
                         " is not INDEX:VALUE (e.g. 3:0.5)");
    const std::string_view idxText = tok.substr(0, colon);
    const std::string_view valText = tok.substr(colon + 1);
    std::uint64_t index = 0;
    auto [ptr, ec] = std::from_chars(idxText.data(), idxText.data() + idxText.size(), index);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && ptr == idxText.data() + idxText.size() &&
         index > std::uint64_t(INT32_MAX)))
        throw InputError(position(where, lineNo, column) + "index " + std::string(idxText) +
                         " is too large (at most " + std::to_string(INT32_MAX) + ")");
    if (ec != std::errc() || ptr != idxText.data() + idxText.size())
        throw InputError(position(where, lineNo, column) + "token " + quote(tok) + ": index " +
                         quote(idxText) + " is not a positive integer");
    if (index == 0)
        throw InputError(position(where, lineNo, column) +
                         "index 0 is not allowed: LIBSVM indices start at 1");
    if (std::int64_t(index) <= prevIndex)
        throw InputError(position(where, lineNo, column) + "index " + std::to_string(index) +
                         " is not greater than the previous " + std::to_string(prevIndex) +
                         "; indices must be strictly increasing within a line");
    float v = 0;
    const std::string problem = featureProblem(parseFloat(valText, v), valText);
    if (!problem.empty())
        throw InputError(position(where, lineNo, column + std::int64_t(colon) + 1) + problem);
    prevIndex = std::int64_t(index);
    if (ds.indices.size() == ds.indices.capacity()) {
        roomFor(ds.indices, 1, reserved(ds.values) + reserved(ds.offsets) + reserved(ds.labels),
                budget);
        ds.values.reserve(ds.indices.capacity());
    }
    ds.indices.push_back(std::int32_t(index - 1));
    ds.values.push_back(v);
}

/// Parses one line that holds a row (comment cut off, not blank): the label,
/// then INDEX:VALUE tokens, appended to `ds` as one CSR row. Returns the
/// row's largest index, 0 when it has no features.
std::int64_t parseLibsvmLine(const Budget& budget, std::string_view line, std::int64_t lineNo,
                             LibsvmLabels& labels, Dataset& ds) {
    const std::string& where = budget.where;
    std::size_t i = 0;
    bool first = true;
    std::int64_t prevIndex = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i >= line.size())
            break;
        const std::size_t tokStart = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        const std::string_view tok = line.substr(tokStart, i - tokStart);
        const auto column = std::int64_t(tokStart) + 1;
        if (first) {
            first = false;
            std::int64_t label = 0;
            const std::string problem = parseLabel(tok, true, label);
            if (!problem.empty())
                throw InputError(position(where, lineNo, column) + problem);
            labels.note(label, lineNo);
            roomFor(ds.labels, 1, reserved(ds.indices) + reserved(ds.values) + reserved(ds.offsets),
                    budget);
            roomFor(ds.offsets, 1, reserved(ds.indices) + reserved(ds.values) + reserved(ds.labels),
                    budget);
            ds.labels.push_back(std::int32_t(label));
            continue;
        }
        parseLibsvmEntry(budget, lineNo, column, tok, prevIndex, ds);
    }
    ds.offsets.push_back(std::int64_t(ds.indices.size()));
    return prevIndex;
}

/// Once every row is read: a file that uses -1 must use exactly the pair
/// -1/+1, which becomes the classes 0/1.
void mapBinaryLabels(const std::string& where, const LibsvmLabels& labels, Dataset& ds) {
    if (labels.firstMinusOneLine == 0)
        return;
    if (labels.firstOtherLine != 0)
        throw InputError(where + ", line " + std::to_string(labels.firstMinusOneLine) +
                         ": label -1 is negative; labels must be integers >= 0, or exactly "
                         "the pair -1/+1, but line " +
                         std::to_string(labels.firstOtherLine) + " has label " +
                         std::to_string(labels.otherLabel));
    if (!labels.sawPlusOne)
        throw InputError(where + ": every label is -1; labels must be integers >= 0, or "
                                 "exactly the pair -1/+1");
    for (auto& l : ds.labels)
        l = l == -1 ? 0 : 1;
}

} // namespace

Dataset loadLibsvm(const std::filesystem::path& file) {
    const Budget budget{"libsvm " + quoted(file)};
    const std::string& where = budget.where;
    detail::TextLines lines(file, kMaxTextBytes, "libsvm file");
    Dataset ds;
    ds.offsets.push_back(0);
    LibsvmLabels labels;
    std::int64_t maxIndex = 0;
    std::string_view line;
    while (lines.next(line)) {
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos)
            line = line.substr(0, hash);
        if (isBlank(line))
            continue;
        maxIndex = std::max(maxIndex, parseLibsvmLine(budget, line, lines.number(), labels, ds));
    }
    if (ds.labels.empty())
        throw InputError(where + " has no data rows; expected lines of: label index:value ...");
    if (maxIndex == 0)
        throw InputError(where + " has no features: no line holds an index:value pair");
    mapBinaryLabels(where, labels, ds);
    ds.rows = std::int64_t(ds.labels.size());
    ds.dim = maxIndex;
    const auto maxLabel = *std::max_element(ds.labels.begin(), ds.labels.end());
    ds.numClasses = checkedClasses(where, maxLabel);
    ds.description = detail::describe("libsvm:" + file.string(), ds);
    return ds;
}

} // namespace hwl
