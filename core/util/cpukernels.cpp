#include "util/cpukernels.h"

#include "util/errors.h"
#include "util/fileio.h"

#include <algorithm>
#include <cpuid.h>
#include <cstdlib>
#include <iterator>

#include <dlfcn.h>
#include <unistd.h>

namespace hwl {

namespace {

struct Level {
    const char* name;
    int number;
};
constexpr Level kModuleLevels[] = {{"x86-64-v4", 4}, {"x86-64-v3", 3}}; // widest first

/// XCR0: which register states the operating system saves on a switch.
std::uint64_t xcr0() {
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (std::uint64_t(hi) << 32) | lo;
}

/// The x86-64 psABI's micro-architecture levels, from CPUID and XCR0.
int detectLevel() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 1;
    const bool v2 = (c & bit_SSE3) && (c & bit_SSSE3) && (c & bit_SSE4_1) && (c & bit_SSE4_2) &&
                    (c & bit_POPCNT) && (c & bit_CMPXCHG16B);
    if (!v2)
        return 1;
    const bool osxsave = c & bit_OSXSAVE;
    const bool avx = (c & bit_AVX) && (c & bit_FMA) && (c & bit_F16C) && (c & bit_MOVBE);
    if (!osxsave || !avx || (xcr0() & 0x6) != 0x6) // XMM and YMM state
        return 2;
    unsigned ea = 0, eb = 0, ec = 0, ed = 0;
    if (!__get_cpuid_count(7, 0, &ea, &eb, &ec, &ed))
        return 2;
    unsigned xa = 0, xb = 0, xc = 0, xd = 0;
    __get_cpuid(0x80000001, &xa, &xb, &xc, &xd);
    const bool v3 = (eb & bit_AVX2) && (eb & bit_BMI) && (eb & bit_BMI2) && (xc & bit_LZCNT);
    if (!v3)
        return 2;
    const bool v4 = (eb & bit_AVX512F) && (eb & bit_AVX512BW) && (eb & bit_AVX512CD) &&
                    (eb & bit_AVX512DQ) && (eb & bit_AVX512VL) &&
                    (xcr0() & 0xe0) == 0xe0; // opmask and both halves of ZMM state
    return v4 ? 4 : 3;
}

int levelNumber(const std::string& name) {
    for (const Level& l : kModuleLevels)
        if (name == l.name)
            return l.number;
    return 0;
}

/// Where the module of `level` is, or empty with the places tried in `why`.
std::string findModule(const std::string& level, std::string* why) {
#ifdef HWL_CPU_MODULE_BUILD_DIR
    const std::string buildDir = HWL_CPU_MODULE_BUILD_DIR;
#else
    const std::string buildDir;
#endif
    const std::string file = "libhwl_cpu_" + level + ".so";
    std::string tried;
    for (const std::string& path : moduleCandidates(file, buildDir)) {
        if (access(path.c_str(), F_OK) == 0)
            return path;
        tried += (tried.empty() ? "" : ", ") + path;
    }
    if (why)
        *why = file + " was not found (looked in " + tried + ")";
    return {};
}

struct Choice {
    const HwlCpuKernels* table = nullptr;
    std::string from;  ///< the module file, or "built in"
    std::string note;  ///< a module the processor could use but that is missing
    std::string error; ///< HWL_CPU_KERNELS asked for what cannot be had
};

Choice choose() {
    Choice out;
    const char* forced = std::getenv("HWL_CPU_KERNELS");
    const std::string want = forced ? forced : "";
    if (want == "builtin") {
        out.table = &builtinCpuKernels();
        out.from = "built in, as HWL_CPU_KERNELS asks";
        return out;
    }
    if (!want.empty()) {
        std::string why;
        if (levelNumber(want) == 0) {
            why = "unknown kernels (the choices are builtin";
            for (auto l = std::rbegin(kModuleLevels); l != std::rend(kModuleLevels); ++l)
                why += std::string(", ") + l->name; // narrowest first
            why += ")";
        } else if (const HwlCpuKernels* t = loadCpuKernelModule(want, &why)) {
            return {t, findModule(want, nullptr) + ", as HWL_CPU_KERNELS asks", {}, {}};
        }
        out.error = "HWL_CPU_KERNELS=" + want + ": " + why +
                    "; unset HWL_CPU_KERNELS to let the engine choose";
        return out;
    }
    out.table = &builtinCpuKernels();
    out.from = "built in";
#ifndef HWL_CPU_NATIVE // a native build's own copy is this machine's best
    for (const Level& l : kModuleLevels) {
        if (l.number > cpuLevel())
            continue;
        std::string why;
        if (const HwlCpuKernels* t = loadCpuKernelModule(l.name, &why)) {
            out.table = t;
            out.from = findModule(l.name, nullptr);
            return out;
        }
        if (out.note.empty())
            out.note = "; " + why + ", so the " + l.name +
                       " kernels this processor could run "
                       "are not used";
    }
#endif
    return out;
}

const Choice& chosen() {
    static const Choice once = choose();
    return once;
}

} // namespace

int cpuLevel() {
    static const int detected = detectLevel();
    int level = detected;
    if (const char* cap = std::getenv("HWL_CPU_MAX_LEVEL"); cap && *cap)
        level = std::min(level, std::max(1, std::atoi(cap)));
    return level;
}

const HwlCpuKernels* loadCpuKernelModule(const std::string& level, std::string* why) {
    const int number = levelNumber(level);
    if (number == 0) {
        if (why)
            *why = "no module of kernels for " + level;
        return nullptr;
    }
    if (number > cpuLevel()) {
        if (why)
            *why = "this processor runs up to x86-64-v" + std::to_string(cpuLevel()) + ", not " +
                   level;
        return nullptr;
    }
    const std::string file = findModule(level, why);
    if (file.empty())
        return nullptr;
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL); // never closed
    const char* error = handle ? nullptr : dlerror();
    auto entry = handle
                     ? reinterpret_cast<HwlCpuKernelsEntry>(dlsym(handle, HWL_CPU_KERNELS_SYMBOL))
                     : nullptr;
    const HwlCpuKernels* table = entry ? entry() : nullptr;
    if (!table || table->abi != HWL_CPU_KERNELS_ABI) {
        if (why)
            *why = file + (error ? std::string(" could not be loaded: ") + error
                                 : std::string(" is not a kernel module of this build"));
        return nullptr;
    }
    return table;
}

std::vector<std::string> cpuKernelModuleLevels() {
    std::vector<std::string> out;
    for (const Level& l : kModuleLevels)
        out.emplace_back(l.name);
    return out;
}

std::atomic<const HwlCpuKernels*> detail::gCpuKernels{nullptr};

const HwlCpuKernels& detail::chooseCpuKernels() {
    const Choice& c = chosen();
    if (!c.table)
        throw InputError(c.error);
    gCpuKernels.store(c.table, std::memory_order_release);
    return *c.table;
}

std::string cpuKernelsDescription() {
    const Choice& c = chosen();
    if (!c.table)
        return "CPU kernels: none (" + c.error + ")";
    return std::string("CPU kernels: ") + c.table->level + " (" + c.table->instructions + "), " +
           c.from + "; this processor runs up to x86-64-v" + std::to_string(cpuLevel()) + c.note;
}

} // namespace hwl
