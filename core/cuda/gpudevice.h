#pragma once
// One GPU as the engine describes it, the one struct for it: the CUDA module
// fills it (cuda::initialise, cuda/cuda.h), the device probe prints it, and
// --list-devices and the window show it (launch/devices.h). Plain C++, no
// CUDA header: the module and the window both include it.
#include <cstdint>
#include <string>

namespace hwl {

struct GpuDevice {
    int index = 0;
    std::string name;
    std::int64_t memoryBytes = 0;
    int major = 0, minor = 0; ///< compute capability
    int multiprocessors = 0;
    /// cudaComputeMode: 0 default, 2 prohibited, 3 exclusive-process (one
    /// process at a time holds a context: a test process and the run's
    /// device process cannot both use the GPU)
    int computeMode = 0;
    /// Whether one process at a time may hold a context on it.
    bool exclusiveProcess() const { return computeMode == 3; }
};

} // namespace hwl
