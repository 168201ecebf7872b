// The telemetry segment: ring semantics, segment naming, permissions and
// clean-up of segments that a crashed run left behind.
#include "io/metricslog.h"
#include "store/sharedsegment.h"
#include "telemetry/telemetry.h"
#include "util/errors.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hwl;

namespace {
// "/hwl-<pid>-<rest>" (built with += : GCC 12 warns falsely on "lit" + string).
std::string segmentName(long pid, const char* rest) {
    std::string name = "/hwl-";
    name += std::to_string(pid);
    name += rest;
    return name;
}

bool segmentExists(const std::string& name) {
    return std::filesystem::exists("/dev/shm" + name);
}

// A step sample whose fields all derive from i, so order and content can be checked.
Sample numbered(std::uint64_t i) {
    Sample s;
    s.worker = int(i % 3);
    s.epoch = std::uint32_t(i / 1000 + 1);
    s.step = i;
    s.samples = 8 * i;
    s.time = double(i) / 1000;
    s.loss = float(i % 97) / 8;
    return s;
}

// Checks that `log` holds numbered(0..n-1) in order; "" or what is wrong.
std::string holdsNumbered(const MetricsLog& log, std::uint64_t n) {
    if (log.size() != n)
        return "size " + std::to_string(log.size());
    std::uint64_t next = 0;
    std::string error;
    log.forEach([&](const Sample& s) {
        const Sample want = numbered(next);
        if (error.empty() && (s.step != want.step || s.samples != want.samples ||
                              s.worker != want.worker || s.loss != want.loss))
            error = "sample " + std::to_string(next) + " differs";
        ++next;
    });
    if (error.empty() && next != n)
        error = "forEach visited " + std::to_string(next);
    return error;
}
} // namespace

class TestTelemetry : public QObject {
    Q_OBJECT

private slots:
    // --trace's slices: an interval split exactly at slice boundaries, a
    // long one of a kind as one record for its whole slices, steps counted
    // where they end, nothing lost or added.
    void slicesAddUpExactly() {
        auto ring = std::make_unique<SliceRing>();
        SliceTracer tracer(*ring, 1000, 100); // slices of 100 ns from 1000
        tracer.add(TraceKind::Compute, 1000, 1060);
        tracer.add(TraceKind::Wait, 1060, 1130); // crosses into slice 1
        tracer.countStep(1130);
        tracer.add(TraceKind::Compute, 1130, 1200);
        tracer.add(TraceKind::Wait, 1200, 1750); // slices 2-6 whole, then half of 7
        tracer.add(TraceKind::Communicate, 1750, 1790);
        tracer.flush();
        std::vector<TraceSlice> got;
        ring->drain([&](const TraceSlice& s) { got.push_back(s); });
        QCOMPARE(int(got.size()), 4);
        QCOMPARE(got[0].index, 0u);
        QCOMPARE(got[0].ns[0], 60u);
        QCOMPARE(got[0].ns[1], 40u);
        QCOMPARE(got[1].index, 1u);
        QCOMPARE(got[1].ns[1], 30u);
        QCOMPARE(got[1].ns[0], 70u);
        QCOMPARE(got[1].steps, 1u);
        QCOMPARE(got[2].index, 2u); // the long wait: one record for slices 2-6
        QCOMPARE(got[2].span, 5u);
        QCOMPARE(got[2].ns[1], 100u);
        QCOMPARE(got[3].index, 7u);
        QCOMPARE(got[3].ns[1], 50u);
        QCOMPARE(got[3].ns[2], 40u);
        QCOMPARE(got[0].offset, 0u);
        tracer.add(TraceKind::Compute, 1830, 1850); // a new slice, 30 ns in
        tracer.flush();
        ring->drain([&](const TraceSlice& s) { got.push_back(s); });
        QCOMPARE(got.back().index, 8u);
        QCOMPARE(got.back().offset, 30u);
        std::uint64_t total = 0;
        for (const TraceSlice& s : got)
            for (std::uint32_t ns : s.ns)
                total += std::uint64_t(ns) * s.span;
        QCOMPARE(total, 810u);
    }

    void ringKeepsOrderAndDropsWhenFull() {
        auto ring = std::make_unique<SampleRing>();
        for (std::uint32_t i = 0; i < SampleRing::kCapacity; ++i) {
            Sample s;
            s.step = i;
            QVERIFY(ring->push(s));
        }
        Sample extra;
        extra.step = 999999;
        QVERIFY(!ring->push(extra)); // full: dropped, producer does not wait
        QCOMPARE(ring->dropped.load(), std::uint64_t(1));
        std::uint64_t expected = 0;
        const auto n = ring->drain([&](const Sample& s) { QCOMPARE(s.step, expected++); });
        QCOMPARE(n, std::size_t(SampleRing::kCapacity));
        QVERIFY(ring->push(extra)); // space again
        QCOMPARE(ring->drain([](const Sample&) {}), std::size_t(1));
    }

    void ringAcrossThreadsLosesNothingItDidNotCount() {
        auto ring = std::make_unique<SampleRing>();
        constexpr std::uint64_t kCount = 200000;
        std::thread producer([&] {
            for (std::uint64_t i = 0; i < kCount; ++i) {
                Sample s;
                s.step = i;
                ring->push(s);
            }
        });
        std::uint64_t received = 0, last = 0;
        bool ordered = true;
        while (true) {
            ring->drain([&](const Sample& s) {
                ordered = ordered && (received == 0 || s.step > last);
                last = s.step;
                ++received;
            });
            if (received + ring->dropped.load() == kCount)
                break;
            std::this_thread::yield();
        }
        producer.join();
        QVERIFY(ordered);
        QCOMPARE(received + ring->dropped.load(), kCount);
    }

    void segmentIsPrivateAndUnlinked() {
        std::string name;
        {
            const mode_t old = umask(0); // permissions must not depend on the umask
            Telemetry t = Telemetry::create(4, 3);
            umask(old);
            name = t.name();
            QVERIFY(name.rfind(segmentName(getpid(), "-"), 0) == 0);
            struct stat st {};
            QCOMPARE(stat(("/dev/shm" + name).c_str(), &st), 0);
            QCOMPARE(int(st.st_mode & 0777), 0600);
            QCOMPARE(t.workerCount(), 4u);
            QCOMPARE(t.header().totalEpochs, 3u);
            // A second mapping (as a worker process or the GUI would) sees the same memory.
            Telemetry other = Telemetry::open(name);
            other.worker(2).steps.store(77);
            QCOMPARE(t.worker(2).steps.load(), std::uint64_t(77));
        }
        QVERIFY(!segmentExists(name));
    }

    void openRejectsForeignSegment() {
        SharedSegment junk = SharedSegment::create("junk", 1 << 20);
        try {
            Telemetry::open(junk.name());
            QFAIL("expected RunError");
        } catch (const std::exception& e) {
            QVERIFY(std::string(e.what()).find("not a Hogwild Lab run") != std::string::npos);
        }
    }

    void staleSegmentOfDeadOwnerIsRemoved() {
        // A child creates a segment and dies without unlinking it (as a crash would).
        int pipeFds[2];
        QCOMPARE(pipe(pipeFds), 0);
        const pid_t child = fork();
        if (child == 0) {
            const std::string name = segmentName(getpid(), "-0-1-telemetry");
            const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
            const char ok = fd >= 0 ? 1 : 0;
            (void)!write(pipeFds[1], &ok, 1);
            _exit(0);
        }
        char ok = 0;
        QCOMPARE(read(pipeFds[0], &ok, 1), ssize_t(1));
        QCOMPARE(ok, char(1));
        close(pipeFds[0]);
        close(pipeFds[1]);
        waitpid(child, nullptr, 0);
        const std::string stale = segmentName(child, "-0-1-telemetry");
        QVERIFY(segmentExists(stale));

        // A live owner's segment (ours) must survive the clean-up.
        Telemetry mine = Telemetry::create(1, 1);
        QVERIFY(SharedSegment::cleanupStaleSegments() >= 1);
        QVERIFY(!segmentExists(stale));
        QVERIFY(segmentExists(mine.name()));
    }

    void metricsLogSpillsToDiskAndKeepsEverything() {
        // Four times what it keeps in memory: the rest goes to its temporary file.
        const std::uint64_t n = 4 * MetricsLog::kMemorySamples + 5;
        MetricsLog log;
        for (std::uint64_t i = 0; i < n; ++i)
            log.append(numbered(i));
        QVERIFY2(log.spillError().empty(), log.spillError().c_str());
        QCOMPARE(log.spilledCount(), std::size_t(4 * MetricsLog::kMemorySamples));
        QVERIFY(log.size() - log.spilledCount() < MetricsLog::kMemorySamples); // memory bound
        const std::string problem = holdsNumbered(log, n);
        QVERIFY2(problem.empty(), problem.c_str());

        // The CSV streamed to disk is the CSV built in memory, one row per sample.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path file = dir.filePath("metrics.csv").toStdString();
        log.writeCsv(file);
        std::ifstream in(file);
        std::stringstream written;
        written << in.rdbuf();
        const std::string csv = log.csv();
        QVERIFY(written.str() == csv);
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t(n + 1));
        QVERIFY(csv.find("\n0,1,0,0,0,0.000000,step,0,0\n") != std::string::npos);
        QVERIFY(csv.find("\n2,66,65540,524320,") != std::string::npos); // numbered(65540)
        // Appending after a read goes on after the spilled records.
        log.append(numbered(n));
        const std::string again = holdsNumbered(log, n + 1);
        QVERIFY2(again.empty(), again.c_str());
    }

    void metricsLogCanGrowWhileItIsRead() {
        // The window keeps draining telemetry while an export reads the log.
        const std::uint64_t n = 2 * MetricsLog::kMemorySamples + 7;
        MetricsLog log;
        for (std::uint64_t i = 0; i < n; ++i)
            log.append(numbered(i));
        std::uint64_t visited = 0, next = n;
        bool inOrder = true;
        log.forEach([&](const Sample& s) {
            inOrder = inOrder && s.step == visited;
            ++visited;
            for (int k = 0; k < 3; ++k) // enough to spill again and again meanwhile
                log.append(numbered(next++));
        });
        QVERIFY(inOrder);
        QCOMPARE(visited, n);            // what was there when the pass began
        QVERIFY(log.spilledCount() > n); // the appends spilled during the pass
        const std::string problem = holdsNumbered(log, next);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void metricsCsvExportReportsProgressAndCancels() {
        const std::uint64_t n = 3 * MetricsLog::kMemorySamples;
        MetricsLog log;
        for (std::uint64_t i = 0; i < n; ++i)
            log.append(numbered(i));
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("metrics.csv").toStdString();
        std::vector<std::size_t> done;
        log.writeCsv(file, [&](std::size_t rows, std::size_t total) {
            if (total != n)
                return false;
            done.push_back(rows);
            return true;
        });
        QVERIFY(std::filesystem::exists(file));
        QVERIFY(done.size() > 10); // ~3.9 MB of CSV, reported every 64 KiB
        QVERIFY(std::is_sorted(done.begin(), done.end()));
        QVERIFY(done.back() <= n && done.back() > n / 2);

        // Cancelled half way: ExportCancelled, and nothing left behind.
        const std::filesystem::path other = dir.filePath("cancelled.csv").toStdString();
        try {
            log.writeCsv(other, [&](std::size_t rows, std::size_t) { return rows < n / 2; });
            QFAIL("expected ExportCancelled");
        } catch (const MetricsLog::ExportCancelled&) {
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"metrics.csv"});
    }

    void metricsLogKeepsSamplesInMemoryWhenItCannotSpill() {
        // A child whose files may not grow past 64 KiB: the first spill (768
        // KiB) fails with EFBIG, and the log must keep everything in memory.
        const pid_t child = fork();
        if (child == 0) {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{64 * 1024, 64 * 1024};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
                _exit(3);
            const std::uint64_t n = 3 * MetricsLog::kMemorySamples;
            MetricsLog log;
            for (std::uint64_t i = 0; i < n; ++i)
                log.append(numbered(i));
            if (log.spillError().find("keeping them in memory") == std::string::npos)
                _exit(4);
            if (log.spilledCount() != 0 || !holdsNumbered(log, n).empty())
                _exit(5);
            _exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    void metricsCsvToAnUnwritablePathSaysWhy() {
        MetricsLog log;
        log.append(numbered(1));
        QTemporaryDir dir;
        const std::filesystem::path file =
            dir.filePath("no-such-directory/metrics.csv").toStdString();
        try {
            log.writeCsv(file);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("cannot write") != std::string::npos &&
                         what.find("no-such-directory/metrics.csv") != std::string::npos,
                     e.what());
        }
        QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
    }

    void aShortDevShmFallsBackToMemoryFiles() {
        // /dev/shm taken to have 1 MiB free (a container's is 64 MiB): a
        // larger segment is an anonymous memory file, zero-filled, that
        // another mapping by its name shares, and that ends with its owner.
        qputenv("HWL_SHM_FREE_BYTES", "1048576");
        const auto restore = qScopeGuard([] { qunsetenv("HWL_SHM_FREE_BYTES"); });
        QCOMPARE(SharedSegment::freeBytes(), 1048576LL);
        std::string name;
        {
            SharedSegment owner = SharedSegment::create("parameters", 4 << 20);
            name = owner.name();
            QVERIFY2(name.rfind("/proc/" + std::to_string(getpid()) + "/fd/", 0) == 0,
                     name.c_str());
            QVERIFY(!std::filesystem::exists("/dev/shm" + name.substr(name.rfind('/'))));
            const auto* zero = static_cast<const unsigned char*>(owner.data());
            QVERIFY(std::all_of(zero, zero + (4 << 20), [](unsigned char b) { return b == 0; }));
            SharedSegment other = SharedSegment::open(name);
            QCOMPARE(other.size(), std::size_t(4 << 20));
            static_cast<float*>(owner.data())[12345] = 2.5f;
            QCOMPARE(static_cast<const float*>(other.data())[12345], 2.5f);
            // Small ones still go to /dev/shm.
            SharedSegment small = SharedSegment::create("telemetry", 4096);
            QVERIFY(segmentExists(small.name()));
        }
        try {
            SharedSegment::open(name);
            QFAIL("a memory file outlived its owner");
        } catch (const RunError& e) {
            QVERIFY2(std::string(e.what()).find("creator") != std::string::npos, e.what());
        }
        // A run that needs more than /dev/shm has chooses memory files for
        // every segment, and says so; one that fits goes back to /dev/shm.
        const std::string note = SharedSegment::choosePlace(8 << 20);
        QVERIFY2(note.find("memory files (memfd)") != std::string::npos &&
                     note.find("/dev/shm has 1 MiB free") != std::string::npos,
                 note.c_str());
        QVERIFY(SharedSegment::place() == SharedSegment::Place::MemoryFile);
        QVERIFY(SharedSegment::create("data", 4096).name().rfind("/proc/", 0) == 0);
        QVERIFY(SharedSegment::choosePlace(4096).empty());
        QVERIFY(SharedSegment::place() == SharedSegment::Place::DevShm);
    }

    void moreThanMemoryIsReportedUpFront() {
        // Neither /dev/shm nor memory can hold it: one clear message before
        // anything is allocated, never a huge allocation.
        const long long memory = SharedSegment::availableMemory();
        if (memory < 0)
            QSKIP("/proc/meminfo cannot be read here");
        qputenv("HWL_SHM_FREE_BYTES", "1048576");
        const auto restore = qScopeGuard([] { qunsetenv("HWL_SHM_FREE_BYTES"); });
        try {
            SharedSegment::create("parameters", std::size_t(memory) + (std::size_t(1) << 30));
            QFAIL("expected RunError");
        } catch (const RunError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("needs") != std::string::npos &&
                         what.find("/dev/shm has 1 MiB free") != std::string::npos &&
                         what.find("of memory is available") != std::string::npos,
                     e.what());
            // The two figures differ (needs rounds up, available rounds
            // down), never "needs 1 MiB but only 1 MiB".
            const auto needs = what.substr(what.find("needs ") + 6);
            const auto only = what.substr(what.find("only ") + 5);
            QVERIFY2(std::stoll(needs) > std::stoll(only), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
