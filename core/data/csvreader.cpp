// CSV datasets: label first, then float features. The file is read a
// chunk of lines at a time (gzip is unpacked when the content starts with
// its magic bytes) and the chunks are parsed on every core
// (textchunks.h), so memory holds the parsed rows, not the text; every
// problem names the file, the line and the column.
#include "data/datasources.h"
#include "data/textchunks.h"
#include "data/textfields.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace hwl {

using namespace detail::text;

namespace {

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

std::int64_t columnsOf(std::string_view line) {
    return std::int64_t(std::count(line.begin(), line.end(), ',')) + 1;
}

/// True when a CSV line's first field is not a number: a header line.
bool isCsvHeader(std::string_view line) {
    float f = 0;
    const Num n = parseFloat(trim(line.substr(0, line.find(','))), f);
    return n == Num::NotNumber || n == Num::Empty;
}

/// A chunk of the file, and the rows parsed from it.
struct CsvChunk : detail::TextChunk {
    // What the file's first non-blank line said (prepare() sets them).
    std::int64_t columns = 0;   ///< 0: no such line yet, the chunk is blank
    std::int64_t firstLine = 0; ///< that line's number
    std::size_t skip = 0;       ///< bytes before the rows: through the header line
    std::int64_t skipLines = 0; ///< the lines in them
    // The rows.
    std::vector<std::int32_t> labels;
    std::vector<float> dense;
    std::int64_t maxLabel = -1;
};

/// The shape the file's first non-blank line gives, found as the chunks
/// are read.
struct CsvShape {
    std::string where;
    std::int64_t columns = 0, firstLine = 0, linesSeen = 0;

    void prepare(CsvChunk& c) {
        c.skip = 0;
        c.skipLines = 0;
        const char* const begin = c.text.data();
        const char* const end = begin + c.text.size();
        std::int64_t lines = 0;
        for (const char *p = begin, *next = begin; columns == 0 && p != end; p = next) {
            const std::string_view line(p, std::size_t(lineEnd(p, end, next) - p));
            ++lines;
            ++linesSeen;
            if (isBlank(line))
                continue;
            firstLine = linesSeen;
            columns = columnsOf(line);
            if (columns < 2)
                throw InputError(csvOneColumn(where, firstLine));
            if (isCsvHeader(line)) {
                c.skip = std::size_t(next - begin);
                c.skipLines = lines;
            }
        }
        c.columns = columns;
        c.firstLine = firstLine;
    }
};

/// Parses the label and `columns - 1` features of one CSV row; the careful
/// path, which names the first bad field.
void parseCsvRow(const std::string& where, std::string_view line, std::int64_t lineNo,
                 std::int64_t columns, CsvChunk& c) {
    std::size_t start = 0;
    for (std::int64_t col = 1; col <= columns; ++col) {
        std::size_t comma = line.find(',', start);
        if (comma == std::string_view::npos)
            comma = line.size();
        const auto field = trim(line.substr(start, comma - start));
        start = comma + 1;
        if (col == 1) {
            std::int64_t label = 0;
            const std::string problem = parseLabel(field, false, label);
            if (!problem.empty())
                throw InputError(position(where, lineNo, col) + problem);
            c.labels.push_back(std::int32_t(label));
            c.maxLabel = std::max(c.maxLabel, label);
            continue;
        }
        float v = 0;
        const Num n = parseFloat(field, v);
        if (n != Num::Ok)
            throw InputError(position(where, lineNo, col) + featureProblem(n, field));
        c.dense.push_back(v);
    }
}

/// The fast path: a row of plain numbers, appended to `c`. False (and
/// nothing appended) for anything else: a blank line, a bad field, another
/// column count, or a field the careful path reads.
bool fastCsvRow(const char* p, const char* end, std::int64_t dim, CsvChunk& c) {
    std::int64_t label = 0;
    p = fastLabel(skipSpaces(p, end), end, false, label);
    if (!p || (p = skipSpaces(p, end)) == end || *p != ',')
        return false;
    const std::size_t row = c.dense.size();
    c.dense.resize(row + std::size_t(dim));
    float* out = c.dense.data() + row;
    for (std::int64_t i = 0; i < dim; ++i) {
        // p is at the comma before feature i
        p = fastFloat(skipSpaces(p + 1, end), end, out[i]);
        if (p)
            p = skipSpaces(p, end);
        if (!p || (i + 1 < dim ? p == end || *p != ',' : p != end)) {
            c.dense.resize(row);
            return false;
        }
    }
    c.labels.push_back(std::int32_t(label));
    c.maxLabel = std::max(c.maxLabel, label);
    return true;
}

/// Parses the rows of `c`, its first line numbered `firstLine`; `fast`:
/// plain rows through the fast path.
void parseCsvChunk(const std::string& where, CsvChunk& c, std::int64_t firstLine, bool fast) {
    c.labels.clear();
    c.dense.clear();
    c.maxLabel = -1;
    const char* const end = c.text.data() + c.text.size();
    std::int64_t lineNo = firstLine - 1 + c.skipLines;
    for (const char *p = c.text.data() + c.skip, *next = p; p != end; p = next) {
        const char* e = lineEnd(p, end, next);
        ++lineNo;
        if (c.columns == 0 || (fast && fastCsvRow(p, e, c.columns - 1, c)))
            continue;
        const std::string_view line(p, std::size_t(e - p));
        if (isBlank(line))
            continue;
        if (const std::int64_t cols = columnsOf(line); cols != c.columns)
            throw InputError(where + ": line " + std::to_string(lineNo) + " has " +
                             std::to_string(cols) + " columns, line " +
                             std::to_string(c.firstLine) + " has " + std::to_string(c.columns) +
                             "; every row needs the label and the same number of features");
        parseCsvRow(where, line, lineNo, c.columns, c);
    }
    c.lines = lineNo - (firstLine - 1);
}

} // namespace

Dataset detail::loadCsv(const std::filesystem::path& file, const TextParse& how) {
    const Budget budget{"csv " + quoted(file)};
    const std::string& where = budget.where;
    TextChunks in(file, kMaxTextBytes, "csv file",
                  how.chunkBytes ? how.chunkBytes : TextParse::kDefaultChunkBytes);
    CsvShape shape{where};
    Dataset ds;
    std::int64_t maxLabel = -1;
    const auto prepare = [&](CsvChunk& c) { shape.prepare(c); };
    const auto parse = [&](CsvChunk& c, std::int64_t firstLine) {
        parseCsvChunk(where, c, firstLine, how.fastPath);
    };
    const auto merge = [&](CsvChunk& c, std::int64_t) {
        const std::size_t rows = c.labels.size();
        if (rows == 0)
            return;
        ds.dim = c.columns - 1;
        // A row takes 2 bytes a column at least ("0," ... "0\n").
        const std::size_t estimate = estimateCount(ds.labels.size() + rows, c.end, in.sizeHint(),
                                                   2 * std::uint64_t(c.columns));
        roomFor(ds.labels, rows, reserved(ds.dense), budget, estimate);
        roomFor(ds.dense, c.dense.size(), reserved(ds.labels), budget,
                estimate * std::size_t(ds.dim));
        ds.labels.insert(ds.labels.end(), c.labels.begin(), c.labels.end());
        ds.dense.insert(ds.dense.end(), c.dense.begin(), c.dense.end());
        maxLabel = std::max(maxLabel, c.maxLabel);
    };
    parseChunks<CsvChunk>(in, how, prepare, parse, merge);
    if (shape.columns == 0)
        throw InputError(csvEmpty(where));
    if (ds.labels.empty())
        throw InputError(csvHeaderOnly(where, shape.firstLine));
    ds.rows = std::int64_t(ds.labels.size());
    ds.numClasses = checkedClasses(where, maxLabel);
    ds.description = detail::describe("csv:" + file.string(), ds);
    return ds;
}

Dataset loadCsv(const std::filesystem::path& file) {
    return detail::loadCsv(file, detail::TextParse{});
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
        columns = columnsOf(line);
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

} // namespace hwl
