// The telemetry segment: ring semantics, segment naming, permissions and
// clean-up of segments that a crashed run left behind.
#include "sharedsegment.h"
#include "telemetry.h"

#include <QTest>

#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
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
} // namespace

class TestTelemetry : public QObject {
    Q_OBJECT

private slots:
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

    void tooLittleSharedMemoryIsReportedUpFront() {
        const long long free = SharedSegment::freeBytes();
        if (free < 0)
            QSKIP("/dev/shm cannot be inspected here");
        try {
            SharedSegment::create("parameters", std::size_t(free) + (std::size_t(1) << 30));
            QFAIL("expected RunError");
        } catch (const std::exception& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("needs") != std::string::npos &&
                         what.find("MiB in /dev/shm") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
