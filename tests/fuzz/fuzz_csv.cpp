// fuzz_csv: hwl::loadCsv(path) on the input as a CSV file (label first,
// float features; optional header line, CRLF, a UTF-8 BOM; raw or gzip,
// which the reader sniffs by content).
//
// Input: the file's bytes, as they are.
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout, an allocation
// over -malloc_limit_mb, an exception other than InputError/RunError, or a
// loaded Dataset that breaks its contract (datasetoracle.h).
#include "data/datasources.h"
#include "datasetoracle.h"
#include "fuzzutil.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = hwl::fuzz::writeScratch("data.csv", data, size);
    return hwl::fuzz::expectingInputErrors([&] { hwl::fuzz::checkDataset(hwl::loadCsv(file)); });
}
