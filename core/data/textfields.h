#pragma once
// The fields of the text formats (csvreader.cpp, libsvmreader.cpp): numbers
// and labels as std::from_chars reads them, the messages for those that do
// not parse, and the growth of the dataset's arrays under the memory budget.
//
// Each reader has a fast path for a row of plain numbers (fastFloat,
// fastLabel) and, for anything else, the careful path that finds the
// problem and words it (parseFloat, parseLabel). The fast path accepts a
// field only when the careful path would read the same value from it, so
// which path read a row never shows in the data.
#include "data/datasourceio.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace hwl::detail::text {

// Labels at most this (the spec's class limit is 100000).
constexpr double kMaxLabel = 99999;
// Text files may be as large as the dataset budget.
constexpr std::uint64_t kMaxTextBytes = std::uint64_t(8) << 30;

inline bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline const char* skipSpaces(const char* p, const char* end) {
    while (p != end && isSpace(*p))
        ++p;
    return p;
}

std::string_view trim(std::string_view s);
bool isBlank(std::string_view s);

inline bool isDigit(char c) {
    return unsigned(c - '0') < 10;
}

/// The common float, read without std::from_chars: [-]DIGITS[.DIGITS]
/// [e[+-]DIGITS] whose digits make an integer m <= 2^24 and whose power of
/// ten is within 10^-10..10^10. Both are exact floats, so one IEEE division
/// or multiplication rounds m x 10^e once, correctly: the float
/// std::from_chars gives (Clinger's fast path), ending where it ends. Null
/// for anything else (more digits, a larger exponent, "+1", "nan", ...).
inline const char* decimalFloat(const char* p, const char* end, float& out) {
    static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                       1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    constexpr std::uint32_t kExact = std::uint32_t(1) << 24;
    const bool negative = p != end && *p == '-';
    p += negative;
    std::uint32_t m = 0;
    const char* const digits = p;
    for (; p != end && isDigit(*p); ++p)
        if ((m = m * 10 + std::uint32_t(*p - '0')) > kExact)
            return nullptr;
    std::ptrdiff_t count = p - digits, scale = 0;
    if (p != end && *p == '.') {
        const char* const fraction = ++p;
        for (; p != end && isDigit(*p); ++p)
            if ((m = m * 10 + std::uint32_t(*p - '0')) > kExact)
                return nullptr;
        scale = -(p - fraction);
        count += p - fraction;
    }
    if (count == 0)
        return nullptr;
    if (p != end && (*p == 'e' || *p == 'E')) {
        ++p;
        const bool down = p != end && *p == '-';
        p += p != end && (*p == '-' || *p == '+');
        const char* const exponent = p;
        int e = 0;
        for (; p != end && isDigit(*p) && p - exponent < 3; ++p)
            e = e * 10 + (*p - '0');
        if (p == exponent || (p != end && isDigit(*p)))
            return nullptr; // "1e" (from_chars ends before the e) or a long exponent
        scale += down ? -e : e;
    }
    if (scale < -10 || scale > 10)
        return nullptr;
    const float v = scale < 0 ? float(m) / kPow10[-scale] : float(m) * kPow10[scale];
    out = negative ? -v : v;
    return p;
}

/// A float at `p` as the careful path would read it: no sign '+', finite.
/// Returns where it ends, or null when the careful path must look.
inline const char* fastFloat(const char* p, const char* end, float& out) {
    if (const char* q = decimalFloat(p, end, out))
        return q;
    const auto [q, ec] = std::from_chars(p, end, out);
    return ec == std::errc() && std::isfinite(out) ? q : nullptr;
}

/// An integer label at `p` (an optional '+' before a digit; -1 only when
/// `allowMinusOne`) in [0, kMaxLabel]. Returns where it ends, or null when
/// the careful path must look ("3.0", "1e2", a bad label).
inline const char* fastLabel(const char* p, const char* end, bool allowMinusOne,
                             std::int64_t& out) {
    if (end - p >= 2 && *p == '+' && p[1] >= '0' && p[1] <= '9')
        ++p;
    const auto [q, ec] = std::from_chars(p, end, out);
    if (ec != std::errc() || out > std::int64_t(kMaxLabel) ||
        (out < 0 && !(allowMinusOne && out == -1)))
        return nullptr;
    return q;
}

/// The end of the line that starts at `p` (its "\n", or `end`); `next` gets
/// where the line after it starts. A "\r" before the "\n" is not part of it.
inline const char* lineEnd(const char* p, const char* end, const char*& next) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', std::size_t(end - p)));
    next = nl ? nl + 1 : end;
    const char* e = nl ? nl : end;
    return e != p && e[-1] == '\r' ? e - 1 : e;
}

enum class Num { Ok, Empty, NotNumber, NaN, Inf, OutOfRange };

/// Parses a whole (trimmed) field as a float; "+1.5" and "1e-50" (to 0) too.
Num parseFloat(std::string_view s, float& out);
std::string quote(std::string_view s);
/// The message for a feature value that did not parse, or "" when it did.
std::string featureProblem(Num n, std::string_view field);
/// Parses a label: an integer (written as such or as 3.0). On failure
/// returns the message; `allowMinusOne` admits -1 (LIBSVM's binary form).
std::string parseLabel(std::string_view field, bool allowMinusOne, std::int64_t& out);
/// "<where>, line L, column C: "
std::string position(const std::string& where, std::int64_t line, std::int64_t column);
/// maxLabel + 1, or InputError when every label is the same.
std::int32_t checkedClasses(const std::string& where, std::int64_t maxLabel);

/// The memory budget of one load, taken when it starts (what is available
/// shrinks as the rows arrive).
struct Budget {
    std::string where;
    double bytes = detail::datasetBudget();
};

template <class T>
double reserved(const std::vector<T>& v) {
    return double(v.capacity()) * sizeof(T);
}

/// What an array holding `count` elements after `consumed` of the
/// content's `hint` bytes will hold at the end: `count` scaled to the whole
/// content, the rest with a margin of a fifth (only the part really filled
/// takes memory; the rest of a reservation is address space), and never
/// more than the content can hold at `bytesEach` bytes an element at
/// least. 0 when the hint is unknown or already passed.
inline std::size_t estimateCount(std::size_t count, std::uint64_t consumed, std::uint64_t hint,
                                 std::uint64_t bytesEach) {
    if (consumed == 0 || hint < consumed)
        return 0;
    const double rest = double(count) * double(hint - consumed) / double(consumed);
    return std::size_t(std::min(double(count) + rest * 1.2, double(hint / bytesEach + 1)));
}

/// Makes room in `v` for `extra` more elements when it is full: for
/// `estimate` elements when that is more (one reservation for the whole
/// file, so the rows are never copied to a larger array), else doubling,
/// while the dataset's reservations (`otherBytes`: the other arrays') stay
/// within the memory budget; throws InputError naming the file beyond.
template <class T>
void roomFor(std::vector<T>& v, std::size_t extra, double otherBytes, const Budget& b,
             std::size_t estimate = 0) {
    if (v.capacity() - v.size() >= extra)
        return;
    const double budget = b.bytes - otherBytes;
    const std::size_t need = v.size() + extra;
    std::size_t want = estimate > 0 ? std::max({estimate, need, v.capacity() + v.capacity() / 4})
                                    : std::max({v.capacity() * 2, need, std::size_t(4096)});
    if (double(want) * sizeof(T) > budget)
        want = std::size_t(std::max(0.0, budget) / sizeof(T));
    if (want < need)
        detail::checkDatasetBytes(double(need) * sizeof(T) + otherBytes,
                                  b.where + " (the parsed rows)", "use a smaller file", b.bytes);
    v.reserve(want);
}

} // namespace hwl::detail::text
