#include "data/fingerprint.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace hwl {

namespace {
/// Folds `size` bytes into `h`, 8 at a time (four lanes, so the multiplies
/// overlap), then the tail.
std::uint64_t fold(std::uint64_t h, const void* data, std::size_t size) {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3};
    std::size_t i = 0;
    for (; i + 32 <= size; i += 32)
        for (int k = 0; k < 4; ++k) {
            std::uint64_t w;
            std::memcpy(&w, p + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * kMul;
            lane[k] ^= lane[k] >> 29;
        }
    std::uint64_t out = size;
    for (std::uint64_t l : lane)
        out = (out ^ l) * kMul;
    for (; i < size; ++i)
        out = (out ^ p[i]) * kMul;
    return out ^ (out >> 31);
}
} // namespace

std::uint64_t fingerprint(const DatasetView& d) {
    std::uint64_t h = fold(0x243F6A8885A308D3ull, &d.rows, sizeof d.rows);
    h = fold(h, &d.dim, sizeof d.dim);
    h = fold(h, &d.numClasses, sizeof d.numClasses);
    const auto rows = std::size_t(d.rows);
    if (d.isSparse()) {
        const auto nnz = std::size_t(d.offsets[rows]);
        h = fold(h, d.offsets, (rows + 1) * sizeof(std::int64_t));
        h = fold(h, d.indices, nnz * sizeof(std::int32_t));
        h = fold(h, d.values, nnz * sizeof(float));
    } else {
        h = fold(h, d.dense, rows * std::size_t(d.dim) * sizeof(float));
    }
    return fold(h, d.labels, rows * sizeof(std::int32_t));
}

std::string describeFingerprint(const DatasetView& d) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "%" PRId64 " x %" PRId64 ", %d classes, fingerprint %016" PRIx64, d.rows, d.dim,
                  int(d.numClasses), fingerprint(d));
    return text;
}

} // namespace hwl
