// The single-core step kernel: how close one training step of the engine
// (Model::lossAndGradient + hogwild::applyUpdate, exactly as a worker runs it)
// gets to the float32 matrix-product ceiling that Eigen reaches on this
// machine, measured in the same run with the same flags (-O3 -march=native,
// Eigen single-threaded).
//
//   BM_MatmulCeiling/cube1024     C = A * B, all 1024 x 1024 (row-major)
//   BM_MatmulCeiling/blog_layer1  Z = A * W^T, A 32 x 100, W 256 x 100 (the blog
//                                 MLP's first layer at batch 32, as the engine maps it)
//   BM_Step/<mlp>                 gather + forward + backward + SGD update, batch 32
//   BM_Step/<cnn>                 the same for cnn:mnist at batch 64 (the mnist_hogwild
//                                 example's), for the same network written as a net:
//                                 layer list, and for a list of padded 3x3 convolutions
//   BM_LossAndGradient/<mlp>      gather + forward + backward only
//   BM_Update/<mlp>               hogwild::applyUpdate only (SgdSettings{0.01, 0, 0})
//   BM_Gather/<mlp>               gatherRows of 32 rows only
//   BM_Staleness/<mlp>            one staleness measurement of a shared-mode
//                                 worker (snapshot of the parameters before the
//                                 step + their L2 distance before the update),
//                                 which it takes every stalenessInterval() steps
//
// After the usual Google Benchmark output (all --benchmark_* flags work) it
// prints a plain-text summary: the ceilings, each MLP's step in GFLOP/s
// (Model::flopsPerSample) and samples/s, the step as a share of the 1024^3
// ceiling (each CNN's too), and how the step's time splits between gather, forward+backward
// and update, and what the staleness sampling of shared (Hogwild) modes costs
// per step. With --benchmark_format=json|csv the summary goes to stderr.
#include "backend/cpu/batchgather.h"
#include "backend/cpu/cpubackend.h"
#include "data/datasources.h"
#include "model/model.h"
#include "model/modelspec.h"
#include "optim/hogwild.h"
#include "train/updaterule.h"
#include "util/eigenmaps.h"

#include <Eigen/Core>

#ifdef HWL_HAVE_GOOGLE_BENCHMARK
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using hwl::Matrix;

constexpr std::int64_t kBatch = 32;
constexpr std::int64_t kRows = 8192; // dataset rows the batches walk through

// ---------------------------------------------------------------- ceiling

struct GemmShape {
    std::int64_t m, k, n; // (m x k) * (k x n)
    bool transposedRhs;   // rhs stored as n x k and used transposed (the engine's A * W^T)
};

void BM_MatmulCeiling(benchmark::State& state, GemmShape s) {
    Matrix<float> a = Matrix<float>::Random(s.m, s.k);
    Matrix<float> b =
        s.transposedRhs ? Matrix<float>::Random(s.n, s.k) : Matrix<float>::Random(s.k, s.n);
    Matrix<float> c(s.m, s.n);
    // The same kind of Map views the engine multiplies.
    hwl::ConstMatrixMap<float> am(a.data(), s.m, s.k);
    hwl::ConstMatrixMap<float> bm(b.data(), b.rows(), b.cols());
    hwl::MatrixMap<float> cm(c.data(), s.m, s.n);
    for (auto _ : state) {
        if (s.transposedRhs)
            cm.noalias() = am * bm.transpose();
        else
            cm.noalias() = am * bm;
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * double(s.m) * double(s.k) * double(s.n);
    state.counters["GFLOP/s"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_MatmulCeiling, cube1024, GemmShape{1024, 1024, 1024, false})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MatmulCeiling, blog_layer1, GemmShape{kBatch, 100, 256, true})
    ->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- the step

struct Setup {
    std::string spec;
    std::unique_ptr<hwl::Model> model;
    hwl::Dataset data;
    hwl::DatasetView view;
    std::vector<float> params;
    std::vector<std::int64_t> order;         // a shuffled epoch order, walked batch by batch
    std::unique_ptr<hwl::StepKernel> kernel; ///< the CPU backend's, as a worker has it
    std::int64_t batch = kBatch;
    std::size_t next = 0;

    const std::int64_t* nextBatch() {
        if (next + std::size_t(batch) > order.size())
            next = 0;
        const std::int64_t* rows = order.data() + next;
        next += std::size_t(batch);
        return rows;
    }
};

enum class Which { Blog, Fashion, Cnn, CnnList, Conv3 };

/// The CNNs' batch: the mnist_hogwild example's.
constexpr std::int64_t kCnnBatch = 64;

const hwl::SgdSettings kSgd{0.01f, 0.0f, 0.0f};

// One setup per MLP, built on first use and shared by its benchmarks (each
// benchmark leaves it in a valid state).
Setup& setup(Which which) {
    static std::map<Which, std::unique_ptr<Setup>> setups;
    auto& slot = setups[which];
    if (slot)
        return *slot;
    slot = std::make_unique<Setup>();
    Setup& s = *slot;
    if (which == Which::Blog) {
        s.spec = "mlp:100-256-10"; // the blog's MLP on its random data
        s.data = hwl::makeRandom(kRows, 100, 10, 42);
    } else {
        // Fashion-MNIST shaped: the default experiment's MLP, or a CNN.
        s.spec = which == Which::Fashion ? "mlp:784-128-10"
                 : which == Which::Cnn   ? "cnn:mnist"
                 : which == Which::CnnList
                     ? "net:1x28x28:conv10k5,maxpool2,relu,conv20k5,dropout2d,maxpool2,relu,"
                       "flatten,fc50,relu,dropout,fc10"
                     : "net:1x28x28:conv16k3p1,relu,maxpool2,conv32k3p1,relu,maxpool2,flatten,"
                       "fc10";
        s.data = hwl::makeTeacher(kRows, 784, 10, 64, 42);
        if (which != Which::Fashion)
            s.batch = kCnnBatch;
    }
    s.model = hwl::makeModel(hwl::parseModelSpec(s.spec));
    s.view = s.data.view();
    s.params.resize(std::size_t(s.model->layout().total()));
    s.model->initialize(s.params.data(), 42);
    s.order.resize(std::size_t(kRows));
    std::iota(s.order.begin(), s.order.end(), std::int64_t(0));
    std::mt19937_64 rng(7);
    std::shuffle(s.order.begin(), s.order.end(), rng);
    s.kernel = hwl::cpuBackend().makeKernel(*s.model, s.view, kSgd, 0, 1);
    // One warm-up step: the workspace grows once and then never allocates again.
    s.kernel->lossAndGradient(s.params.data(), s.order.data(), s.batch);
    return s;
}

void setCounters(benchmark::State& state, const Setup& s, bool flops) {
    state.counters["samples/s"] =
        benchmark::Counter(double(s.batch), benchmark::Counter::kIsIterationInvariantRate);
    if (flops)
        state.counters["GFLOP/s"] =
            benchmark::Counter(s.model->flopsPerSample() * double(s.batch) * 1e-9,
                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Step(benchmark::State& state, Which which) {
    Setup& s = setup(which);
    for (auto _ : state) {
        const float loss = s.kernel->lossAndGradient(s.params.data(), s.nextBatch(), s.batch);
        benchmark::DoNotOptimize(loss);
        s.kernel->update(s.params.data(), hwl::UpdateAccess::Shared);
        benchmark::ClobberMemory();
    }
    setCounters(state, s, true);
}

void BM_LossAndGradient(benchmark::State& state, Which which) {
    Setup& s = setup(which);
    for (auto _ : state) {
        const float loss = s.kernel->lossAndGradient(s.params.data(), s.nextBatch(), s.batch);
        benchmark::DoNotOptimize(loss);
        benchmark::ClobberMemory();
    }
    setCounters(state, s, true);
}

void BM_Update(benchmark::State& state, Which which) {
    Setup& s = setup(which);
    // Updates with lr and -lr alternate so the parameters stay where they are.
    const hwl::SgdSettings back{-kSgd.lr, 0.0f, 0.0f};
    std::int64_t i = 0;
    for (auto _ : state) {
        hwl::hogwild::applyUpdate(s.params.data(), s.kernel->gradient(), nullptr,
                                  (i++ & 1) ? back : kSgd);
        benchmark::ClobberMemory();
    }
    if (i & 1)
        hwl::hogwild::applyUpdate(s.params.data(), s.kernel->gradient(), nullptr, back);
    state.counters["GB/s"] = benchmark::Counter(double(s.kernel->gradient().touchedCount()) * 12.0 *
                                                    1e-9, // read p, g; write p
                                                benchmark::Counter::kIsIterationInvariantRate);
    setCounters(state, s, false);
}

void BM_Gather(benchmark::State& state, Which which) {
    Setup& s = setup(which);
    hwl::AlignedVector<float> out;
    for (auto _ : state) {
        hwl::gatherRows(s.view, s.nextBatch(), s.batch, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    setCounters(state, s, false);
}

void BM_Staleness(benchmark::State& state, Which which) {
    Setup& s = setup(which);
    std::vector<float> before(s.params.size());
    for (auto _ : state) {
        hwl::hogwild::snapshot(s.params.data(), std::int64_t(s.params.size()), before.data());
        const double d =
            hwl::hogwild::staleness(s.params.data(), before.data(), s.kernel->gradient());
        benchmark::DoNotOptimize(d);
        benchmark::ClobberMemory();
    }
    setCounters(state, s, false);
}

#define HWL_STEP_BENCH(fn)                                                                         \
    BENCHMARK_CAPTURE(fn, blog_100_256_10, Which::Blog)->Unit(benchmark::kMicrosecond);            \
    BENCHMARK_CAPTURE(fn, mlp_784_128_10, Which::Fashion)->Unit(benchmark::kMicrosecond)

HWL_STEP_BENCH(BM_Step);
HWL_STEP_BENCH(BM_LossAndGradient);
HWL_STEP_BENCH(BM_Update);
HWL_STEP_BENCH(BM_Gather);
HWL_STEP_BENCH(BM_Staleness);

#define HWL_CNN_BENCH(fn)                                                                          \
    BENCHMARK_CAPTURE(fn, cnn_mnist, Which::Cnn)->Unit(benchmark::kMicrosecond);                   \
    BENCHMARK_CAPTURE(fn, cnn_mnist_as_net, Which::CnnList)->Unit(benchmark::kMicrosecond);        \
    BENCHMARK_CAPTURE(fn, net_conv3x3, Which::Conv3)->Unit(benchmark::kMicrosecond)

HWL_CNN_BENCH(BM_Step);

// ---------------------------------------------------------------- summary

// Forwards everything to the reporter the flags ask for and keeps each
// benchmark's counters and time per iteration (the median when repeated).
class Recorder : public benchmark::BenchmarkReporter {
public:
    struct Figures {
        std::map<std::string, double> counters;
        double secondsPerIteration = 0;
    };
    explicit Recorder(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
    bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const auto& run : runs) {
            if (run.error_occurred)
                continue;
            const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            if (run.run_type != Run::RT_Iteration && !median)
                continue;
            auto& f = figures_[run.run_name.str()];
            if (!median && f.secondsPerIteration > 0 && fromMedian_.count(run.run_name.str()))
                continue;
            if (median)
                fromMedian_.insert({run.run_name.str(), true});
            f.counters.clear();
            for (const auto& [name, counter] : run.counters)
                f.counters[name] = counter.value;
            f.secondsPerIteration =
                run.iterations > 0
                    ? run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit)
                    : 0;
        }
        inner_->ReportRuns(runs);
    }
    void Finalize() override { inner_->Finalize(); }

    const Figures* find(const std::string& name) const {
        const auto it = figures_.find(name);
        return it == figures_.end() ? nullptr : &it->second;
    }
    double counter(const std::string& name, const std::string& key) const {
        const Figures* f = find(name);
        if (!f)
            return -1;
        const auto it = f->counters.find(key);
        return it == f->counters.end() ? -1 : it->second;
    }

private:
    benchmark::BenchmarkReporter* inner_;
    std::map<std::string, Figures> figures_;
    std::map<std::string, bool> fromMedian_;
};

std::string flagValue(int argc, char** argv, const char* flag) {
    const std::size_t len = std::strlen(flag);
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], flag, len) == 0 && argv[i][len] == '=')
            return argv[i] + len + 1;
    return {};
}

std::string fmt(const char* format, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string rate(double perSecond) {
    if (perSecond >= 1e6)
        return fmt("%.2fM", perSecond / 1e6);
    if (perSecond >= 1e3)
        return fmt("%.0fk", perSecond / 1e3);
    return fmt("%.0f", perSecond);
}

void printSummary(std::FILE* out, const Recorder& r) {
    std::fprintf(out, "\nsummary (single core, float32, batch %lld, Eigen %d.%d.%d, %d thread):\n",
                 static_cast<long long>(kBatch), EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                 EIGEN_MINOR_VERSION, Eigen::nbThreads());
    const double cube = r.counter("BM_MatmulCeiling/cube1024", "GFLOP/s");
    const double layer1 = r.counter("BM_MatmulCeiling/blog_layer1", "GFLOP/s");
    if (cube > 0)
        std::fprintf(out, "ceiling 1024^3 matmul: %.1f GFLOP/s\n", cube);
    if (layer1 > 0)
        std::fprintf(out, "ceiling blog layer-1 matmul (32x100 * (256x100)^T): %.1f GFLOP/s%s\n",
                     layer1,
                     cube > 0 ? fmt(" = %.0f%% of 1024^3", 100 * layer1 / cube).c_str() : "");
    const struct {
        const char* label;
        const char* suffix;
        Which which;
    } mlps[] = {{"blog MLP 100-256-10", "blog_100_256_10", Which::Blog},
                {"MLP 784-128-10", "mlp_784_128_10", Which::Fashion},
                {"CNN cnn:mnist (batch 64)", "cnn_mnist", Which::Cnn},
                {"the same CNN as a net: list", "cnn_mnist_as_net", Which::CnnList},
                {"net: 3x3 padded convolutions 16-32", "net_conv3x3", Which::Conv3}};
    for (const auto& m : mlps) {
        const std::string step = std::string("BM_Step/") + m.suffix;
        const double gflops = r.counter(step, "GFLOP/s");
        if (gflops < 0)
            continue;
        std::string line = std::string(m.label) + " step: " + fmt("%.1f GFLOP/s", gflops);
        if (cube > 0)
            line += fmt(" = %.0f%% of the 1024^3 ceiling", 100 * gflops / cube) +
                    fmt(" (%.0f GFLOP/s)", cube);
        line += ", " + rate(r.counter(step, "samples/s")) + " samples/s";
        std::fprintf(out, "%s\n", line.c_str());
        // Where the step's time goes.
        const Recorder::Figures* all = r.find(step);
        const Recorder::Figures* lg = r.find(std::string("BM_LossAndGradient/") + m.suffix);
        const Recorder::Figures* up = r.find(std::string("BM_Update/") + m.suffix);
        const Recorder::Figures* ga = r.find(std::string("BM_Gather/") + m.suffix);
        if (all && lg && up && ga) {
            const double us = 1e6;
            const double t = all->secondsPerIteration * us, tl = lg->secondsPerIteration * us,
                         tu = up->secondsPerIteration * us, tg = ga->secondsPerIteration * us;
            std::fprintf(out,
                         "  split (CPU us per step of 32, each part timed alone): step %.2f; "
                         "gather %.2f + forward/backward %.2f + update %.2f = %.2f\n",
                         t, tg, tl - tg, tu, tl + tu);
        }
        // The staleness sampling of shared modes, spread over its interval.
        const Recorder::Figures* st = r.find(std::string("BM_Staleness/") + m.suffix);
        if (all && st) {
            const auto every = hwl::stalenessInterval(setup(m.which).model->layout().total());
            const double us = st->secondsPerIteration * 1e6;
            std::fprintf(out,
                         "  staleness sampling (shared modes): %.2f us per measurement, every "
                         "%llu steps = %.2f%% of a step\n",
                         us, static_cast<unsigned long long>(every),
                         100.0 * us / double(every) / (all->secondsPerIteration * 1e6));
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    Eigen::setNbThreads(1);
    const std::string format = flagValue(argc, argv, "--benchmark_format");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    std::unique_ptr<benchmark::BenchmarkReporter> display;
    if (format == "json")
        display = std::make_unique<benchmark::JSONReporter>();
    else if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        display = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    } else
        display = std::make_unique<benchmark::ConsoleReporter>(
            isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Defaults
                                  : benchmark::ConsoleReporter::OO_Tabular);
    Recorder recorder(display.get());
    benchmark::RunSpecifiedBenchmarks(&recorder);
    benchmark::Shutdown();
    std::fflush(stdout);
    printSummary(format == "json" || format == "csv" ? stderr : stdout, recorder);
    return 0;
}

#else
#include <cstdio>
int main() {
    std::puts("stepkernel: built without Google Benchmark (install libbenchmark-dev)");
    return 0;
}
#endif
