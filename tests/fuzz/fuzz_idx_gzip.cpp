// fuzz_idx_gzip: hwl::loadIdx(images, labels) where the harness gzips the
// images payload itself (zlib deflate, gzip wrapper), so every mutation is an
// IDX header and pixels behind a valid gzip layer: the loader cannot size its
// buffer from the file size, and headers that claim huge sizes must be
// refused, not allocated (-malloc_limit_mb catches the allocation).
//
// Input: as fuzz_idx (2 bytes big-endian L, L bytes of the raw labels file,
// then the images payload), except that the payload is gzipped before it is
// written.
//
// Failure: as fuzz_idx: a crash, a sanitizer report, a leak, a timeout, an
// allocation over the cap, an exception other than InputError/RunError, or a
// Dataset that breaks its contract.
#include "data/datasources.h"
#include "datasetoracle.h"
#include "fuzzutil.h"

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace {

/// `size` bytes as one gzip member (deflateInit2 with windowBits 31).
std::string gzipped(const std::uint8_t* data, std::size_t size) {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        hwl::fuzz::harnessFailure("deflateInit2 failed");
    std::string out(deflateBound(&z, uLong(size)), '\0');
    z.next_in = const_cast<Bytef*>(data);
    z.avail_in = uInt(size);
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        hwl::fuzz::harnessFailure("deflate did not finish in deflateBound bytes");
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = hwl::fuzz::splitIdxInput(data, size);
    const auto labels = hwl::fuzz::writeScratch("labels", in.labels, in.labelsSize);
    const std::string gz = gzipped(in.images, in.imagesSize);
    const auto images = hwl::fuzz::writeScratch("images.gz", gz.data(), gz.size());
    return hwl::fuzz::expectingInputErrors(
        [&] { hwl::fuzz::checkDataset(hwl::loadIdx(images, labels)); });
}
