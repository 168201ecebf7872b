// fuzz_idx: hwl::loadIdx(images, labels) on an IDX image file and an IDX
// label file, raw or gzip (the loader sniffs the 1f 8b magic, so gzipped
// seeds take the zlib path).
//
// Input: 2 bytes big-endian L, then L bytes of the labels file, then the
// images file (the rest). An input shorter than 2 bytes is all images with
// an empty labels file; an L past the end takes what there is.
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout, an allocation
// over -malloc_limit_mb, an exception other than InputError/RunError, or a
// loaded Dataset that breaks its contract (datasetoracle.h).
#include "data/datasources.h"
#include "datasetoracle.h"
#include "fuzzutil.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = hwl::fuzz::splitIdxInput(data, size);
    const auto labels = hwl::fuzz::writeScratch("labels", in.labels, in.labelsSize);
    const auto images = hwl::fuzz::writeScratch("images", in.images, in.imagesSize);
    return hwl::fuzz::expectingInputErrors(
        [&] { hwl::fuzz::checkDataset(hwl::loadIdx(images, labels)); });
}
