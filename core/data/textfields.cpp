// The fields of the text formats: see textfields.h.
#include "data/textfields.h"

#include "util/errors.h"

namespace hwl::detail::text {

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

} // namespace hwl::detail::text
