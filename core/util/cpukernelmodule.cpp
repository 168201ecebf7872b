// One instruction-set module of the CPU kernels (libhwl_cpu_<level>.so): the
// table of cpukernelapi.h compiled under this module's -march, its only
// export (cpukernels.map). util/CMakeLists.txt builds one per level.
#include "util/cpukernelimpl.h"

#ifndef HWL_CPU_LEVEL
#error "HWL_CPU_LEVEL (x86-64-v3, x86-64-v4) names the module's instruction set"
#endif

extern "C" __attribute__((visibility("default"))) const HwlCpuKernels* hwl_cpu_kernels() {
    static const HwlCpuKernels table = hwl::cpuimpl::table(HWL_CPU_LEVEL, HWL_CPU_INSTRUCTIONS);
    return &table;
}
