// The one place a process initialises CUDA, and what a forked child of such
// a process meets (the CUDA-before-fork pitfall, on purpose). Whether this
// process initialised CUDA is the engine's to know (loader.cpp:
// initialisedHere()); NCCL is loaded only when asked for (nccl.cu).
#include "cuda/check.h"
#include "cuda/module.h"

#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace hwl::cuda::module {

DeviceReport initialise() {
    DeviceReport report; // ncclVersion stays 0: NCCL loads only when needed (ncclStatus)
    cudaDriverGetVersion(&report.driverVersion);
    cudaRuntimeGetVersion(&report.runtimeVersion);
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        report.error = "no CUDA device: cudaGetDeviceCount returned " + cudaText(e);
        return report;
    }
    if (count == 0) {
        report.error = "no CUDA device: cudaGetDeviceCount found none";
        return report;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp p{};
        if (const cudaError_t e = cudaGetDeviceProperties(&p, i); e != cudaSuccess) {
            report.error =
                "device " + std::to_string(i) + ": cudaGetDeviceProperties returned " + cudaText(e);
            continue;
        }
        // CUDA 13's cudaDeviceProp lacks these: the attributes.
        int mode = 0, clock = 0, memoryClock = 0, bus = 0;
        cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, i);
        cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, i);
        cudaDeviceGetAttribute(&memoryClock, cudaDevAttrMemoryClockRate, i);
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, i);
        report.devices.push_back({i, p.name, std::int64_t(p.totalGlobalMem), p.major, p.minor,
                                  p.multiProcessorCount, clock, memoryClock, bus, mode});
    }
    // A context now, as frameworks create one at their first CUDA call: the
    // state a forked child inherits and cannot use. It fails on a GPU in
    // exclusive-process compute mode that another process holds.
    if (report.devices.empty())
        return report;
    if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
        const bool exclusive = report.devices[0].computeMode == cudaComputeModeExclusiveProcess;
        report.error = "no CUDA device: creating a context on device 0 returned " + cudaText(e) +
                       (exclusive ? " (the GPU is in exclusive-process compute mode and another "
                                    "process holds it: end that process, or set the default "
                                    "mode with nvidia-smi -c DEFAULT)"
                                  : "");
        report.devices.clear();
    }
    return report;
}

std::string tryCudaInForkedChild(int timeoutMs) {
    // The call may hang (some drivers wait on a lock the parent held at
    // fork): it runs on a thread this process abandons if it does not answer.
    auto result = std::make_shared<std::promise<std::string>>();
    std::future<std::string> answer = result->get_future();
    std::thread([result] {
        const cudaError_t e = cudaFree(nullptr);
        result->set_value(e == cudaSuccess ? std::string("cudaFree(0) succeeded")
                                           : "cudaFree(0) returned " + cudaText(e));
    }).detach();
    if (answer.wait_for(std::chrono::milliseconds(timeoutMs)) != std::future_status::ready)
        return "cudaFree(0) gave no answer within " + std::to_string(timeoutMs) +
               " ms: the call hangs";
    return answer.get();
}

std::string ncclOneRankCheck() {
    ncclComm_t comm = nullptr;
    float* buffer = nullptr;
    std::string why;
    try {
        const Nccl& lib = nccl();
        check(cudaSetDevice(0), "cudaSetDevice");
        int device = 0;
        check(lib.commInitAll(&comm, 1, &device), "ncclCommInitAll");
        const float host[4] = {1, 2, 3, 4};
        float back[4] = {};
        check(cudaMalloc(&buffer, sizeof host), "cudaMalloc");
        check(cudaMemcpy(buffer, host, sizeof host, cudaMemcpyHostToDevice), "cudaMemcpy");
        check(lib.allReduce(buffer, buffer, 4, ncclFloat, ncclSum, comm, nullptr), "ncclAllReduce");
        check(cudaMemcpy(back, buffer, sizeof back, cudaMemcpyDeviceToHost), "cudaMemcpy");
        for (int i = 0; i < 4 && why.empty(); ++i)
            if (back[i] != host[i])
                why = "a one-rank sum changed element " + std::to_string(i);
    } catch (const std::exception& e) {
        why = e.what();
    }
    if (buffer)
        cudaFree(buffer);
    if (comm)
        nccl().commDestroy(comm);
    return why;
}

} // namespace hwl::cuda::module
