// GPU Hogwild (cuda.h, HogwildTrainer): every thread block trains on its
// own contiguous share of the epoch, a batch at a time, and updates the ONE
// parameter copy in global memory with no lock. The racy update is the
// intended data race of this backend, in one function (racyUpdate): a
// relaxed load, the SGD arithmetic, and a relaxed exchange as the store, whose
// old value says whether another block wrote in between (that write is lost,
// and counted). Each block's counters live in its own slot of mapped pinned
// memory, written by the block's thread 0 alone (plain stores: no atomics on
// host memory; the totals live in shared memory, so it never reads them
// back during a launch) and summed per group by the host while the kernel
// runs; a control word there pauses or stops the blocks.
#include "cuda/check.h"
#include "cuda/devicemath.h"
#include "cuda/module.h"

#include <cuda/atomic>

#include <algorithm>
#include <cstring>

namespace hwl::cuda::module {

namespace {

constexpr int kBlockThreads = 128;

/// One block's totals so far (all its launches), and whether its last launch
/// reached the end of its share of the epoch.
struct BlockCounters {
    unsigned long long steps, samples, writes, lost;
    double lossSum;
    unsigned long long done;
};

struct KernelArgs {
    float* params;
    const float* dense;
    const std::int64_t* offsets;
    const std::int32_t* indices;
    const float* values;
    const std::int32_t* labels;
    std::int64_t dim;
    const std::int32_t* order;
    std::int64_t orderLength, chunk;
    std::int64_t* position; ///< per block: its next position in `order`
    float* scratch;
    std::int64_t scratchPerBlock;
    int batch, groups;
    bool atomic;
    float lr, weightDecay;
    // The model: an MLP (layers) or the embedding bag.
    bool bag;
    int layerCount, activation;
    const MlpShape::Layer* layers;
    BagShape shape;
    volatile BlockCounters* counters; ///< mapped: one slot per block
    volatile int* control;            ///< mapped: non-zero asks the blocks to return
};

/// One update of parameter *p by gradient g (plain SGD with weight decay).
/// THE intended race of the CUDA backend: racy updates lose writes.
__device__ void racyUpdate(float* p, float g, const KernelArgs& a, unsigned long long& lost) {
    ::cuda::atomic_ref<float, ::cuda::thread_scope_device> ref(*p);
    const float v = ref.load(::cuda::memory_order_relaxed);
    const float change = devicemath::sgdChange(v, g, a.lr, a.weightDecay);
    if (a.atomic) {
        atomicAdd(p, change);
        return;
    }
    const float seen = ref.exchange(v + change, ::cuda::memory_order_relaxed);
    lost += devicemath::overwroteAnother(v, seen) ? 1 : 0;
}

__device__ float loadShared(const float* p) {
    return ::cuda::atomic_ref<const float, ::cuda::thread_scope_device>(*p).load(
        ::cuda::memory_order_relaxed);
}

/// Forward, loss and racy updates of the MLP for the block's batch `rows`.
__device__ float mlpStep(const KernelArgs& a, const std::int32_t* rows, int n, float* scratch,
                         unsigned long long& writes, unsigned long long& lost) {
    const int t = threadIdx.x;
    // scratch: per layer pre and post (n x out), then two delta buffers.
    float* acts = scratch;
    std::int64_t widest = 0, used = 0;
    for (int l = 0; l < a.layerCount; ++l) {
        widest = max(widest, a.layers[l].out);
        if (l > 0)
            widest = max(widest, a.layers[l].in);
        used += 2 * n * a.layers[l].out;
    }
    float* delta = scratch + used;
    float* deltaPrev = delta + n * widest;
    auto pre = [&](int l) {
        std::int64_t at = 0;
        for (int k = 0; k < l; ++k)
            at += 2 * n * a.layers[k].out;
        return acts + at;
    };
    auto input = [&](int l, int i, std::int64_t d) {
        return l == 0 ? a.dense[std::int64_t(rows[i]) * a.dim + d]
                      : pre(l - 1)[n * a.layers[l - 1].out + i * a.layers[l - 1].out + d];
    };
    for (int l = 0; l < a.layerCount; ++l) {
        const auto L = a.layers[l];
        float* z = pre(l);
        for (std::int64_t k = t; k < n * L.out; k += blockDim.x) {
            const int i = int(k / L.out);
            const std::int64_t o = k % L.out;
            float s = loadShared(a.params + L.bias + o);
            for (std::int64_t d = 0; d < L.in; ++d)
                s += loadShared(a.params + L.weight + o * L.in + d) * input(l, i, d);
            z[k] = s;
            z[n * L.out + k] = devicemath::activate(a.activation, s);
        }
        __syncthreads();
    }
    const auto last = a.layers[a.layerCount - 1];
    __shared__ float lossPart[kBlockThreads];
    lossPart[t] = 0;
    for (int i = t; i < n; i += blockDim.x)
        lossPart[t] += devicemath::softmaxRow(pre(a.layerCount - 1) + i * last.out, int(last.out),
                                              a.labels[rows[i]], n, delta + i * last.out);
    __syncthreads();
    for (int l = a.layerCount - 1; l >= 0; --l) {
        const auto L = a.layers[l];
        if (l > 0) { // the input's gradient, from the weights before this step's update
            const float* prePrev = pre(l - 1);
            for (std::int64_t k = t; k < n * L.in; k += blockDim.x) {
                const int i = int(k / L.in);
                const std::int64_t d = k % L.in;
                float s = 0;
                for (std::int64_t o = 0; o < L.out; ++o)
                    s += delta[i * L.out + o] * loadShared(a.params + L.weight + o * L.in + d);
                deltaPrev[k] =
                    devicemath::backpropagate(a.activation, s, prePrev[k], prePrev[n * L.in + k]);
            }
        }
        __syncthreads();
        for (std::int64_t j = t; j < L.out * (L.in + 1); j += blockDim.x) {
            const std::int64_t o = j / (L.in + 1), d = j % (L.in + 1);
            float g = 0;
            for (int i = 0; i < n; ++i)
                g += delta[i * L.out + o] * (d == L.in ? 1.0f : input(l, i, d));
            racyUpdate(a.params + (d == L.in ? L.bias + o : L.weight + o * L.in + d), g, a, lost);
            ++writes;
        }
        __syncthreads();
        float* swap = delta;
        delta = deltaPrev;
        deltaPrev = swap;
    }
    return lossPart[t];
}

/// The embedding bag's step: mean of the bag's rows, linear layer, loss,
/// racy updates of the linear layer and of the table rows the batch used.
__device__ float bagStep(const KernelArgs& a, const std::int32_t* rows, int n, float* scratch,
                         unsigned long long& writes, unsigned long long& lost) {
    const int t = threadIdx.x;
    const auto& s = a.shape;
    float* h = scratch;                // n x D
    float* z = h + n * s.dim;          // n x C
    float* delta = z + n * s.classes;  // n x C
    float* dh = delta + n * s.classes; // n x D
    for (std::int64_t k = t; k < n * s.dim; k += blockDim.x) {
        const int i = int(k / s.dim);
        const std::int64_t d = k % s.dim, b = a.offsets[rows[i]], e = a.offsets[rows[i] + 1];
        float v = 0;
        for (std::int64_t q = b; q < e; ++q)
            v += devicemath::bagWeight(a.values[q], e - b) *
                 loadShared(a.params + s.table + std::int64_t(a.indices[q]) * s.dim + d);
        h[k] = v;
    }
    __syncthreads();
    for (std::int64_t k = t; k < n * s.classes; k += blockDim.x) {
        const int i = int(k / s.classes);
        const std::int64_t c = k % s.classes;
        float v = loadShared(a.params + s.bias + c);
        for (std::int64_t d = 0; d < s.dim; ++d)
            v += loadShared(a.params + s.weight + c * s.dim + d) * h[i * s.dim + d];
        z[k] = v;
    }
    __syncthreads();
    __shared__ float lossPart[kBlockThreads];
    lossPart[t] = 0;
    for (int i = t; i < n; i += blockDim.x)
        lossPart[t] += devicemath::softmaxRow(z + i * s.classes, int(s.classes), a.labels[rows[i]],
                                              n, delta + i * s.classes);
    __syncthreads();
    for (std::int64_t k = t; k < n * s.dim; k += blockDim.x) {
        const int i = int(k / s.dim);
        const std::int64_t d = k % s.dim;
        float v = 0;
        for (std::int64_t c = 0; c < s.classes; ++c)
            v += delta[i * s.classes + c] * loadShared(a.params + s.weight + c * s.dim + d);
        dh[k] = v;
    }
    __syncthreads();
    for (std::int64_t j = t; j < s.classes * (s.dim + 1); j += blockDim.x) {
        const std::int64_t c = j / (s.dim + 1), d = j % (s.dim + 1);
        float g = 0;
        for (int i = 0; i < n; ++i)
            g += delta[i * s.classes + c] * (d == s.dim ? 1.0f : h[i * s.dim + d]);
        racyUpdate(a.params + (d == s.dim ? s.bias + c : s.weight + c * s.dim + d), g, a, lost);
        ++writes;
    }
    // Table rows: thread t owns coordinates d = t, t + blockDim.x, ... of
    // every row, so the block never races with itself; other blocks do.
    for (std::int64_t d = t; d < s.dim; d += blockDim.x)
        for (int i = 0; i < n; ++i) {
            const std::int64_t b = a.offsets[rows[i]], e = a.offsets[rows[i] + 1];
            for (std::int64_t q = b; q < e; ++q) {
                const float g = devicemath::bagWeight(a.values[q], e - b) * dh[i * s.dim + d];
                racyUpdate(a.params + s.table + std::int64_t(a.indices[q]) * s.dim + d, g, a, lost);
                ++writes;
            }
        }
    __syncthreads();
    return lossPart[t];
}

__global__ void __launch_bounds__(kBlockThreads) hogwildKernel(KernelArgs a) {
    const int t = threadIdx.x;
    const std::int64_t begin = std::int64_t(blockIdx.x) * a.chunk;
    const std::int64_t end = min(begin + a.chunk, a.orderLength);
    float* scratch = a.scratch + std::int64_t(blockIdx.x) * a.scratchPerBlock;
    volatile BlockCounters& mine = a.counters[blockIdx.x];
    __shared__ bool stop;
    __shared__ float lossSum[kBlockThreads];
    __shared__ unsigned long long stepWrites, stepLost;
    // The block's totals, in shared memory (registers would spill): read
    // from the mapped slot once per launch (they carry over from a paused
    // launch), then only stored (a store to host memory is posted; a load
    // waits a PCIe round trip while the block waits at the barrier).
    __shared__ BlockCounters total;
    if (t == 0) {
        total.steps = mine.steps;
        total.samples = mine.samples;
        total.writes = mine.writes;
        total.lost = mine.lost;
        total.lossSum = mine.lossSum;
    }
    std::int64_t at = a.position[blockIdx.x];
    while (at < end) {
        if (t == 0) {
            stop = *a.control != 0;
            stepWrites = 0;
            stepLost = 0;
        }
        __syncthreads();
        if (stop)
            break;
        const int n = int(min(std::int64_t(a.batch), end - at));
        unsigned long long writes = 0, lost = 0;
        lossSum[t] = a.bag ? bagStep(a, a.order + at, n, scratch, writes, lost)
                           : mlpStep(a, a.order + at, n, scratch, writes, lost);
        atomicAdd(&stepWrites, writes); // shared memory: one store per field below
        if (lost)
            atomicAdd(&stepLost, lost);
        __syncthreads();
        if (t == 0) {
            float loss = 0;
            for (int k = 0; k < int(blockDim.x); ++k)
                loss += lossSum[k];
            total.writes += stepWrites;
            total.lost += stepLost;
            total.lossSum += double(loss) / n;
            total.samples += (unsigned long long)n;
            ++total.steps;
            mine.writes = total.writes;
            mine.lost = total.lost;
            mine.lossSum = total.lossSum;
            mine.samples = total.samples;
            __threadfence_system(); // the totals before the step count the host keys on
            mine.steps = total.steps;
        }
        at += n;
        __syncthreads();
    }
    if (t == 0) {
        a.position[blockIdx.x] = at;
        mine.done = at >= end ? 1 : 0;
        __threadfence_system();
    }
}

/// Device memory for n T's, filled from `host` (when given) in order with
/// the work on `stream`.
template <class T>
T* upload(cudaStream_t stream, const T* host, std::int64_t n, std::int64_t& bytes) {
    T* p = nullptr;
    check(cudaMalloc(&p, std::size_t(std::max<std::int64_t>(n, 1)) * sizeof(T)), "cudaMalloc");
    bytes += n * std::int64_t(sizeof(T));
    if (host && n > 0)
        copyOn(stream, p, host, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, "cudaMemcpy");
    return p;
}

class Hogwild final : public HogwildTrainer {
public:
    Hogwild(const HogwildSettings& s, const HostData& train);
    ~Hogwild() override;
    void setParameters(const float* host) override {
        copyOn(stream_, a_.params, host, std::size_t(total_) * sizeof(float),
               cudaMemcpyHostToDevice, "cudaMemcpy (parameters)");
    }
    void launchEpoch(const std::vector<std::int32_t>& order, bool resume) override;
    void setLearningRate(float lr) override { a_.lr = lr; } // the kernel takes a_ by value
    void requestStop() override { *hostControl_ = 1; }
    bool done() override {
        const cudaError_t e = cudaEventQuery(finished_);
        if (e == cudaErrorNotReady)
            return false;
        check(e, "the Hogwild kernel");
        return true;
    }
    bool epochComplete() override {
        for (int b = 0; b < s_.blocks; ++b)
            if (!slots()[b].done)
                return false;
        return true;
    }
    std::vector<GroupCounters> counters() const override;
    void copyParameters(float* host) override {
        copyOn(stream_, host, a_.params, std::size_t(total_) * sizeof(float),
               cudaMemcpyDeviceToHost, "cudaMemcpy (parameters to the host)");
    }
    std::int64_t deviceBytes() const override { return bytes_; }
    const float* deviceParameters() const override { return a_.params; }

private:
    HogwildSettings s_;
    KernelArgs a_{};
    std::int64_t total_ = 0, bytes_ = 0;
    void* mapped_ = nullptr; ///< host side of the blocks' counters and the control word
    volatile int* hostControl_ = nullptr;
    const volatile BlockCounters* slots() const {
        return static_cast<const volatile BlockCounters*>(mapped_);
    }
    cudaStream_t stream_ = nullptr;
    cudaEvent_t finished_ = nullptr;
    std::vector<void*> owned_;
};

Hogwild::Hogwild(const HogwildSettings& s, const HostData& d) : s_(s) {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&finished_, cudaEventDisableTiming), "cudaEventCreate");
    total_ = s.bag ? s.bagShape.total : s.mlp.total;
    a_.params = upload<float>(stream_, nullptr, total_, bytes_);
    if (d.dense) {
        a_.dense = upload(stream_, d.dense, d.rows * d.dim, bytes_);
    } else {
        a_.offsets = upload(stream_, d.offsets, d.rows + 1, bytes_);
        a_.indices = upload(stream_, d.indices, d.offsets[d.rows], bytes_);
        a_.values = upload(stream_, d.values, d.offsets[d.rows], bytes_);
    }
    a_.labels = upload(stream_, d.labels, d.rows, bytes_);
    a_.dim = d.dim;
    a_.batch = s.batch;
    a_.groups = s.groups;
    a_.atomic = s.atomic;
    a_.lr = s.sgd.lr;
    a_.weightDecay = s.sgd.weightDecay;
    a_.bag = s.bag;
    a_.shape = s.bagShape;
    a_.activation = s.mlp.activation;
    a_.layerCount = int(s.mlp.layers.size());
    a_.layers = s.bag ? nullptr : upload(stream_, s.mlp.layers.data(), a_.layerCount, bytes_);
    std::int64_t perBlock = 0;
    if (s.bag) {
        perBlock = 2 * s.batch * (s.bagShape.dim + s.bagShape.classes);
    } else {
        std::int64_t widest = 0;
        for (std::size_t l = 0; l < s.mlp.layers.size(); ++l) {
            perBlock += 2 * s.batch * s.mlp.layers[l].out;
            widest = std::max(widest, s.mlp.layers[l].out);
            if (l > 0)
                widest = std::max(widest, s.mlp.layers[l].in);
        }
        perBlock += 2 * s.batch * widest;
    }
    a_.scratchPerBlock = perBlock;
    a_.scratch = upload<float>(stream_, nullptr, perBlock * s.blocks, bytes_);
    a_.position = upload<std::int64_t>(stream_, nullptr, s.blocks, bytes_);
    for (const void* p :
         {(const void*)a_.params, (const void*)a_.dense, (const void*)a_.offsets,
          (const void*)a_.indices, (const void*)a_.values, (const void*)a_.labels,
          (const void*)a_.layers, (const void*)a_.scratch, (const void*)a_.position})
        if (p)
            owned_.push_back(const_cast<void*>(p));
    const std::size_t slotBytes = sizeof(BlockCounters) * std::size_t(s.blocks);
    const std::size_t mappedBytes = slotBytes + 64;
    check(cudaHostAlloc(&mapped_, mappedBytes, cudaHostAllocMapped), "cudaHostAlloc (counters)");
    std::memset(mapped_, 0, mappedBytes);
    void* device = nullptr;
    check(cudaHostGetDevicePointer(&device, mapped_, 0), "cudaHostGetDevicePointer");
    a_.counters = static_cast<volatile BlockCounters*>(device);
    a_.control = reinterpret_cast<volatile int*>(static_cast<char*>(device) + slotBytes);
    hostControl_ = reinterpret_cast<volatile int*>(static_cast<char*>(mapped_) + slotBytes);
}

Hogwild::~Hogwild() {
    if (hostControl_)
        *hostControl_ = 1; // blocks still running return after their step
    if (stream_)
        cudaStreamSynchronize(stream_);
    if (a_.order)
        cudaFree(const_cast<std::int32_t*>(a_.order));
    for (void* p : owned_)
        cudaFree(p);
    if (mapped_)
        cudaFreeHost(mapped_);
    if (finished_)
        cudaEventDestroy(finished_);
    if (stream_)
        cudaStreamDestroy(stream_);
}

void Hogwild::launchEpoch(const std::vector<std::int32_t>& order, bool resume) {
    if (!resume) {
        if (a_.order) {
            cudaFree(const_cast<std::int32_t*>(a_.order));
            bytes_ -= a_.orderLength * std::int64_t(sizeof(std::int32_t));
        }
        a_.order = upload(stream_, order.data(), std::int64_t(order.size()), bytes_);
        a_.orderLength = std::int64_t(order.size());
        a_.chunk = (a_.orderLength + s_.blocks - 1) / s_.blocks;
        std::vector<std::int64_t> starts(std::size_t(s_.blocks));
        for (int b = 0; b < s_.blocks; ++b)
            starts[std::size_t(b)] = std::min(a_.orderLength, std::int64_t(b) * a_.chunk);
        copyOn(stream_, a_.position, starts.data(), starts.size() * sizeof(std::int64_t),
               cudaMemcpyHostToDevice, "cudaMemcpy (block positions)");
    }
    *hostControl_ = 0;
    hogwildKernel<<<unsigned(s_.blocks), kBlockThreads, 0, stream_>>>(a_);
    check(cudaGetLastError(), "the Hogwild kernel's launch");
    check(cudaEventRecord(finished_, stream_), "cudaEventRecord");
}

std::vector<GroupCounters> Hogwild::counters() const {
    std::vector<GroupCounters> out(std::size_t(s_.groups));
    for (int b = 0; b < s_.blocks; ++b) {
        const volatile BlockCounters& c = slots()[b];
        GroupCounters& g = out[std::size_t(b % s_.groups)];
        const unsigned long long steps = c.steps; // read first: the rest is at least as new
        g.steps += steps;
        g.samples += c.samples;
        g.writes += c.writes;
        g.lost += c.lost;
        g.lossSum += c.lossSum;
    }
    return out;
}

} // namespace

std::unique_ptr<HogwildTrainer> makeHogwildTrainer(const HogwildSettings& settings,
                                                   const HostData& train) {
    return std::make_unique<Hogwild>(settings, train);
}

} // namespace hwl::cuda::module
