// The one place a process initialises CUDA, and what a forked child of such
// a process meets (the CUDA-before-fork pitfall, on purpose).
#include "cuda/check.h"
#include "cuda/cuda.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace hwl::cuda {

namespace {
std::atomic<bool> gInitialised{false};
}

bool initialisedHere() {
    return gInitialised.load();
}

DeviceReport initialise() {
    gInitialised.store(true);
    DeviceReport report;
    cudaDriverGetVersion(&report.driverVersion);
    cudaRuntimeGetVersion(&report.runtimeVersion);
    ncclGetVersion(&report.ncclVersion);
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
        report.devices.push_back(
            {i, p.name, std::int64_t(p.totalGlobalMem), p.major, p.minor, p.multiProcessorCount});
    }
    // A context now, as frameworks create one at their first CUDA call: the
    // state a forked child inherits and cannot use.
    if (!report.devices.empty())
        cudaFree(nullptr);
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
    try {
        check(cudaSetDevice(0), "cudaSetDevice");
        ncclComm_t comm = nullptr;
        int device = 0;
        check(ncclCommInitAll(&comm, 1, &device), "ncclCommInitAll");
        float* buffer = nullptr;
        const float host[4] = {1, 2, 3, 4};
        float back[4] = {};
        check(cudaMalloc(&buffer, sizeof host), "cudaMalloc");
        check(cudaMemcpy(buffer, host, sizeof host, cudaMemcpyHostToDevice), "cudaMemcpy");
        check(ncclAllReduce(buffer, buffer, 4, ncclFloat, ncclSum, comm, nullptr), "ncclAllReduce");
        check(cudaMemcpy(back, buffer, sizeof back, cudaMemcpyDeviceToHost), "cudaMemcpy");
        cudaFree(buffer);
        ncclCommDestroy(comm);
        for (int i = 0; i < 4; ++i)
            if (back[i] != host[i])
                return "a one-rank sum changed element " + std::to_string(i);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace hwl::cuda
