#include "collective/buckets.h"

#include "util/textutil.h"

#include <algorithm>
#include <string>

namespace hwl {

std::vector<Bucket> makeBuckets(const ParamLayout& layout, double capMb, double firstMb) {
    const auto floatsIn = [](double mb) {
        return std::max<std::int64_t>(1, std::int64_t(mb * 1024 * 1024 / sizeof(float)));
    };
    std::vector<Bucket> buckets;
    const auto& tensors = layout.tensors();
    std::int64_t cap = floatsIn(std::min(firstMb, capMb));
    Bucket current{layout.total(), 0};
    for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
        if (current.length > 0 && current.length + it->size > cap) {
            buckets.push_back(current);
            current = {it->offset + it->size, 0};
            cap = floatsIn(capMb);
        }
        current.offset = it->offset;
        current.length += it->size;
    }
    if (current.length > 0)
        buckets.push_back(current);
    return buckets;
}

std::string layoutSignature(const ParamLayout& layout) {
    std::string text;
    for (const auto& t : layout.tensors()) {
        // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "lit" + string.
        if (!text.empty())
            text += ' ';
        text += t.name;
        text += '[';
        for (std::size_t i = 0; i < t.shape.size(); ++i) {
            if (i)
                text += 'x';
            text += std::to_string(t.shape[i]);
        }
        text += "]@";
        text += std::to_string(t.offset);
    }
    return text;
}

std::string layoutDifference(const ParamLayout& mine, const std::string& rank0) {
    const std::string own = layoutSignature(mine);
    if (own == rank0)
        return {};
    const auto a = split(rank0, ' '), b = split(own, ' ');
    std::string why;
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        const std::string want = i < a.size() ? a[i] : "(nothing)";
        const std::string have = i < b.size() ? b[i] : "(nothing)";
        if (want == have)
            continue;
        if (!why.empty())
            why += "; ";
        why += "tensor " + std::to_string(i) + ": rank 0 has " + want + ", this rank " + have;
    }
    return why;
}

} // namespace hwl
