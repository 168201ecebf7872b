#include "config/modes.h"

namespace hwl::modes {

const char* const serial = "serial";
const char* const threads = "threads";
const char* const threadsLocked = "threads-locked";
const char* const processes = "processes";
const char* const dataParallel = "data-parallel";
const char* const gpuHogwild = "gpu-hogwild";

} // namespace hwl::modes
