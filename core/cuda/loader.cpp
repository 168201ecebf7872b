// The engine's side of the CUDA module (cuda.h, api.h): the module is
// dlopened the first time anything here needs it, so a process that never
// does (the window, a CPU run, a spawn worker of one) maps no CUDA library.
// Built into hwl_engine in every build; without the module (HWL_HAVE_CUDA
// unset) each call says why.
#include "cuda/api.h"
#include "util/fileio.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace hwl::cuda {

namespace {

[[maybe_unused]] constexpr const char* kModuleFile = "libhwl_cuda.so";

std::atomic<bool> gInitialised{false};

struct Loaded {
    const Api* api = nullptr;
    std::string where; ///< the file loaded, or why none was
};

#ifdef HWL_HAVE_CUDA
/// Where the module may be: HWL_CUDA_MODULE, else where every module of the
/// engine may be (util/fileio.h), this build's folder last.
std::vector<std::string> candidates() {
    if (const char* env = std::getenv("HWL_CUDA_MODULE"); env && *env)
        return {env};
    return moduleCandidates(kModuleFile, HWL_CUDA_MODULE_BUILD_DIR);
}
#endif

Loaded load() {
#ifndef HWL_HAVE_CUDA
    return {nullptr, std::string("not built: ") + HWL_CUDA_MISSING};
#else
    std::string tried;
    for (const std::string& file : candidates()) {
        if (access(file.c_str(), F_OK) != 0) {
            tried += (tried.empty() ? "" : ", ") + file + " (absent)";
            continue;
        }
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            // The module is there but a library it needs is not (cuBLAS,
            // the CUDA runtime): the loader's own words name it.
            const char* e = dlerror();
            return {nullptr, "the CUDA backend " + file +
                                 " could not be loaded: " + (e ? e : "unknown error") +
                                 " (put the CUDA toolkit's lib64 folder on LD_LIBRARY_PATH)"};
        }
        using Entry = const Api* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, HWL_CUDA_API_SYMBOL));
        const Api* table = entry ? entry() : nullptr;
        if (!table)
            return {nullptr, "the CUDA backend " + file + " has no " HWL_CUDA_API_SYMBOL};
        if (table->version != kApiVersion)
            return {nullptr, "the CUDA backend " + file + " is of another version (table " +
                                 std::to_string(table->version) + ", this program expects " +
                                 std::to_string(kApiVersion) + "): it belongs to another build"};
        return {table, file};
    }
    return {nullptr, "the CUDA backend " + std::string(kModuleFile) + " was not found (" + tried +
                         "; set HWL_CUDA_MODULE to its path)"};
#endif
}

const Loaded& loaded() {
    static const Loaded once = load(); // thread-safe; the module is never unloaded
    return once;
}

/// The table, for a call that initialises CUDA in this process (recorded
/// first: a fork after it is refused whether or not the call succeeds).
const Api& need() {
    gInitialised.store(true);
    std::string why;
    const Api* table = api(&why);
    if (!table)
        throw std::runtime_error(why);
    return *table;
}

} // namespace

const Api* api(std::string* why) {
    const Loaded& l = loaded();
    if (!l.api && why)
        *why = l.where;
    return l.api;
}

std::string moduleStatus() {
    const Loaded& l = loaded();
    return l.api ? "CUDA backend: " + l.where : l.where;
}

bool initialisedHere() {
    return gInitialised.load();
}

DeviceReport initialise() {
    gInitialised.store(true);
    std::string why;
    if (const Api* table = api(&why))
        return table->initialise();
    DeviceReport report;
    report.error = "no CUDA device: " + why;
    return report;
}

std::string tryCudaInForkedChild(int timeoutMs) {
    std::string why;
    const Api* table = api(&why);
    return table ? table->tryCudaInForkedChild(timeoutMs) : why;
}

std::string ncclOneRankCheck() {
    gInitialised.store(true);
    std::string why;
    const Api* table = api(&why);
    return table ? table->ncclOneRankCheck() : why;
}

std::string ncclStatus() {
    std::string why;
    const Api* table = api(&why);
    return table ? table->ncclStatus() : "NCCL not loaded: " + why;
}

double timeReplicaReduce(std::int64_t params, int replicas, int repeats) {
    return need().timeReplicaReduce(params, replicas, repeats);
}

std::unique_ptr<ReplicaTrainer> ReplicaTrainer::create(const ReplicaSettings& settings,
                                                       const HostData& train) {
    return need().makeReplicaTrainer(settings, train);
}

std::unique_ptr<Evaluator> Evaluator::create(const MlpShape& mlp, const BagShape* bag,
                                             const HostData& test) {
    return need().makeEvaluator(mlp, bag, test);
}

std::unique_ptr<HogwildTrainer> HogwildTrainer::create(const HogwildSettings& settings,
                                                       const HostData& train) {
    return need().makeHogwildTrainer(settings, train);
}

std::unique_ptr<StepRunner> StepRunner::create(const MlpShape& mlp, const HostData& train,
                                               int maxRows) {
    return need().makeStepRunner(mlp, train, maxRows);
}

} // namespace hwl::cuda
