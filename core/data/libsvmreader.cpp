// LIBSVM datasets: "label index:value ...", loaded sparse (CSR). The file
// is read a chunk of lines at a time (gzip is unpacked when the content
// starts with its magic bytes) and the chunks are parsed on every core
// (textchunks.h); every problem names the file, the line and the column.
#include "data/datasources.h"
#include "data/textchunks.h"
#include "data/textfields.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

namespace hwl {

using namespace detail::text;

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
    /// Adds what a later chunk saw, its line numbers `linesBefore` behind.
    void add(const LibsvmLabels& later, std::int64_t linesBefore) {
        if (firstMinusOneLine == 0 && later.firstMinusOneLine != 0)
            firstMinusOneLine = linesBefore + later.firstMinusOneLine;
        if (firstOtherLine == 0 && later.firstOtherLine != 0) {
            firstOtherLine = linesBefore + later.firstOtherLine;
            otherLabel = later.otherLabel;
        }
        sawPlusOne = sawPlusOne || later.sawPlusOne;
    }
};

/// A chunk of the file, and the rows parsed from it.
struct LibsvmChunk : detail::TextChunk {
    std::vector<std::int32_t> labels, indices;
    std::vector<float> values;
    std::vector<std::int64_t> ends; ///< each row's end in `indices`
    LibsvmLabels seen;              ///< line numbers within the chunk
    std::int64_t maxIndex = 0;
};

/// Parses the INDEX:VALUE token `tok` at `column` of line `lineNo` and appends
/// it to the row being read. `prevIndex` is the row's previous index; it
/// becomes this one.
void parseLibsvmEntry(const std::string& where, std::int64_t lineNo, std::int64_t column,
                      std::string_view tok, std::int64_t& prevIndex, LibsvmChunk& c) {
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
    const Num n = parseFloat(valText, v);
    if (n != Num::Ok)
        throw InputError(position(where, lineNo, column + std::int64_t(colon) + 1) +
                         featureProblem(n, valText));
    prevIndex = std::int64_t(index);
    c.indices.push_back(std::int32_t(index - 1));
    c.values.push_back(v);
}

/// Parses one line that holds a row (comment cut off, not blank): the label,
/// then INDEX:VALUE tokens, appended to `c` as one CSR row; the careful
/// path, which names the first bad token.
void parseLibsvmLine(const std::string& where, std::string_view line, std::int64_t lineNo,
                     LibsvmChunk& c) {
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
            c.seen.note(label, lineNo);
            c.labels.push_back(std::int32_t(label));
            continue;
        }
        parseLibsvmEntry(where, lineNo, column, tok, prevIndex, c);
    }
    c.ends.push_back(std::int64_t(c.indices.size()));
    c.maxIndex = std::max(c.maxIndex, prevIndex);
}

/// The fast path: a row of a label and plain INDEX:VALUE tokens, appended
/// to `c`. False (and nothing appended) for anything else: a blank line, a
/// bad token, or a number the careful path reads.
bool fastLibsvmLine(const char* p, const char* end, std::int64_t lineNo, LibsvmChunk& c) {
    std::int64_t label = 0;
    p = fastLabel(skipSpaces(p, end), end, true, label);
    if (!p || (p != end && !isSpace(*p)))
        return false;
    const std::size_t row = c.indices.size();
    std::uint64_t prev = 0;
    while ((p = skipSpaces(p, end)) != end) {
        std::uint64_t index = 0;
        const auto [q, ec] = std::from_chars(p, end, index);
        float v = 0;
        const char* r = ec == std::errc() && q != end && *q == ':' && index > prev &&
                                index <= std::uint64_t(INT32_MAX)
                            ? fastFloat(q + 1, end, v)
                            : nullptr;
        if (!r || (r != end && !isSpace(*r))) {
            c.indices.resize(row);
            c.values.resize(row);
            return false;
        }
        c.indices.push_back(std::int32_t(index - 1));
        c.values.push_back(v);
        prev = index;
        p = r;
    }
    c.seen.note(label, lineNo);
    c.labels.push_back(std::int32_t(label));
    c.ends.push_back(std::int64_t(c.indices.size()));
    c.maxIndex = std::max(c.maxIndex, std::int64_t(prev));
    return true;
}

/// Parses the rows of `c`, its first line numbered `firstLine`; `fast`:
/// plain rows through the fast path.
void parseLibsvmChunk(const std::string& where, LibsvmChunk& c, std::int64_t firstLine, bool fast) {
    c.labels.clear();
    c.indices.clear();
    c.values.clear();
    c.ends.clear();
    c.seen = {};
    c.maxIndex = 0;
    const char* const end = c.text.data() + c.text.size();
    std::int64_t lineNo = firstLine - 1;
    for (const char *p = c.text.data(), *next = p; p != end; p = next) {
        const char* e = lineEnd(p, end, next);
        ++lineNo;
        if (const void* hash = std::memchr(p, '#', std::size_t(e - p)))
            e = static_cast<const char*>(hash);
        if (fast && fastLibsvmLine(p, e, lineNo, c))
            continue;
        const std::string_view line(p, std::size_t(e - p));
        if (!isBlank(line))
            parseLibsvmLine(where, line, lineNo, c);
    }
    c.lines = lineNo - (firstLine - 1);
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

/// Appends the rows of `c` to `ds`, reserving once for the whole file when
/// its size is known.
void appendRows(const LibsvmChunk& c, const Budget& budget, std::uint64_t sizeHint, Dataset& ds) {
    const std::size_t rows = c.labels.size();
    const std::size_t nnz = c.indices.size();
    // A row takes 2 bytes at least ("0\n"), an entry 4 (" 1:0").
    const std::size_t rowEstimate = estimateCount(ds.labels.size() + rows, c.end, sizeHint, 2);
    const std::size_t nnzEstimate = estimateCount(ds.indices.size() + nnz, c.end, sizeHint, 4);
    const double csr = reserved(ds.offsets) + reserved(ds.labels);
    roomFor(ds.labels, rows, reserved(ds.indices) + reserved(ds.values) + reserved(ds.offsets),
            budget, rowEstimate);
    roomFor(ds.offsets, rows, reserved(ds.indices) + reserved(ds.values) + reserved(ds.labels),
            budget, rowEstimate + 1);
    roomFor(ds.indices, nnz, reserved(ds.values) + csr, budget, nnzEstimate);
    roomFor(ds.values, nnz, reserved(ds.indices) + csr, budget, nnzEstimate);
    const auto base = std::int64_t(ds.indices.size());
    ds.labels.insert(ds.labels.end(), c.labels.begin(), c.labels.end());
    ds.indices.insert(ds.indices.end(), c.indices.begin(), c.indices.end());
    ds.values.insert(ds.values.end(), c.values.begin(), c.values.end());
    for (const std::int64_t e : c.ends)
        ds.offsets.push_back(base + e);
}

} // namespace

Dataset detail::loadLibsvm(const std::filesystem::path& file, const TextParse& how) {
    const Budget budget{"libsvm " + quoted(file)};
    const std::string& where = budget.where;
    TextChunks in(file, kMaxTextBytes, "libsvm file",
                  how.chunkBytes ? how.chunkBytes : TextParse::kDefaultChunkBytes);
    Dataset ds;
    ds.offsets.push_back(0);
    LibsvmLabels labels;
    std::int64_t maxIndex = 0;
    const auto parse = [&](LibsvmChunk& c, std::int64_t firstLine) {
        parseLibsvmChunk(where, c, firstLine, how.fastPath);
    };
    const auto merge = [&](LibsvmChunk& c, std::int64_t linesBefore) {
        labels.add(c.seen, linesBefore);
        maxIndex = std::max(maxIndex, c.maxIndex);
        if (!c.labels.empty())
            appendRows(c, budget, in.sizeHint(), ds);
    };
    parseChunks<LibsvmChunk>(
        in, how, [](LibsvmChunk&) {}, parse, merge);
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

Dataset loadLibsvm(const std::filesystem::path& file) {
    return detail::loadLibsvm(file, detail::TextParse{});
}

} // namespace hwl
