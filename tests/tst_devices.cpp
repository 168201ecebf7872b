// How the engine learns which GPUs there are (launch/devices.h): a probe
// that never answers is given up and killed, and a probe report saved
// earlier (HWL_DEVICE_REPORT, which the device check uses so that its many
// runs do not each start a CUDA context just to list the devices) is read
// instead of a probe, and refused by name when it is empty or too large.
#include "launch/devices.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

using namespace hwl;

class TestDevices : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

    QString write(const char* name, const std::string& text) {
        const QString path = tmp_.filePath(QString::fromLatin1(name));
        std::ofstream(path.toStdString(), std::ios::binary) << text;
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }
    void cleanup() { qunsetenv("HWL_DEVICE_REPORT"); }

    // A device probe that never answers (here a program that holds the pipe
    // open and says nothing) is given up at its deadline and killed: the
    // window and --list-devices never wait on a probe stuck in CUDA's
    // initialisation (a hang here fails the test by its time limit).
    void deviceProbeThatHangsIsKilled() {
        const DeviceList list = probeDevicesWith("/bin/sleep", "3600", 300);
        QVERIFY(list.devices.empty());
        QVERIFY2(QString::fromStdString(list.unavailable)
                     .contains("the device probe gave no answer within 300 ms (killed)"),
                 list.unavailable.c_str());
    }

    // The probe's report, saved in a file, stands in for the probe.
    void savedReportReplacesTheProbe() {
        if (!cudaBuilt())
            QSKIP("this build has no CUDA backend: the device list says so before any probe");
        const QString path =
            write("report",
                  "versions\tdriver 13.0, runtime 13.0; NCCL none\n"
                  "device\t0\tNVIDIA H200\t150119759872\t9\t0\t132\t0\n"
                  "device\t1\tNVIDIA H200\t150119759872\t9\t0\t132\t3\t1980000\t2619000\t5120\n");
        qputenv("HWL_DEVICE_REPORT", path.toUtf8());
        const DeviceList list = listDevices(true);
        QVERIFY2(list.unavailable.empty(), list.unavailable.c_str());
        QCOMPARE(list.devices.size(), std::size_t(2));
        QCOMPARE(list.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(list.devices[0].memoryBytes, std::int64_t(150119759872));
        QCOMPARE(list.devices[0].major, 9);
        QCOMPARE(list.devices[1].multiprocessors, 132);
        QVERIFY(!list.devices[0].exclusiveProcess());
        QVERIFY(list.devices[1].exclusiveProcess());
        QCOMPARE(list.versions, std::string("driver 13.0, runtime 13.0; NCCL none"));
        // A report without the clock (an older probe's) reads, without a peak;
        // with it, the FP32 peak comes from the device's own figures.
        QCOMPARE(list.devices[0].clockKHz, 0);
        QCOMPARE(list.devices[0].fp32PeakFlops(), 0.0);
        QCOMPARE(list.devices[1].clockKHz, 1980000);
        QVERIFY(std::abs(list.devices[1].fp32PeakFlops() - 66.9e12) < 0.1e12);
        QVERIFY(describeDevices(list).find("FP32 peak 66.9 TFLOPS (1980 MHz)") !=
                std::string::npos);
        QVERIFY(std::abs(list.devices[1].memoryBandwidth() - 3.35e12) < 0.01e12);
        GpuDevice a100;
        a100.major = 8;
        a100.multiprocessors = 108;
        a100.clockKHz = 1410000;
        QVERIFY(std::abs(a100.fp32PeakFlops() - 19.5e12) < 0.1e12); // 64 lanes a multiprocessor
        a100.major = 5; // a family the table does not know: no peak rather than a wrong one
        QCOMPARE(a100.fp32PeakFlops(), 0.0);
        // A saved "no device" stays no device, and says where it came from.
        qputenv("HWL_DEVICE_REPORT",
                write("none", "error\tno CUDA device: cudaGetDeviceCount returned 35\n").toUtf8());
        const DeviceList none = listDevices(true);
        QVERIFY(none.devices.empty());
        QVERIFY2(none.unavailable.find("cudaGetDeviceCount returned 35 (from HWL_DEVICE_REPORT=") !=
                     std::string::npos,
                 none.unavailable.c_str());
    }

    // A file that is missing, empty or far too large is refused by name.
    void badSavedReportIsNamed() {
        if (!cudaBuilt())
            QSKIP("this build has no CUDA backend: the device list says so before any probe");
        const std::pair<QString, const char*> cases[] = {
            {tmp_.filePath("missing"), "is empty or cannot be read: write it with"},
            {write("empty", ""), "is empty or cannot be read: write it with"},
            {write("huge", std::string(1 << 17, 'x')), "is larger than a device report"},
        };
        for (const auto& [path, why] : cases) {
            qputenv("HWL_DEVICE_REPORT", path.toUtf8());
            const DeviceList list = listDevices(true);
            QVERIFY(list.devices.empty());
            QVERIFY2(list.unavailable.find(why) != std::string::npos, list.unavailable.c_str());
            QVERIFY2(list.unavailable.find(path.toStdString()) != std::string::npos,
                     list.unavailable.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
