#pragma once
// Which CPU kernels run (cpukernelapi.h): chosen once per process, the first
// time a kernel runs or --version asks. A native build (HWL_NATIVE, the
// default) runs its own copy, compiled for this machine. A portable build
// runs the widest instruction-set module the processor supports (x86-64-v4:
// AVX-512; x86-64-v3: AVX2 and FMA), found beside the engine (util/fileio.h,
// moduleCandidates), and its own x86-64-v2 copy when none is. HWL_CPU_KERNELS
// (builtin, x86-64-v3, x86-64-v4) forces a choice and fails when it cannot
// be had. docs/install.md, "The portable build".
#include "util/cpukernelapi.h"

#include <atomic>
#include <string>
#include <vector>

namespace hwl {

namespace detail {
extern std::atomic<const HwlCpuKernels*> gCpuKernels; ///< set once chosen
const HwlCpuKernels& chooseCpuKernels();
} // namespace detail

/// The kernels this process runs: chosen on the first call (later calls
/// cost one load). Throws InputError (util/errors.h) each call when
/// HWL_CPU_KERNELS asks for kernels this processor or this install lacks
/// (the message says which and how to fix it).
inline const HwlCpuKernels& cpuKernels() {
    if (const HwlCpuKernels* chosen = detail::gCpuKernels.load(std::memory_order_acquire))
        return *chosen;
    return detail::chooseCpuKernels();
}

/// One line for --version: "CPU kernels: x86-64-v4 (AVX-512), from
/// /usr/lib/.../libhwl_cpu_x86-64-v4.so; this processor runs up to
/// x86-64-v4", with a note when a module the processor could use is missing.
std::string cpuKernelsDescription();

/// The highest x86-64 micro-architecture level this processor and its
/// operating system run (1 to 4), lowered to HWL_CPU_MAX_LEVEL when that is
/// set (tests pretend to be an older processor with it).
int cpuLevel();

/// The engine's own table (cpukernelbuiltin.cpp).
const HwlCpuKernels& builtinCpuKernels();

/// Loads the module of `level` ("x86-64-v3", "x86-64-v4") without choosing
/// it: null with the reason in `why` when it is not there, is of another
/// build, or this processor cannot run it. For tests and benchmarks.
const HwlCpuKernels* loadCpuKernelModule(const std::string& level, std::string* why);

/// The module levels a portable build makes (none in a native build's
/// engine choice, though tests load them).
std::vector<std::string> cpuKernelModuleLevels();

} // namespace hwl
