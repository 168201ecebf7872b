// fuzz_libsvm: hwl::loadLibsvm(path) on the input as a LIBSVM text file
// ("label index:value ...", 1-based increasing indices; comments, CRLF, a
// BOM; raw or gzip, which the reader sniffs by content).
//
// Input: the file's bytes, as they are.
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout, an allocation
// over -malloc_limit_mb, an exception other than InputError/RunError, or a
// loaded Dataset that breaks its contract (datasetoracle.h: CSR offsets,
// indices below dim, labels below numClasses).
#include "data/datasources.h"
#include "datasetoracle.h"
#include "fuzzutil.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = hwl::fuzz::writeScratch("data.libsvm", data, size);
    return hwl::fuzz::expectingInputErrors([&] { hwl::fuzz::checkDataset(hwl::loadLibsvm(file)); });
}
