#pragma once
// The layer list's spatial operations on the CPU (backend/cpu/netkernel.h):
// im2col and its reverse, max and average pooling, dropout's factors. A
// batch of images is n x channels planes of height x width floats; Planes
// says where plane (sample, channel) starts, for either order the kernel
// keeps: [sample][channel] (NC, what PyTorch's NCHW is) or [channel][sample]
// (CN, what a convolution's matrix product writes).
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

/// out ((n * outHeight * outWidth) x (channels * k * k)): each output
/// position's input patch, in the order of a weight's [channel][ky][kx];
/// zeros where the window leaves the padded image.
template <std::int64_t K, class T>
void im2colOf(const T* in, const Planes& p, const Window& w, T* out) {
    const std::int64_t k = w.kernel, rowWidth = p.channels * k * k;
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t oy = 0; oy < w.outHeight; ++oy)
            for (std::int64_t ox = 0; ox < w.outWidth; ++ox) {
                T* row = out + ((i * w.outHeight + oy) * w.outWidth + ox) * rowWidth;
                const std::int64_t y0 = oy * w.stride - w.padding, x0 = ox * w.stride - w.padding;
                const bool inside = x0 >= 0 && x0 + k <= w.width;
                for (std::int64_t c = 0; c < p.channels; ++c) {
                    const T* plane = in + p.at(i, c);
                    for (std::int64_t ky = 0; ky < k; ++ky) {
                        T* dst = row + (c * k + ky) * k;
                        const std::int64_t y = y0 + ky;
                        if (y < 0 || y >= w.height)
                            std::fill_n(dst, k, T(0));
                        else if (inside)
                            copyRow<K>(plane + y * w.width + x0, k, dst);
                        else
                            for (std::int64_t kx = 0; kx < k; ++kx)
                                dst[kx] = x0 + kx >= 0 && x0 + kx < w.width
                                              ? plane[y * w.width + x0 + kx]
                                              : T(0);
                    }
                }
            }
}

template <class T>
void im2col(const T* in, const Planes& p, const Window& w, T* out) {
    if (w.kernel == 5)
        im2colOf<5>(in, p, w, out);
    else if (w.kernel == 3)
        im2colOf<3>(in, p, w, out);
    else
        im2colOf<0>(in, p, w, out);
}

/// The reverse of im2col: each patch's gradient added back to the input's
/// (`in`, zeroed by the caller); the padding's share is dropped.
template <class T>
void col2imAdd(const T* cols, const Planes& p, const Window& w, T* in) {
    const std::int64_t k = w.kernel, rowWidth = p.channels * k * k;
    for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t oy = 0; oy < w.outHeight; ++oy)
            for (std::int64_t ox = 0; ox < w.outWidth; ++ox) {
                const T* row = cols + ((i * w.outHeight + oy) * w.outWidth + ox) * rowWidth;
                const std::int64_t y0 = oy * w.stride - w.padding, x0 = ox * w.stride - w.padding;
                for (std::int64_t c = 0; c < p.channels; ++c) {
                    T* plane = in + p.at(i, c);
                    for (std::int64_t ky = 0; ky < k; ++ky) {
                        const std::int64_t y = y0 + ky;
                        if (y < 0 || y >= w.height)
                            continue;
                        const T* src = row + (c * k + ky) * k;
                        T* dst = plane + y * w.width + x0;
                        for (std::int64_t kx = 0; kx < k; ++kx)
                            if (x0 + kx >= 0 && x0 + kx < w.width)
                                dst[kx] += src[kx];
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

/// maxPool's backward: dz (zeroed; planes `p`) at each chosen input gets
/// its output's gradient (times the scale), where the output was positive
/// when `relu`. Windows that overlap add their shares.
template <class T>
void maxPoolBackward(const T* dout, const T* out, const std::vector<std::int32_t>& pick,
                     const Planes& p, const Window& w, const T* scale, bool relu, T* dz) {
    const std::int64_t outArea = w.outHeight * w.outWidth;
    const bool overlap = w.stride < w.kernel;
    for (std::size_t j = 0; j < pick.size(); ++j) {
        if (relu && !(out[j] > T(0)))
            continue;
        const std::int64_t plane = std::int64_t(j) / outArea; // i * channels + c
        const T g = scale ? dout[j] * scale[plane] : dout[j];
        T& target = dz[p.at(plane / p.channels, plane % p.channels) + pick[j]];
        target = overlap ? target + g : g;
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

/// Dropout's factors: 0 with probability q, else 1 / (1 - q), as PyTorch's.
template <class T>
void dropoutScales(Rng& rng, double q, std::int64_t count, T* scale) {
    const T keep = T(1) / T(1 - q);
    for (std::int64_t j = 0; j < count; ++j)
        scale[j] = rng.uniform() < q ? T(0) : keep;
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
