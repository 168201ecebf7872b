#pragma once
// std::vector with 64-byte aligned storage. Eigen's vectorised loops peel a
// different number of leading elements depending on a buffer's alignment,
// which changes the order of floating-point sums; with every buffer the
// kernels touch aligned the same way, a run is bit-for-bit reproducible
// (one Hogwild worker == serial) regardless of where malloc put things.
#include <cstddef>
#include <new>
#include <vector>

namespace hwl {

template <class T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::size_t kAlignment = 64;
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlignment)));
    }
    void deallocate(T* p, std::size_t) noexcept {
        ::operator delete(p, std::align_val_t(kAlignment));
    }
    template <class U>
    bool operator==(const AlignedAllocator<U>&) const noexcept {
        return true;
    }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

} // namespace hwl
