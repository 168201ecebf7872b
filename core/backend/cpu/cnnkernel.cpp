#include "backend/cpu/cnnkernel.h"

#include "backend/cpu/batchgather.h"
#include "backend/cpu/cpuproducts.h"
#include "backend/cpu/softmaxloss.h"
#include "util/eigenmaps.h"
#include "util/random.h"

#include <algorithm>

namespace hwl {

namespace {

/// The forward pass's buffers in Workspace::pre, and the backward pass's in
/// Workspace::post.
enum Forward { P1, Z1, A1, P2, Z2, A2, H, H1, Drop2, Drop3, Logits, kForward };
enum Backward { DZ1, DA1, DP2, DZ2, DA2, DH, kBackward };

template <class T>
T* sized(AlignedVector<T>& v, std::int64_t size) {
    v.resize(std::size_t(size));
    return v.data();
}

template <class T>
T* zeroed(AlignedVector<T>& v, std::int64_t size) {
    v.assign(std::size_t(size), T(0));
    return v.data();
}

/// Copies K floats (the kernel side, known at compile time: a few moves) or,
/// with K = 0, k of them. perf put 12% of a step in memmove when each row of
/// five was a std::copy_n.
template <std::int64_t K, class T>
inline void copyRow(const T* src, std::int64_t k, T* dst) {
    if constexpr (K > 0) {
        for (std::int64_t x = 0; x < K; ++x)
            dst[x] = src[x];
    } else {
        std::copy_n(src, k, dst);
    }
}

/// out ((n * o * o) x (channels * k * k)): each output position's input
/// patch, in the order of a weight's [channel][ky][kx]; o = side - k + 1.
template <std::int64_t K, class T>
void im2colOf(const T* in, std::int64_t n, std::int64_t channels, std::int64_t side, std::int64_t k,
              T* out) {
    const std::int64_t o = side - k + 1;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t oy = 0; oy < o; ++oy)
            for (std::int64_t ox = 0; ox < o; ++ox) {
                T* row = out + ((i * o + oy) * o + ox) * channels * k * k;
                for (std::int64_t c = 0; c < channels; ++c)
                    for (std::int64_t ky = 0; ky < k; ++ky)
                        copyRow<K>(in + ((i * channels + c) * side + oy + ky) * side + ox, k,
                                   row + (c * k + ky) * k);
            }
}

template <class T>
void im2col(const T* in, std::int64_t n, std::int64_t channels, std::int64_t side, std::int64_t k,
            T* out) {
    if (k == 5)
        im2colOf<5>(in, n, channels, side, k, out);
    else
        im2colOf<0>(in, n, channels, side, k, out);
}

/// The reverse of im2col: each patch's gradient added back to the input's.
template <class T>
void col2imAdd(const T* cols, std::int64_t n, std::int64_t channels, std::int64_t side,
               std::int64_t k, T* in) {
    const std::int64_t o = side - k + 1;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t oy = 0; oy < o; ++oy)
            for (std::int64_t ox = 0; ox < o; ++ox) {
                const T* row = cols + ((i * o + oy) * o + ox) * channels * k * k;
                for (std::int64_t c = 0; c < channels; ++c)
                    for (std::int64_t ky = 0; ky < k; ++ky) {
                        T* dst = in + ((i * channels + c) * side + oy + ky) * side + ox;
                        const T* src = row + (c * k + ky) * k;
                        for (std::int64_t kx = 0; kx < k; ++kx)
                            dst[kx] += src[kx];
                    }
            }
}

/// z (out x cols) = w (out x width) * patches (cols x width)^T + bias per row.
template <class T>
void convolve(const T* w, const T* bias, const T* patches, std::int64_t out, std::int64_t cols,
              std::int64_t width, T* z) {
    cpu::productNT(w, patches, z, out, cols, width);
    MatrixMap<T>(z, out, cols).colwise() +=
        Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(bias, out);
}

/// The weight and bias gradients of convolve(), and the patches' gradient
/// when dPatches is not null.
template <class T>
void convolveBackward(const T* dz, const T* patches, const T* w, std::int64_t out,
                      std::int64_t cols, std::int64_t width, T* dw, T* dbias, T* dPatches) {
    cpu::productNN(dz, patches, dw, out, width, cols);
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(dbias, out) =
        ConstMatrixMap<T>(dz, out, cols).rowwise().sum();
    if (dPatches)
        cpu::productTN(dz, w, dPatches, cols, width, out);
}

/// out [n][channels][side/2][side/2] = ReLU(scale * the 2x2 max of z), z laid
/// out [channels][n][side][side] (a convolution's output); pick holds each
/// output's chosen input (the first maximum, as PyTorch's max_pool2d).
/// scale: a factor per [sample][channel] (Dropout2d), or null.
template <class T>
void poolRelu(const T* z, std::int64_t channels, std::int64_t n, std::int64_t side, const T* scale,
              T* out, std::vector<std::int32_t>& pick) {
    const std::int64_t half = side / 2, plane = side * side;
    pick.resize(std::size_t(n * channels * half * half));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < channels; ++c) {
            const std::int64_t base = (c * n + i) * plane;
            const T s = scale ? scale[i * channels + c] : T(1);
            const std::int64_t first = (i * channels + c) * half * half;
            for (std::int64_t py = 0; py < half; ++py)
                for (std::int64_t px = 0; px < half; ++px) {
                    std::int64_t best = base + 2 * py * side + 2 * px;
                    for (std::int64_t at : {best + 1, best + side, best + side + 1})
                        if (z[at] > z[best])
                            best = at;
                    const T v = scale ? z[best] * s : z[best];
                    out[first + py * half + px] = v > T(0) ? v : T(0);
                    pick[std::size_t(first + py * half + px)] = std::int32_t(best);
                }
        }
}

/// poolRelu's backward: dz (zeroed) at each chosen input gets its output's
/// gradient where the output was positive.
template <class T>
void poolReluBackward(const T* dout, const T* out, const std::vector<std::int32_t>& pick,
                      const T* scale, std::int64_t half, T* dz) {
    const std::int64_t area = half * half;
    for (std::size_t j = 0; j < pick.size(); ++j)
        if (out[j] > T(0))
            dz[pick[j]] = scale ? dout[j] * scale[std::int64_t(j) / area] : dout[j];
}

/// Dropout's factors: 0 with probability p, else 1 / (1 - p), as PyTorch's.
template <class T>
void dropoutScales(Rng& rng, double p, std::int64_t count, T* scale) {
    const T keep = T(1) / T(1 - p);
    for (std::int64_t j = 0; j < count; ++j)
        scale[j] = rng.uniform() < p ? T(0) : keep;
}

template <class T>
void reluScaled(const T* in, const T* scale, std::int64_t size, T* out) {
    for (std::int64_t j = 0; j < size; ++j) {
        const T v = scale ? in[j] * scale[j] : in[j];
        out[j] = v > T(0) ? v : T(0);
    }
}

} // namespace

template <class T>
void CnnKernel::forward(const T* params, std::int64_t n, bool training, Workspace<T>& ws) const {
    const Cnn::Shape& s = shape_;
    const std::int64_t k = s.kernel, o1 = s.side1(), o2 = s.side2(), flat = s.flat();
    ws.pre.resize(kForward);
    ws.picks.resize(2);
    auto& f = ws.pre;
    const bool drop = training && dropout_ > 0;
    const T* scale2 = nullptr;
    const T* scale3 = nullptr;
    if (drop) {
        Rng rng(Rng::derive(seed_, ws.noiseKey));
        dropoutScales(rng, dropout_, n * s.conv2, sized(f[Drop2], n * s.conv2));
        dropoutScales(rng, dropout_, n * s.hidden, sized(f[Drop3], n * s.hidden));
        scale2 = f[Drop2].data();
        scale3 = f[Drop3].data();
    }
    im2col(ws.input.data(), n, 1, s.side, k, sized(f[P1], n * o1 * o1 * k * k));
    convolve(params + at_.conv1Weight, params + at_.conv1Bias, f[P1].data(), s.conv1, n * o1 * o1,
             k * k, sized(f[Z1], s.conv1 * n * o1 * o1));
    poolRelu(f[Z1].data(), s.conv1, n, o1, static_cast<const T*>(nullptr),
             sized(f[A1], n * s.conv1 * s.pooled1() * s.pooled1()), ws.picks[0]);
    im2col(f[A1].data(), n, s.conv1, s.pooled1(), k, sized(f[P2], n * o2 * o2 * s.conv1 * k * k));
    convolve(params + at_.conv2Weight, params + at_.conv2Bias, f[P2].data(), s.conv2, n * o2 * o2,
             s.conv1 * k * k, sized(f[Z2], s.conv2 * n * o2 * o2));
    poolRelu(f[Z2].data(), s.conv2, n, o2, scale2, sized(f[A2], n * flat), ws.picks[1]);
    // fc1, ReLU, dropout, fc2: rows are samples from here on.
    cpu::productNT(f[A2].data(), params + at_.fc1Weight, sized(f[H], n * s.hidden), n, s.hidden,
                   flat);
    MatrixMap<T>(f[H].data(), n, s.hidden).rowwise() +=
        ConstRowMap<T>(params + at_.fc1Bias, s.hidden);
    reluScaled(f[H].data(), scale3, n * s.hidden, sized(f[H1], n * s.hidden));
    cpu::productNT(f[H1].data(), params + at_.fc2Weight, sized(f[Logits], n * s.classes), n,
                   s.classes, s.hidden);
    MatrixMap<T>(f[Logits].data(), n, s.classes).rowwise() +=
        ConstRowMap<T>(params + at_.fc2Bias, s.classes);
}

template <class T>
void CnnKernel::backward(const T* params, std::int64_t n, Workspace<T>& ws, T* g) const {
    const Cnn::Shape& s = shape_;
    const std::int64_t k = s.kernel, o1 = s.side1(), o2 = s.side2(), flat = s.flat();
    const bool drop = dropout_ > 0; // train() always runs forward() training
    const auto& f = ws.pre;
    auto& b = ws.post;
    b.resize(kBackward);
    const T* delta = ws.delta.data();
    // fc2, then dropout and ReLU (a unit passes its gradient where it came out positive).
    cpu::productTN(delta, f[H1].data(), g + at_.fc2Weight, s.classes, s.hidden, n);
    Eigen::Map<RowVector<T>>(g + at_.fc2Bias, s.classes) =
        ConstMatrixMap<T>(delta, n, s.classes).colwise().sum();
    T* dh = sized(b[DH], n * s.hidden);
    cpu::productNN(delta, params + at_.fc2Weight, dh, n, s.hidden, s.classes);
    for (std::int64_t j = 0; j < n * s.hidden; ++j)
        dh[j] =
            f[H1][std::size_t(j)] > T(0) ? (drop ? dh[j] * f[Drop3][std::size_t(j)] : dh[j]) : T(0);
    // fc1
    cpu::productTN(dh, f[A2].data(), g + at_.fc1Weight, s.hidden, flat, n);
    Eigen::Map<RowVector<T>>(g + at_.fc1Bias, s.hidden) =
        ConstMatrixMap<T>(dh, n, s.hidden).colwise().sum();
    T* da2 = sized(b[DA2], n * flat);
    cpu::productNN(dh, params + at_.fc1Weight, da2, n, flat, s.hidden);
    // max-pool 2 (with Dropout2d's factors), conv2
    T* dz2 = zeroed(b[DZ2], s.conv2 * n * o2 * o2);
    poolReluBackward(da2, f[A2].data(), ws.picks[1], drop ? f[Drop2].data() : nullptr, s.pooled2(),
                     dz2);
    const std::int64_t width2 = s.conv1 * k * k;
    convolveBackward(dz2, f[P2].data(), params + at_.conv2Weight, s.conv2, n * o2 * o2, width2,
                     g + at_.conv2Weight, g + at_.conv2Bias, sized(b[DP2], n * o2 * o2 * width2));
    T* da1 = zeroed(b[DA1], n * s.conv1 * s.pooled1() * s.pooled1());
    col2imAdd(b[DP2].data(), n, s.conv1, s.pooled1(), k, da1);
    // max-pool 1, conv1 (no gradient for the images themselves)
    T* dz1 = zeroed(b[DZ1], s.conv1 * n * o1 * o1);
    poolReluBackward(da1, f[A1].data(), ws.picks[0], static_cast<const T*>(nullptr), s.pooled1(),
                     dz1);
    convolveBackward(dz1, f[P1].data(), params + at_.conv1Weight, s.conv1, n * o1 * o1, k * k,
                     g + at_.conv1Weight, g + at_.conv1Bias, static_cast<T*>(nullptr));
}

template <class T>
T CnnKernel::train(const T* params, const DatasetView& data, const std::int64_t* rows,
                   std::int64_t n, Workspace<T>& ws) const {
    gatherRows(data, rows, n, ws.input);
    forward(params, n, true, ws);
    ws.delta.resize(std::size_t(n * shape_.classes));
    const T lossSum = softmaxCrossEntropy(ws.pre[Logits].data(), n, shape_.classes, data.labels,
                                          rows, ws.delta.data());
    T* values = ws.gradientBuffer;
    if (!values) {
        ws.grad.values.resize(std::size_t(total_));
        values = ws.grad.values.data();
    }
    ws.grad.segments.assign(1, {0, total_, 0});
    backward(params, n, ws, values);
    return lossSum / T(n);
}

const float* CnnKernel::logits(const float* params, const DatasetView& data,
                               const std::int64_t* rows, std::int64_t n,
                               Workspace<float>& ws) const {
    gatherRows(data, rows, n, ws.input);
    forward(params, n, false, ws);
    return ws.pre[Logits].data();
}

// ModelKernelOf calls these from the header: one instance per precision.
template float CnnKernel::train<float>(const float*, const DatasetView&, const std::int64_t*,
                                       std::int64_t, Workspace<float>&) const;
template double CnnKernel::train<double>(const double*, const DatasetView&, const std::int64_t*,
                                         std::int64_t, Workspace<double>&) const;

} // namespace hwl
