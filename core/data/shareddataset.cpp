#include "data/shareddataset.h"

#include "util/errors.h"

#include <cstring>

namespace hwl {

namespace {
constexpr std::uint64_t kMagic = 0x4154414457474F48ull; // "HOGWDATA"

struct Header {
    std::uint64_t magic;
    std::int64_t rows, dim, nonZeros;
    std::int32_t numClasses, sparse;
    std::uint64_t dense, offsets, indices, values, labels; // byte offsets, 0 when absent
    std::uint64_t total;
};

std::uint64_t align64(std::uint64_t n) {
    return (n + 63) & ~std::uint64_t(63);
}

/// Computes the byte offsets of every array for `data`.
Header plan(const Dataset& data) {
    Header h{};
    h.magic = kMagic;
    h.rows = data.rows;
    h.dim = data.dim;
    h.numClasses = data.numClasses;
    h.sparse = data.isSparse() ? 1 : 0;
    h.nonZeros = std::int64_t(data.indices.size());
    std::uint64_t at = align64(sizeof(Header));
    auto place = [&](std::uint64_t bytes) {
        const std::uint64_t offset = at;
        at = align64(at + bytes);
        return offset;
    };
    if (h.sparse) {
        h.offsets = place(data.offsets.size() * sizeof(std::int64_t));
        h.indices = place(data.indices.size() * sizeof(std::int32_t));
        h.values = place(data.values.size() * sizeof(float));
    } else {
        h.dense = place(data.dense.size() * sizeof(float));
    }
    h.labels = place(data.labels.size() * sizeof(std::int32_t));
    h.total = at;
    return h;
}

DatasetView viewOf(const char* base, const Header& h) {
    DatasetView v;
    v.rows = h.rows;
    v.dim = h.dim;
    v.numClasses = h.numClasses;
    if (h.sparse) {
        v.offsets = reinterpret_cast<const std::int64_t*>(base + h.offsets);
        v.indices = reinterpret_cast<const std::int32_t*>(base + h.indices);
        v.values = reinterpret_cast<const float*>(base + h.values);
    } else {
        v.dense = reinterpret_cast<const float*>(base + h.dense);
    }
    v.labels = reinterpret_cast<const std::int32_t*>(base + h.labels);
    return v;
}
} // namespace

std::size_t SharedDataset::bytesFor(const Dataset& data) {
    return plan(data).total;
}

SharedDataset SharedDataset::create(const Dataset& data) {
    const Header h = plan(data);
    SharedDataset shared;
    shared.segment_ = SharedSegment::create("data", h.total);
    char* base = static_cast<char*>(shared.segment_.data());
    auto copy = [&](std::uint64_t offset, const auto& vec) {
        if (!vec.empty())
            std::memcpy(base + offset, vec.data(), vec.size() * sizeof(vec[0]));
    };
    if (h.sparse) {
        copy(h.offsets, data.offsets);
        copy(h.indices, data.indices);
        copy(h.values, data.values);
    } else {
        copy(h.dense, data.dense);
    }
    copy(h.labels, data.labels);
    std::memcpy(base, &h, sizeof h);
    shared.view_ = viewOf(base, h);
    return shared;
}

SharedDataset SharedDataset::open(const std::string& name) {
    SharedDataset shared;
    shared.segment_ = SharedSegment::open(name);
    const char* base = static_cast<const char*>(shared.segment_.data());
    Header h{};
    if (shared.segment_.size() < sizeof h)
        throw RunError("data segment " + name + " is too small");
    std::memcpy(&h, base, sizeof h);
    if (h.magic != kMagic || h.total != shared.segment_.size())
        throw RunError("data segment " + name + " is not a Hogwild Lab dataset");
    shared.view_ = viewOf(base, h);
    return shared;
}

} // namespace hwl
