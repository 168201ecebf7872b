// The engine's own copy of the CPU kernel table, compiled for the engine's
// target: -march=native (HWL_NATIVE, the default), or x86-64-v2 in a
// portable build, whose wider modules cpukernels.cpp prefers when the
// processor runs them.
#include "util/cpukernelimpl.h"
#include "util/cpukernels.h"

namespace hwl {

const HwlCpuKernels& builtinCpuKernels() {
#ifdef HWL_CPU_NATIVE
    static const HwlCpuKernels table = cpuimpl::table("native", "-march=native");
#else
    static const HwlCpuKernels table = cpuimpl::table("x86-64-v2", "SSE4.2");
#endif
    return table;
}

} // namespace hwl
