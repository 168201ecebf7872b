#pragma once
// NCCL, loaded at run time (private to core/cuda): the module links no NCCL
// library, only its header's types, and dlopens libnccl.so.2 the first time
// a run uses more than one GPU or something asks for NCCL (ncclStatus,
// ncclOneRankCheck). nccl.cu says where it is searched.
#include <nccl.h>

#include <string>

namespace hwl::cuda::module {

/// The NCCL functions the module calls, resolved in the loaded library.
struct Nccl {
    decltype(&::ncclGetVersion) getVersion = nullptr;
    decltype(&::ncclGetErrorString) getErrorString = nullptr;
    decltype(&::ncclCommInitAll) commInitAll = nullptr;
    decltype(&::ncclAllReduce) allReduce = nullptr;
    decltype(&::ncclGroupStart) groupStart = nullptr;
    decltype(&::ncclGroupEnd) groupEnd = nullptr;
    decltype(&::ncclCommFinalize) commFinalize = nullptr;
    decltype(&::ncclCommDestroy) commDestroy = nullptr;
    decltype(&::ncclCommAbort) commAbort = nullptr;
    decltype(&::ncclCommGetAsyncError) commGetAsyncError = nullptr;
    int version = 0;  ///< as ncclGetVersion encodes it (22809: 2.28.9)
    std::string path; ///< the file loaded
};

/// NCCL, loaded on the first call (thread-safe; never unloaded), or null
/// with why in `why`: every place searched, and HWL_NCCL_LIBRARY to set.
const Nccl* loadNccl(std::string* why = nullptr);
/// The same; throws std::runtime_error with why.
const Nccl& nccl();
/// "NCCL 2.28.9 (/usr/local/cuda/lib64/libnccl.so.2)", or "NCCL not found: ...".
std::string ncclStatus();

} // namespace hwl::cuda::module
