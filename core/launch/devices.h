#pragma once
// The CUDA devices this machine has, as a child process sees them: the
// process that owns the window, and any parent that forks workers, never
// initialises CUDA (a forked child could not use it), so the devices are
// discovered by a spawned probe (the engine executable, in the internal
// probe role) that reports each device's name, memory and compute capability.
// Part of the engine's public API (the window lists them; --list-devices
// prints them). Thread-safe.
#include "cuda/gpudevice.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct DeviceList {
    bool built = false;      ///< whether this build has the CUDA backend
    std::string unavailable; ///< why no GPU mode can run here; empty when one can
    std::vector<GpuDevice> devices;
    std::string versions; ///< "driver 13.0, runtime 13.0; NCCL 2.28.9 (path); CUDA backend: path"
                          ///< (what the probe saw)
};

/// Whether this build has the CUDA backend, and if not why ("not built: no
/// CUDA compiler was found").
bool cudaBuilt();
std::string cudaNotBuiltReason();
/// The devices, probed once per process (again with refresh): in builds
/// without CUDA, none and why; a probe that fails or hangs (30 s) says so.
/// With HWL_DEVICE_REPORT=FILE, the probe's report saved in FILE earlier
/// (`hogwild-lab-engine --hwl-device-probe > FILE`) instead of a probe.
DeviceList listDevices(bool refresh = false);
/// --list-devices' text: one line per device, or why there is none.
std::string describeDevices(const DeviceList& list);
/// Declares that this process must never initialise CUDA (the window's, whose
/// later forks must stay safe): --cuda-before-fork is then checked as if it
/// had (fork refused) without touching CUDA, and --force-unsafe-fork is
/// refused. Call once, early.
void neverInitialiseCudaHere();
/// For tests: runs `program argument` as the probe is run (its standard
/// output read as the probe's report, given up after `timeoutMs`, then killed).
DeviceList probeDevicesWith(const std::string& program, const std::string& argument, int timeoutMs);
/// The probe role: when argv[1] is its flag, prints what CUDA reports and
/// returns true (runWorkerRoleIfRequested calls it).
bool runDeviceProbeIfRequested(int argc, char** argv, int& exitCode);

} // namespace hwl
