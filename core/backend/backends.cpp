// The backends' registry: the CPU, then each device backend that loads and
// finds its device, then those registered at run time (registerBackend).
#include "backend/backend.h"
#include "backend/cuda/cudabackend.h"

#include <mutex>
#include <stdexcept>
#include <string>

namespace hwl {

namespace {
struct Registered {
    std::mutex mutex;
    std::vector<const Backend*> backends;
};
Registered& registered() {
    static Registered r;
    return r;
}
} // namespace

std::vector<const Backend*> backends() {
    std::vector<const Backend*> all = {&cpuBackend()};
    if (const Backend* cuda = cudaBackend())
        all.push_back(cuda);
    Registered& r = registered();
    const std::lock_guard lock(r.mutex);
    all.insert(all.end(), r.backends.begin(), r.backends.end());
    return all;
}

void registerBackend(const Backend& backend) {
    const std::string name = backend.name();
    Registered& r = registered();
    const std::lock_guard lock(r.mutex);
    bool taken = name == cpuBackend().name() || name == "cuda";
    for (const Backend* b : r.backends)
        taken = taken || name == b->name();
    if (taken)
        throw std::invalid_argument("backend \"" + name + "\" is already registered");
    r.backends.push_back(&backend);
}

std::vector<UnavailableBackend> unavailableBackends() {
    std::vector<UnavailableBackend> out;
    if (std::string why; !cudaBackend(&why))
        out.push_back({"cuda", why});
    return out;
}

} // namespace hwl
