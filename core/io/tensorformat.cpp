#include "io/tensorformat.h"

#include "util/textutil.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

namespace hwl::detail {

std::string jsonQuoted(const std::string& s) {
    using Json = nlohmann::json;
    return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string validUtf8(const std::string& s) {
    return nlohmann::json::parse(jsonQuoted(s)).get<std::string>();
}

std::optional<std::uint64_t> checkedMul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

std::uint64_t elementCount(const TensorRef& t) {
    std::uint64_t n = 1;
    for (std::int64_t d : t.shape) {
        if (d < 0)
            throw std::invalid_argument("tensor " + jsonQuoted(t.name) +
                                        " has a negative dimension " + bracketedList(t.shape));
        const auto m = checkedMul(n, static_cast<std::uint64_t>(d));
        if (!m || *m > std::numeric_limits<std::size_t>::max() / 4)
            throw std::invalid_argument("tensor " + jsonQuoted(t.name) + " is too large " +
                                        bracketedList(t.shape));
        n = *m;
    }
    return n;
}

void checkForWriting(const std::vector<TensorRef>& tensors) {
    std::set<std::string> seen;
    for (const TensorRef& t : tensors) {
        if (t.name == kMetadataKey)
            throw std::invalid_argument("tensor name \"__metadata__\" is reserved");
        if (!seen.insert(t.name).second)
            throw std::invalid_argument("tensor " + jsonQuoted(t.name) + " is listed twice");
        if (elementCount(t) > 0 && t.data == nullptr)
            throw std::invalid_argument("tensor " + jsonQuoted(t.name) + " has no data");
    }
}

std::string floatsLE(const float* data, std::size_t n) {
    std::string out(n * 4, '\0');
    if (n == 0)
        return out;
    std::memcpy(out.data(), data, n * 4);
    if constexpr (std::endian::native != std::endian::little)
        for (std::size_t i = 0; i < out.size(); i += 4)
            std::reverse(out.begin() + i, out.begin() + i + 4);
    return out;
}

} // namespace hwl::detail
