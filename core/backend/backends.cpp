// The backends' registry: the CPU, then each device backend that loads and
// finds its device (a backend added later is one more line in each list).
#include "backend/backend.h"
#include "backend/cuda/cudabackend.h"

namespace hwl {

std::vector<const Backend*> backends() {
    std::vector<const Backend*> all = {&cpuBackend()};
    if (const Backend* cuda = cudaBackend())
        all.push_back(cuda);
    return all;
}

std::vector<UnavailableBackend> unavailableBackends() {
    std::vector<UnavailableBackend> out;
    if (std::string why; !cudaBackend(&why))
        out.push_back({"cuda", why});
    return out;
}

} // namespace hwl
