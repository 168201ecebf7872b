#pragma once
// The layer list's spatial operations on the CPU (backend/cpu/netkernel.h):
// im2col and its reverse, max and average pooling, dropout's factors. A
// batch of images is n x channels planes of height x width floats; Planes
// says where plane (sample, channel) starts, for either order the kernel
// keeps: [sample][channel] (NC, what PyTorch's NCHW is) or [channel][sample]
// (CN, what a convolution's matrix product writes).
#include "util/dropoutdraws.h"
#include "util/random.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hwl::netops {

struct Planes {
    std::int64_t n = 0, channels = 0, area = 0; ///< area: height x width
    bool channelMajor = false;                  ///< CN rather than NC
    std::int64_t at(std::int64_t i, std::int64_t c) const {
        return (channelMajor ? c * n + i : i * channels + c) * area;
    }
};

/// A convolution's or pool's window: kernel side, stride, zero padding, and
/// the input's and output's sides.
struct Window {
    std::int64_t kernel = 1, stride = 1, padding = 0;
    std::int64_t height = 0, width = 0, outHeight = 0, outWidth = 0;
    bool plain() const { return stride == 1 && padding == 0; }
};

/// Copies count values in blocks of eight the compiler makes vector moves
/// of: std::copy_n of a run of 8 or 24 floats was a call of memmove, 9% of
/// a cnn:mnist step in perf.
template <class T>
inline void copySpan(const T* src, std::int64_t count, T* dst) {
    std::int64_t j = 0;
    for (; j + 8 <= count; j += 8)
        for (std::int64_t q = 0; q < 8; ++q)
            dst[j + q] = src[j + q];
    for (; j < count; ++j)
        dst[j] = src[j];
}

/// dst += src over count values, in blocks of eight as copySpan.
template <class T>
inline void addSpan(const T* src, std::int64_t count, T* dst) {
    std::int64_t j = 0;
    for (; j + 8 <= count; j += 8)
        for (std::int64_t q = 0; q < 8; ++q)
            dst[j + q] += src[j + q];
    for (; j < count; ++j)
        dst[j] += src[j];
}

/// The output columns [lo, hi) whose input column ox * stride - padding +
/// kx lies inside the image.
inline void insideColumns(const Window& w, std::int64_t kx, std::int64_t& lo, std::int64_t& hi) {
    const std::int64_t shift = kx - w.padding; // input column = ox * stride + shift
    lo = shift >= 0 ? 0 : (-shift + w.stride - 1) / w.stride;
    hi = w.width - shift <= 0 ? 0 : (w.width - shift + w.stride - 1) / w.stride;
    lo = std::min(lo, w.outWidth);
    hi = std::clamp(hi, lo, w.outWidth);
}

/// The patches of a convolution, one row per weight position: out is
/// (channels * k * k) x (n * outHeight * outWidth), row (c, ky, kx) holding
/// input (c, oy * stride - padding + ky, ox * stride - padding + kx) of each
/// sample and output position, zero outside the image. A row of the output
/// is then a run of outWidth inputs of one input row: at stride 1 a copy the
/// compiler vectorises (perf put 15% of a cnn:mnist step in the im2col of
/// one patch per matrix row, five floats at a time).
template <class T>
void im2colRows(const T* in, const Planes& p, const Window& w, T* out) {
    const std::int64_t k = w.kernel, area = w.outHeight * w.outWidth, cols = p.n * area;
    for (std::int64_t c = 0; c < p.channels; ++c)
        for (std::int64_t ky = 0; ky < k; ++ky)
            for (std::int64_t kx = 0; kx < k; ++kx) {
                T* row = out + ((c * k + ky) * k + kx) * cols;
                std::int64_t lo = 0, hi = 0;
                insideColumns(w, kx, lo, hi);
                const std::int64_t x0 = lo * w.stride - w.padding + kx;
                if (w.plain()) { // every window inside: one run per output row
                    for (std::int64_t i = 0; i < p.n; ++i) {
                        const T* src = in + p.at(i, c) + ky * w.width + kx;
                        T* dst = row + i * area;
                        for (std::int64_t oy = 0; oy < w.outHeight; ++oy)
                            copySpan(src + oy * w.width, w.outWidth, dst + oy * w.outWidth);
                    }
                    continue;
                }
                for (std::int64_t i = 0; i < p.n; ++i) {
                    const T* plane = in + p.at(i, c);
                    for (std::int64_t oy = 0; oy < w.outHeight; ++oy) {
                        T* dst = row + i * area + oy * w.outWidth;
                        const std::int64_t y = oy * w.stride - w.padding + ky;
                        if (y < 0 || y >= w.height) {
                            std::fill_n(dst, w.outWidth, T(0));
                            continue;
                        }
                        std::fill_n(dst, lo, T(0));
                        const T* src = plane + y * w.width + x0;
                        if (w.stride == 1)
                            copySpan(src, hi - lo, dst + lo);
                        else
                            for (std::int64_t ox = lo; ox < hi; ++ox)
                                dst[ox] = src[(ox - lo) * w.stride];
                        std::fill_n(dst + hi, w.outWidth - hi, T(0));
                    }
                }
            }
}

/// The reverse of im2colRows: each patch value's gradient added back to its
/// input's (`in`, zeroed by the caller); the padding's share is dropped.
template <class T>
void col2imRowsAdd(const T* rows, const Planes& p, const Window& w, T* in) {
    const std::int64_t k = w.kernel, area = w.outHeight * w.outWidth, cols = p.n * area;
    for (std::int64_t c = 0; c < p.channels; ++c)
        for (std::int64_t ky = 0; ky < k; ++ky)
            for (std::int64_t kx = 0; kx < k; ++kx) {
                const T* row = rows + ((c * k + ky) * k + kx) * cols;
                std::int64_t lo = 0, hi = 0;
                insideColumns(w, kx, lo, hi);
                const std::int64_t x0 = lo * w.stride - w.padding + kx;
                if (w.plain()) { // every window inside: one run per output row
                    for (std::int64_t i = 0; i < p.n; ++i) {
                        T* dst = in + p.at(i, c) + ky * w.width + kx;
                        const T* src = row + i * area;
                        for (std::int64_t oy = 0; oy < w.outHeight; ++oy)
                            addSpan(src + oy * w.outWidth, w.outWidth, dst + oy * w.width);
                    }
                    continue;
                }
                for (std::int64_t i = 0; i < p.n; ++i) {
                    T* plane = in + p.at(i, c);
                    for (std::int64_t oy = 0; oy < w.outHeight; ++oy) {
                        const std::int64_t y = oy * w.stride - w.padding + ky;
                        if (y < 0 || y >= w.height)
                            continue;
                        const T* src = row + i * area + oy * w.outWidth;
                        T* dst = plane + y * w.width + x0;
                        for (std::int64_t ox = lo; ox < hi; ++ox)
                            dst[(ox - lo) * w.stride] += src[ox];
                    }
                }
            }
}

/// out [n][channels][outHeight][outWidth] = the max of each window of z
/// (planes `p`), times scale[i * channels + c] when scale is not null (a
/// Dropout2d before the pool: the max of the scaled window, as the factor is
/// not negative), then ReLU when `relu`. pick holds each output's chosen
/// input within its plane: the first maximum in row order, as PyTorch's
/// max_pool2d.
template <class T>
void maxPool(const T* z, const Planes& p, const Window& w, const T* scale, bool relu, T* out,
             std::vector<std::int32_t>& pick) {
    const std::int64_t outArea = w.outHeight * w.outWidth;
    pick.resize(std::size_t(p.n * p.channels * outArea));
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            const T* plane = z + p.at(i, c);
            const T s = scale ? scale[i * p.channels + c] : T(1);
            const std::int64_t first = (i * p.channels + c) * outArea;
            for (std::int64_t py = 0; py < w.outHeight; ++py)
                for (std::int64_t px = 0; px < w.outWidth; ++px) {
                    const std::int64_t corner = py * w.stride * w.width + px * w.stride;
                    std::int64_t best = corner;
                    for (std::int64_t ky = 0; ky < w.kernel; ++ky)
                        for (std::int64_t kx = 0; kx < w.kernel; ++kx) {
                            const std::int64_t at = corner + ky * w.width + kx;
                            if (plane[at] > plane[best])
                                best = at;
                        }
                    const T v = scale ? plane[best] * s : plane[best];
                    out[first + py * w.outWidth + px] = relu && !(v > T(0)) ? T(0) : v;
                    pick[std::size_t(first + py * w.outWidth + px)] = std::int32_t(best);
                }
        }
}

/// True when a pool's windows are 2x2 at stride 2 and cover the input
/// exactly (even sides): maxPool2's case, the pool of most convolution
/// stacks, cnn:mnist's among them.
inline bool pairsCoverInput(const Window& w) {
    return w.kernel == 2 && w.stride == 2 && w.padding == 0 && w.outHeight * 2 == w.height &&
           w.outWidth * 2 == w.width;
}

/// One output row of maxPool2 from its two input rows (branch-free and
/// unaliased, so that the compiler vectorises it); chosen gets each
/// output's input within the plane, corner being the top row's first.
template <class T, bool Relu>
void maxPool2Row(const T* __restrict top, const T* __restrict bottom, std::int64_t outWidth,
                 std::int32_t corner, std::int32_t down, T scale, T* __restrict out,
                 std::int32_t* __restrict chosen) {
    for (std::int64_t px = 0; px < outWidth; ++px) {
        const T a = top[2 * px], b = top[2 * px + 1];
        const T c = bottom[2 * px], d = bottom[2 * px + 1];
        const std::int32_t right = b > a, rightBelow = d > c;
        const T upper = b > a ? b : a, lower = d > c ? d : c;
        const std::int32_t below = lower > upper;
        const T v = (lower > upper ? lower : upper) * scale;
        chosen[px] = corner + std::int32_t(2 * px) + right + below * (down + rightBelow - right);
        out[px] = Relu ? (v > T(0) ? v : T(0)) : v;
    }
}

/// maxPool for pairsCoverInput windows: the same outputs and picks (the
/// first maximum in row order, as PyTorch's: each strict comparison keeps
/// the earlier value on a tie). perf put 10% of a cnn:mnist step in the
/// general loop's chain of comparisons, 6% in this one. (Two passes over
/// longer runs, the larger of each column's two rows and then of each pair
/// of those, measured slower.)
template <class T>
void maxPool2(const T* z, const Planes& p, const Window& w, const T* scale, bool relu, T* out,
              std::vector<std::int32_t>& pick) {
    const std::int64_t outArea = w.outHeight * w.outWidth, ow = w.outWidth;
    const std::int32_t down = std::int32_t(w.width);
    pick.resize(std::size_t(p.n * p.channels * outArea));
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            const T* plane = z + p.at(i, c);
            const T s = scale ? scale[i * p.channels + c] : T(1);
            const std::int64_t first = (i * p.channels + c) * outArea;
            for (std::int64_t py = 0; py < w.outHeight; ++py) {
                const T* top = plane + 2 * py * w.width;
                const std::int64_t at = first + py * ow;
                const std::int32_t corner = std::int32_t(2 * py * w.width);
                if (relu)
                    maxPool2Row<T, true>(top, top + w.width, ow, corner, down, s, out + at,
                                         pick.data() + at);
                else
                    maxPool2Row<T, false>(top, top + w.width, ow, corner, down, s, out + at,
                                          pick.data() + at);
            }
        }
}

/// maxPool2's backward: dz (zeroed by the caller) at each chosen input gets
/// its output's gradient (times the scale) where the output passed the
/// ReLU. The windows do not overlap, so each pick is written once; without
/// maxPoolBackward's test per output the loop has no branch (perf put 4% of
/// a cnn:mnist step in that test's mispredictions).
template <class T, bool Relu>
void maxPool2Backward(const T* dout, const T* out, const std::vector<std::int32_t>& pick,
                      const Planes& p, const Window& w, const T* scale, T* dz) {
    const std::int64_t outArea = w.outHeight * w.outWidth;
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            T* plane = dz + p.at(i, c);
            const std::int64_t first = (i * p.channels + c) * outArea;
            const T s = scale ? scale[i * p.channels + c] : T(1);
            const T* g = dout + first;
            const T* y = out + first;
            const std::int32_t* chosen = pick.data() + first;
            for (std::int64_t j = 0; j < outArea; ++j)
                plane[chosen[j]] = Relu ? (y[j] > T(0) ? g[j] * s : T(0)) : g[j] * s;
        }
}

/// maxPool's backward: dz (zeroed; planes `p`) at each chosen input gets
/// its output's gradient (times the scale), where the output was positive
/// when `relu`. Windows that overlap add their shares.
template <class T>
void maxPoolBackward(const T* dout, const T* out, const std::vector<std::int32_t>& pick,
                     const Planes& p, const Window& w, const T* scale, bool relu, T* dz) {
    const std::int64_t outArea = w.outHeight * w.outWidth;
    const bool overlap = w.stride < w.kernel;
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            T* plane = dz + p.at(i, c);
            const std::int64_t first = (i * p.channels + c) * outArea;
            const T s = scale ? scale[i * p.channels + c] : T(1);
            for (std::int64_t j = first; j < first + outArea; ++j) {
                if (relu && !(out[j] > T(0)))
                    continue;
                const T g = scale ? dout[j] * s : dout[j];
                T& target = plane[pick[std::size_t(j)]];
                target = overlap ? target + g : g;
            }
        }
}

/// out [n][channels][outHeight][outWidth] = each window's mean (PyTorch's
/// avg_pool2d without padding: the sum over kernel x kernel divided by it).
template <class T>
void avgPool(const T* z, const Planes& p, const Window& w, T* out) {
    const T divisor = T(w.kernel * w.kernel);
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            const T* plane = z + p.at(i, c);
            T* o = out + (i * p.channels + c) * w.outHeight * w.outWidth;
            for (std::int64_t py = 0; py < w.outHeight; ++py)
                for (std::int64_t px = 0; px < w.outWidth; ++px) {
                    const T* corner = plane + py * w.stride * w.width + px * w.stride;
                    T sum = 0;
                    for (std::int64_t ky = 0; ky < w.kernel; ++ky)
                        for (std::int64_t kx = 0; kx < w.kernel; ++kx)
                            sum += corner[ky * w.width + kx];
                    o[py * w.outWidth + px] = sum / divisor;
                }
        }
}

/// avgPool's backward: each window's inputs (dz, zeroed) get its share.
template <class T>
void avgPoolBackward(const T* dout, const Planes& p, const Window& w, T* dz) {
    const T divisor = T(w.kernel * w.kernel);
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            T* plane = dz + p.at(i, c);
            const T* o = dout + (i * p.channels + c) * w.outHeight * w.outWidth;
            for (std::int64_t py = 0; py < w.outHeight; ++py)
                for (std::int64_t px = 0; px < w.outWidth; ++px) {
                    T* corner = plane + py * w.stride * w.width + px * w.stride;
                    const T share = o[py * w.outWidth + px] / divisor;
                    for (std::int64_t ky = 0; ky < w.kernel; ++ky)
                        for (std::int64_t kx = 0; kx < w.kernel; ++kx)
                            corner[ky * w.width + kx] += share;
                }
        }
}

/// Dropout's factors: 0 with probability q, else 1 / (1 - q), as PyTorch's
/// (util/dropoutdraws.h, the rule the GPU draws by too).
template <class T>
void dropoutScales(Rng& rng, double q, std::int64_t count, T* scale) {
    const T keep = dropout::keepFactor<T>(q);
    for (std::int64_t j = 0; j < count; ++j)
        scale[j] = dropout::factor(rng.uniform(), q, keep);
}

/// out = x times its factor: per value (perPlane false, scale indexed as x)
/// or per plane (Dropout2d: scale[i * channels + c]); out may be x. A
/// dropped value, and its gradient, is exactly 0.
template <class T>
void applyScale(const T* x, const T* scale, const Planes& p, bool perPlane, T* out) {
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t c = 0; c < p.channels; ++c) {
            const std::int64_t at = p.at(i, c);
            for (std::int64_t j = 0; j < p.area; ++j) {
                const T s = perPlane ? scale[i * p.channels + c] : scale[at + j];
                out[at + j] = s == T(0) ? T(0) : x[at + j] * s;
            }
        }
}

} // namespace hwl::netops
