// GPU benchmarks (on a CUDA device only; elsewhere it prints SKIPPED and
// why). Prints:
//  - data-parallel replicas on one GPU, the blog's MLP (mlp:100-256-10, as
//    bench/pytorch_recipes.py and bench/gpu_torch.py) at batch 32 per replica,
//    R = 1, 8, 64, 256: samples/s, and the share of the FP32 ceiling (the device's own FP32
//    peak, GpuDevice::fp32PeakFlops, over the model's FLOPs per sample);
//  - one replica's step time with the CUDA graph (R = 1);
//  - the device reduce of R replicas' gradients, 100M parameters: GB/s;
//  - gpu-hogwild on the sparse embedding bag vs CPU Hogwild (threads) on the
//    same data and epochs, racy and atomic: samples/s and lost updates, both
//    per parameter value written (the CPU counts per block of 32 values:
//    converted, see lostUpdateUnits()).
// Run: build/bench/gpu (tests/gpu/device-check runs it and keeps its output).
// It links the engine only (the CUDA module is loaded at run time).
#include "backend/cuda/deviceshapes.h"
#include "cuda/cuda.h"
#include "data/datasources.h"
#include "launch/devices.h"
#include "model/mlp.h"
#include "optim/hogwild.h"
#include "run/run.h"
#include "run/workerrole.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

using namespace hwl;

namespace {
/// Device 0's FP32 peak without tensor cores and its memory's bandwidth, from
/// its own figures (launch/devices.h), set by main().
double gFp32Flops = 0, gBandwidth = 0;

/// "12.3%" of `ceiling`, or "-" where the device did not say its figures.
std::string shareOf(double value, double ceiling) {
    char text[32];
    if (ceiling > 0)
        std::snprintf(text, sizeof text, "%.1f%%", 100 * value / ceiling);
    else
        std::snprintf(text, sizeof text, "-");
    return text;
}

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void replicaThroughput() {
    const auto model = makeModel(parseModelSpec("mlp:100-256-10"));
    const Dataset data = makeRandom(65536, 100, 10, 1);
    std::vector<float> params(std::size_t(model->layout().total()));
    model->initialize(params.data(), 1);
    const double flops = model->flopsPerSample();
    std::printf("model mlp:100-256-10: %.0f FLOP per sample (training), FP32 ceiling %.0fM "
                "samples/s\n",
                flops, gFp32Flops / flops / 1e6);
    for (int R : {1, 8, 64, 256}) {
        cuda::ReplicaSettings s;
        s.mlp = mlpShape(*model);
        s.replicasPerGpu = R;
        s.batch = 32;
        s.sgd = {0.01f, 0.9f, 0.0f};
        auto t = cuda::ReplicaTrainer::create(s, hostData(data.view()));
        t->setParameters(params.data());
        std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(R));
        for (int i = 0; i < 32 * 64 * R; ++i)
            rows[std::size_t(i % R)].push_back(i % 65536);
        t->setEpochRows(rows);
        t->enqueueSteps(0, 4, false); // capture the graphs
        t->finishSteps();
        const int steps = 60;
        const auto start = std::chrono::steady_clock::now();
        t->enqueueSteps(4, steps, false);
        t->finishSteps();
        const double dt = seconds(start);
        const double rate = double(R) * 32 * steps / dt;
        std::printf("data-parallel R=%-3d batch 32: %8.2fM samples/s  %s of the FP32 ceiling  "
                    "step %.1f us\n",
                    R, rate / 1e6, shareOf(rate * flops, gFp32Flops).c_str(), dt / steps * 1e6);
    }
}

void reduceBandwidth() {
    const std::int64_t P = 100'000'000;
    for (int R : {2, 8}) {
        const double s = cuda::timeReplicaReduce(P, R, 10);
        const double bytes = double(P) * 4 * (R + 1);
        std::printf("device reduce of %d replicas x 100M parameters: %.3f ms, %.0f GB/s (%s of "
                    "the memory's %.2f TB/s)\n",
                    R, s * 1e3, bytes / s / 1e9, shareOf(bytes / s, gBandwidth).c_str(),
                    gBandwidth / 1e12);
    }
}

/// The unit of the lost-update figures below, said once.
void lostUpdateUnits() {
    std::printf(
        "lost updates, per parameter value written: gpu-hogwild counts each value a block stores "
        "that replaced another block's write. CPU Hogwild (--lost-updates) counts per block of "
        "%lld values (optim/hogwild.h): a block write that overlapped another worker's write of "
        "that block. This model's rows are %lld values wide, so a block is one embedding or "
        "fc.weight row (fc.bias: one block of 8): CPU value writes ~ %lld x block writes, and "
        "a lost block counts as %lld lost values, an UPPER bound (the overlap may have lost "
        "fewer). The CPU's block counts are given too.\n",
        (long long)hogwild::kVersionBlock, (long long)hogwild::kVersionBlock,
        (long long)hogwild::kVersionBlock, (long long)hogwild::kVersionBlock);
}

void hogwildVersusCpu() {
    ExperimentConfig c;
    c.dataset = "sparse-bow:200000x5000:8:20";
    c.model = "embedding-bag:5000-32-8"; // rows of 32: one lost-update block each
    c.epochs = 2;
    c.batch = 32;
    c.momentum = 0;
    c.lr = 0.1;
    c.testFraction = 0.05;
    c.startMethod = StartMethod::Spawn;
    struct Case {
        const char* label;
        const char* mode;
        UpdateKind update;
        int workers;
    };
    lostUpdateUnits();
    for (const Case& k :
         {Case{"CPU Hogwild, 2 threads", "threads", UpdateKind::Racy, 2},
          Case{"gpu-hogwild racy, 1024 blocks", "gpu-hogwild", UpdateKind::Racy, 8},
          Case{"gpu-hogwild atomic, 1024 blocks", "gpu-hogwild", UpdateKind::Atomic, 8}}) {
        ExperimentConfig e = c;
        e.mode = k.mode;
        e.workers = k.workers;
        const bool cpu = e.mode == std::string("threads");
        if (cpu)
            e.lostUpdates = true; // the CPU counts only when asked (it costs a little)
        else
            e.update = k.update;
        auto run = std::make_unique<Run>(e);
        run->start();
        while (!run->wait(std::chrono::milliseconds(20))) {
        }
        const RunSummary s = run->summary();
        std::uint64_t writes = 0, lost = 0;
        for (const auto& w : run->telemetry().workers()) {
            writes += w.updateWrites;
            lost += w.lostUpdates;
        }
        const auto block = std::uint64_t(hogwild::kVersionBlock);
        const double valueWrites = double(cpu ? writes * block : writes);
        const double valuesLost = double(cpu ? lost * block : lost);
        std::printf("%-32s %10.0f samples/s  test accuracy %.2f%%  lost values %s%.0f of %s%.0f "
                    "written (%s%.4f%%)",
                    k.label, s.samplesPerSecond, 100 * s.testAccuracy, cpu ? "<= " : "", valuesLost,
                    cpu ? "~" : "", valueWrites, cpu ? "at most ~" : "",
                    valueWrites > 0 ? 100.0 * valuesLost / valueWrites : 0.0);
        if (cpu)
            std::printf("  [counted per %llu-value block: %llu of %llu block writes]",
                        (unsigned long long)block, (unsigned long long)lost,
                        (unsigned long long)writes);
        std::printf("\n");
    }
}
} // namespace

int main(int argc, char** argv) {
    if (int code = 0; runWorkerRoleIfRequested(argc, argv, code))
        return code;
    try {
        const DeviceList list = listDevices();
        if (list.devices.empty()) {
            std::printf("SKIPPED: the GPU benchmarks need a CUDA device: %s\n",
                        list.unavailable.empty() ? "none was found" : list.unavailable.c_str());
            return 0;
        }
        std::fputs(describeDevices(list).c_str(), stdout);
        gFp32Flops = list.devices[0].fp32PeakFlops();
        gBandwidth = list.devices[0].memoryBandwidth();
        // The runs first: their device processes need the GPU to themselves
        // where it is in exclusive-process mode, so this process makes its
        // own CUDA context (the replicas, the reduce) only after them.
        hogwildVersusCpu();
        replicaThroughput();
        reduceBandwidth();
    } catch (const std::exception& e) {
        std::printf("FAILED: %s\n", e.what());
        return 1;
    }
    return 0;
}
