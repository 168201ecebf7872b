// One load of a CSV or LIBSVM file with the engine's reader, for
// bench/loading.py: prints one JSON line with the time, the file's bytes,
// the loaded dataset's bytes (features + labels, and the CSR arrays of a
// sparse set) and the process's peak resident memory before and after.
// Run it once per measurement: the peak is a high-water mark.
//
//   build/bench/loading csv|libsvm FILE [--threads N] [--split FRACTION]
//
// --threads N   parse with N threads (1: the serial path; default: all cores)
// --split F     then split off a test set of fraction F as a run does
//               (loadDataset's shuffle and split), and count both parts
#include "data/datasourceio.h"
#include "data/datasources.h"
#include "util/errors.h"

#include "benchutil.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>
#include <sys/stat.h>

using namespace hwl;
using namespace hwl::bench;

namespace {

long maxRssKiB() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return r.ru_maxrss;
}

/// CPU seconds (user + system) of every thread of the process so far.
double cpuSeconds() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           1e-6 * double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

double datasetBytes(const Dataset& ds) {
    return double(ds.dense.size() + ds.values.size()) * sizeof(float) +
           double(ds.labels.size() + ds.indices.size()) * sizeof(std::int32_t) +
           double(ds.offsets.size()) * sizeof(std::int64_t);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s csv|libsvm FILE [--threads N] [--split FRACTION]\n",
                     argv[0]);
        return 2;
    }
    const std::string format = argv[1];
    const std::string file = argv[2];
    int threads = 0;
    double split = -1;
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--threads")
            threads = std::atoi(argv[i + 1]);
        else if (flag == "--split")
            split = std::atof(argv[i + 1]);
    }
    struct stat st {};
    stat(file.c_str(), &st);
    const long before = maxRssKiB();
    try {
        const detail::TextParse parse{threads, 0};
        const auto start = Clock::now();
        const double cpuStart = cpuSeconds();
        double bytes = 0;
        std::int64_t rows = 0, dim = 0;
        if (split >= 0) {
            const DatasetSplit s = splitTrainTest(format == "csv" ? detail::loadCsv(file, parse)
                                                                  : detail::loadLibsvm(file, parse),
                                                  split, 1);
            bytes = datasetBytes(s.train) + datasetBytes(s.test);
            rows = s.train.rows + s.test.rows;
            dim = s.train.dim;
        } else {
            const Dataset ds =
                format == "csv" ? detail::loadCsv(file, parse) : detail::loadLibsvm(file, parse);
            bytes = datasetBytes(ds);
            rows = ds.rows;
            dim = ds.dim;
        }
        const double s = seconds(start, Clock::now());
        const double cpu = cpuSeconds() - cpuStart;
        std::printf(
            "{\"format\": \"%s\", \"threads\": %d, \"file_bytes\": %lld, \"seconds\": %.4f, "
            "\"cpu_seconds\": %.4f, "
            "\"rows\": %lld, \"dim\": %lld, \"dataset_bytes\": %.0f, "
            "\"rss_before_kib\": %ld, \"rss_peak_kib\": %ld}\n",
            format.c_str(), threads, static_cast<long long>(st.st_size), s, cpu,
            static_cast<long long>(rows), static_cast<long long>(dim), bytes, before, maxRssKiB());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "loading: %s\n", e.what());
        return 1;
    }
    return 0;
}
