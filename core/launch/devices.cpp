#include "launch/devices.h"

#include "launch/waitstatus.h"
#include "launch/workerargs.h"

#ifdef HWL_HAVE_CUDA
#include "cuda/cuda.h"
#endif

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hwl {

namespace {
constexpr const char* kProbeFlag = "--hwl-device-probe";
constexpr int kProbeTimeoutMs = 30'000;

std::string versionText(int v) { // CUDA's 1000 * major + 10 * minor
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DeviceList unavailable(bool built, std::string why);

/// The probe's report, one fact per line, tab-separated.
DeviceList parseReport(const std::string& text) {
    DeviceList list;
    list.built = true;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::size_t start = 0;
        for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
            f.push_back(line.substr(start, tab - start));
        f.push_back(line.substr(start));
        if (f[0] == "error" && f.size() == 2)
            list.unavailable = f[1];
        else if (f[0] == "versions" && f.size() == 2)
            list.versions = f[1];
        else if (f[0] == "device" && (f.size() == 8 || f.size() == 11)) {
            // 11: with the clocks and the bus (an older probe's report has 8)
            const auto field = [&f](std::size_t i) {
                return i < f.size() ? std::atoi(f[i].c_str()) : 0;
            };
            list.devices.push_back({field(1), f[2], std::atoll(f[3].c_str()), field(4), field(5),
                                    field(6), field(8), field(9), field(10), field(7)});
        }
    }
    if (list.devices.empty() && list.unavailable.empty())
        list.unavailable = "no CUDA device: the device probe reported none";
    return list;
}

/// Runs `program` with `argument` (the probe role) and reads its report,
/// giving up after `timeoutMs`.
DeviceList runProbe(std::string program, std::string argument, int timeoutMs) {
    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0)
        return unavailable(true, std::string("the device probe could not start: pipe: ") +
                                     std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    char* argv[] = {program.data(), argument.data(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipeFds[1]);
    if (rc != 0) {
        close(pipeFds[0]);
        return unavailable(true, "the device probe " + program +
                                     " could not start: " + std::strerror(rc));
    }
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    bool timedOut = false;
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{pipeFds[0], POLLIN, 0};
        const int ready = poll(&p, 1, int(left));
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue; // nothing to read yet: the deadline decides, never a blocking read
        char buf[4096];
        const ssize_t n = read(pipeFds[0], buf, sizeof buf);
        if (n > 0 && text.size() < (1u << 20))
            text.append(buf, std::size_t(n));
        else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            break;
    }
    close(pipeFds[0]);
    if (timedOut)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut)
        return unavailable(true, "no CUDA device: the device probe gave no answer within " +
                                     std::to_string(timeoutMs) + " ms (killed)");
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        return unavailable(true, "no CUDA device: the device probe " + describeWaitStatus(status) +
                                     (text.empty() ? std::string() : ": " + text));
    return parseReport(text);
}

/// HWL_DEVICE_REPORT=FILE: a probe report written earlier (the probe role's
/// output, saved by whoever runs many GPU runs in a row), read instead of
/// starting a probe, which spends seconds making a CUDA context of its own.
std::optional<DeviceList> savedReport() {
    const char* path = std::getenv("HWL_DEVICE_REPORT");
    if (!path || !*path)
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::string text(1u << 16, '\0');
    in.read(text.data(), std::streamsize(text.size()));
    text.resize(std::size_t(in.gcount()));
    const std::string where = std::string("HWL_DEVICE_REPORT=") + path;
    if (text.empty())
        return unavailable(true, where + " is empty or cannot be read: write it with " +
                                     "hogwild-lab-engine " + kProbeFlag + " > FILE, or unset it");
    if (!in.eof())
        return unavailable(true, where + " is larger than a device report (64 KiB): unset it");
    DeviceList list = parseReport(text);
    if (list.devices.empty() && !list.unavailable.empty())
        list.unavailable += " (from " + where + ")";
    return list;
}

DeviceList probe() {
    if (auto saved = savedReport())
        return *saved;
    try {
        // The engine executable: Qt-free, the probe maps only the engine and CUDA.
        return runProbe(engineExecutable(), kProbeFlag, kProbeTimeoutMs);
    } catch (const std::exception& e) {
        return unavailable(true, std::string("the device probe could not start: ") + e.what());
    }
}

DeviceList unavailable(bool built, std::string why) {
    DeviceList list;
    list.built = built;
    list.unavailable = std::move(why);
    return list;
}

std::mutex gMutex;
std::optional<DeviceList> gList;
} // namespace

DeviceList probeDevicesWith(const std::string& program, const std::string& argument,
                            int timeoutMs) {
    return runProbe(program, argument, timeoutMs);
}

bool cudaBuilt() {
#ifdef HWL_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::string cudaNotBuiltReason() {
#ifdef HWL_HAVE_CUDA
    return {};
#else
    return std::string("not built: ") + HWL_CUDA_MISSING;
#endif
}

DeviceList listDevices(bool refresh) {
    if (!cudaBuilt())
        return unavailable(false, cudaNotBuiltReason());
    std::lock_guard lock(gMutex);
    if (!gList || refresh)
        gList = probe();
    return *gList;
}

namespace {
/// "  FP32 peak 66.9 TFLOPS (1980 MHz)", or nothing where a figure is missing.
std::string peakText(const GpuDevice& d) {
    if (!(d.fp32PeakFlops() > 0))
        return {};
    char text[80];
    std::snprintf(text, sizeof text, "  FP32 peak %.1f TFLOPS (%d MHz)", d.fp32PeakFlops() / 1e12,
                  d.clockKHz / 1000);
    return text;
}
} // namespace

std::string describeDevices(const DeviceList& list) {
    std::ostringstream out;
    if (list.devices.empty())
        out << "the GPU modes cannot run here: " << list.unavailable << "\n";
    for (const GpuDevice& d : list.devices)
        out << "cuda:" << d.index << "  " << d.name << "  " << (d.memoryBytes >> 20) << " MiB  "
            << "compute capability " << d.major << "." << d.minor << "  " << d.multiprocessors
            << " multiprocessors" << peakText(d)
            << (d.exclusiveProcess()
                    ? "  exclusive-process compute mode: one process at a time may use it (a "
                      "run's device process cannot start while another process holds it)"
                    : "")
            << "\n";
    if (!list.versions.empty())
        out << list.versions << "\n";
    return out.str();
}

bool runDeviceProbeIfRequested(int argc, char** argv, int& exitCode) {
    if (argc < 2 || std::strcmp(argv[1], kProbeFlag) != 0)
        return false;
    exitCode = 0;
#ifdef HWL_HAVE_CUDA
    const cuda::DeviceReport r = cuda::initialise();
    // NCCL is loaded here only to say whether a run on several GPUs could
    // find it (runs load it only then); the probe is a process of its own.
    std::printf("versions\tdriver %s, runtime %s; %s; %s\n",
                r.driverVersion ? versionText(r.driverVersion).c_str() : "none",
                r.runtimeVersion ? versionText(r.runtimeVersion).c_str() : "none",
                cuda::ncclStatus().c_str(), cuda::moduleStatus().c_str());
    if (!r.error.empty())
        std::printf("error\t%s\n", r.error.c_str());
    for (const GpuDevice& d : r.devices)
        std::printf("device\t%d\t%s\t%lld\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", d.index, d.name.c_str(),
                    static_cast<long long>(d.memoryBytes), d.major, d.minor, d.multiprocessors,
                    d.computeMode, d.clockKHz, d.memoryClockKHz, d.memoryBusBits);
#else
    std::printf("error\t%s\n", cudaNotBuiltReason().c_str());
    (void)versionText;
#endif
    std::fflush(stdout);
    return true;
}

} // namespace hwl
