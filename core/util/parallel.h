#pragma once
// The engine's data-parallel helpers (dataset generation, test evaluation)
// on oneTBB. Work is cut into fixed chunks and partial results are combined
// in chunk order, so results never depend on the thread count or on how the
// scheduler split the range.
//
// ThreadSanitizer builds (HWL_THREAD_SANITIZER) run these loops on the
// calling thread: Debian's libtbb is not instrumented, so TSan cannot see
// its internal synchronisation and would report TBB's own bookkeeping.
#include "util/errors.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef HWL_THREAD_SANITIZER
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#endif

namespace hwl {

namespace detail {
/// Runs body(); oneTBB's failure to create its worker threads (a
/// std::runtime_error "pthread_create has failed: <reason>", e.g. at the
/// process limit) becomes a RunError that says what to do. Anything else
/// (the caller's own errors included) passes through unchanged.
template <class Body>
void withTbbStartHint(Body&& body) {
    try {
        body();
    } catch (const InputError&) {
        throw;
    } catch (const RunError&) {
        throw;
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        if (what.rfind("pthread_create has failed", 0) != 0)
            throw;
        const int err = what.find(errnoText(ENOMEM)) != std::string::npos ? ENOMEM : EAGAIN;
        throw RunError("cannot start the engine's helper threads (oneTBB): " + what + "; " +
                       startFailureHint(err));
    }
}
} // namespace detail

/// Calls fn(chunk) for chunk in [0, chunks), in parallel.
template <class Fn>
void parallelChunks(std::int64_t chunks, Fn&& fn) {
#ifdef HWL_THREAD_SANITIZER
    for (std::int64_t c = 0; c < chunks; ++c)
        fn(c);
#else
    detail::withTbbStartHint(
        [&] { tbb::parallel_for(std::int64_t(0), chunks, [&](std::int64_t c) { fn(c); }); });
#endif
}

/// Runs a and b, in parallel when possible.
template <class A, class B>
void parallelInvoke(A&& a, B&& b) {
#ifdef HWL_THREAD_SANITIZER
    a();
    b();
#else
    detail::withTbbStartHint([&] { tbb::parallel_invoke(a, b); });
#endif
}

/// fn(begin, end) -> T over fixed chunks of [0, count), combined in order
/// with join(T&, const T&): deterministic.
template <class T, class Fn, class Join>
T parallelReduce(std::int64_t count, std::int64_t chunkSize, Fn&& fn, Join&& join) {
    const std::int64_t chunks = (count + chunkSize - 1) / chunkSize;
    std::vector<T> parts(static_cast<std::size_t>(chunks));
    parallelChunks(chunks, [&](std::int64_t c) {
        parts[std::size_t(c)] = fn(c * chunkSize, std::min(count, (c + 1) * chunkSize));
    });
    T total{};
    for (const auto& part : parts)
        join(total, part);
    return total;
}

} // namespace hwl
