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
    int clockKHz = 0; ///< the SMs' peak clock (cudaDevAttrClockRate), 0 when not known
    int memoryClockKHz = 0, memoryBusBits = 0; ///< its memory's peak clock and bus width
    /// cudaComputeMode: 0 default, 2 prohibited, 3 exclusive-process (one
    /// process at a time holds a context: a test process and the run's
    /// device process cannot both use the GPU)
    int computeMode = 0;
    /// Whether one process at a time may hold a context on it.
    bool exclusiveProcess() const { return computeMode == 3; }
    /// FP32 lanes a multiprocessor has, by compute capability (NVIDIA's
    /// tables: 64 on Volta, Turing and A100, 128 from Ampere's consumer parts
    /// on, Hopper and Blackwell included); 0 for one this table does not know.
    int fp32LanesPerMultiprocessor() const {
        if (major == 7 || (major == 8 && minor == 0))
            return 64;
        return major >= 8 ? 128 : 0;
    }
    /// The FP32 peak without tensor cores, from this device's own figures:
    /// multiprocessors x lanes x 2 (a fused multiply-add) x clock; 0 when a
    /// figure is missing. An H100 SXM (132 SMs at 1.98 GHz) gives 66.9e12.
    double fp32PeakFlops() const {
        return double(multiprocessors) * fp32LanesPerMultiprocessor() * 2.0 * clockKHz * 1e3;
    }
    /// The memory's peak bandwidth in bytes/s: two transfers a clock over the
    /// bus (an H100 SXM's HBM3, 2619 MHz x 5120 bits, gives 3.35e12); 0 when
    /// not known.
    double memoryBandwidth() const { return 2.0 * memoryClockKHz * 1e3 * memoryBusBits / 8; }
};

} // namespace hwl
