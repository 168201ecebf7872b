// NCCL loaded at run time (nccl.h). Where it is searched, in order:
//  1. HWL_NCCL_LIBRARY (a file path), when set;
//  2. libnccl.so.2 by name: the dynamic loader's path (LD_LIBRARY_PATH, the
//     ldconfig cache, the system folders);
//  3. the CUDA toolkit's library folders (/usr/local/cuda/lib64 and the
//     like), where the Debian and NVIDIA packages put it;
//  4. Python wheels (nvidia-nccl-cu*: .../site-packages/nvidia/nccl/lib),
//     where PyTorch's machines have it and nowhere else.
// The first file that loads and has every function wins; when none does,
// the error names every place searched.
#include "cuda/nccl.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <unistd.h>

namespace hwl::cuda::module {

namespace {

constexpr const char* kSoname = "libnccl.so.2";

/// The places to look, in order: {what to dlopen or glob, whether it is a
/// glob pattern, how the error names it}.
struct Place {
    std::string file;
    bool pattern;
    std::string label;
};

std::vector<Place> places() {
    std::vector<Place> out;
    if (const char* env = std::getenv("HWL_NCCL_LIBRARY"); env && *env)
        out.push_back({env, false, std::string("HWL_NCCL_LIBRARY=") + env});
    out.push_back(
        {kSoname, false, std::string(kSoname) + " (the loader's path: LD_LIBRARY_PATH, ldconfig)"});
    for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib",
                            "/usr/local/cuda/targets/x86_64-linux/lib"})
        out.push_back({std::string(dir) + "/" + kSoname, false, std::string(dir) + "/" + kSoname});
    for (const char* dir :
         {"/usr/local/cuda-*/lib64", "/usr/local/cuda-*/targets/x86_64-linux/lib"})
        out.push_back({std::string(dir) + "/" + kSoname, true, std::string(dir) + "/" + kSoname});
    const std::string wheel = std::string("/nvidia/nccl/lib/") + kSoname;
    std::vector<std::string> sites = {
        "/usr/lib/python3*/site-packages", "/usr/lib/python3*/dist-packages",
        "/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
        "/opt/*/lib/python3*/site-packages"};
    if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv)
        sites.insert(sites.begin(), std::string(venv) + "/lib/python3*/site-packages");
    if (const char* home = std::getenv("HOME"); home && *home)
        sites.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
    for (const std::string& site : sites)
        out.push_back({site + wheel, true, site + wheel});
    return out;
}

/// The files a pattern matches, in glob's (sorted) order.
std::vector<std::string> matches(const std::string& pattern) {
    std::vector<std::string> out;
    glob_t g{};
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (std::size_t i = 0; i < g.gl_pathc; ++i)
            out.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    return out;
}

/// The path the loader chose for `handle` (a name may resolve anywhere).
std::string loadedPath(void* handle, const std::string& fallback) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        return map->l_name;
    return fallback;
}

template <class Fn>
bool resolve(void* handle, const char* name, Fn& fn, std::string& missing) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn)
        missing += (missing.empty() ? "" : ", ") + std::string(name);
    return fn != nullptr;
}

/// Loads `file` and resolves every function; empty when it worked, else why not.
std::string tryLoad(const std::string& file, Nccl& n) {
    if (file.find('/') != std::string::npos && access(file.c_str(), F_OK) != 0)
        return "absent";
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        std::string why = e ? e : "dlopen failed";
        if (why.rfind(file + ": ", 0) == 0) // dlerror names the file, as the list does
            why.erase(0, file.size() + 2);
        return why;
    }
    std::string missing;
    resolve(handle, "ncclGetVersion", n.getVersion, missing);
    resolve(handle, "ncclGetErrorString", n.getErrorString, missing);
    resolve(handle, "ncclCommInitAll", n.commInitAll, missing);
    resolve(handle, "ncclAllReduce", n.allReduce, missing);
    resolve(handle, "ncclGroupStart", n.groupStart, missing);
    resolve(handle, "ncclGroupEnd", n.groupEnd, missing);
    resolve(handle, "ncclCommFinalize", n.commFinalize, missing);
    resolve(handle, "ncclCommDestroy", n.commDestroy, missing);
    resolve(handle, "ncclCommAbort", n.commAbort, missing);
    resolve(handle, "ncclCommGetAsyncError", n.commGetAsyncError, missing);
    if (!missing.empty()) {
        dlclose(handle);
        return "lacks " + missing + " (an NCCL older than 2.14?)";
    }
    if (n.getVersion(&n.version) != ncclSuccess)
        n.version = 0;
    n.path = loadedPath(handle, file);
    return {};
}

struct Loaded {
    Nccl nccl;
    bool ok = false;
    std::string why;
};

Loaded load() {
    Loaded out;
    std::string tried;
    auto note = [&](const std::string& what) { tried += (tried.empty() ? "" : "; ") + what; };
    for (const Place& place : places()) {
        if (!place.pattern) {
            const std::string why = tryLoad(place.file, out.nccl);
            if (why.empty()) {
                out.ok = true;
                return out;
            }
            note(place.label + ": " + why);
            continue;
        }
        const std::vector<std::string> files = matches(place.file);
        if (files.empty())
            note(place.label + ": no match");
        for (const std::string& file : files) {
            const std::string why = tryLoad(file, out.nccl);
            if (why.empty()) {
                out.ok = true;
                return out;
            }
            note(file + ": " + why);
        }
    }
    out.nccl = Nccl{};
    out.why = "searched " + tried +
              ". Set HWL_NCCL_LIBRARY to the path of libnccl.so.2 (pip install nvidia-nccl-cu13 "
              "puts it in site-packages/nvidia/nccl/lib)";
    return out;
}

const Loaded& loaded() {
    static const Loaded once = load(); // thread-safe
    return once;
}

} // namespace

const Nccl* loadNccl(std::string* why) {
    const Loaded& l = loaded();
    if (!l.ok && why)
        *why = l.why;
    return l.ok ? &l.nccl : nullptr;
}

const Nccl& nccl() {
    std::string why;
    const Nccl* n = loadNccl(&why);
    if (!n)
        throw std::runtime_error("NCCL (needed for more than one GPU) not found: " + why);
    return *n;
}

std::string ncclStatus() {
    std::string why;
    const Nccl* n = loadNccl(&why);
    if (!n)
        return "NCCL not found: " + why;
    const int v = n->version;
    const std::string version =
        v >= 10000 ? std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                         std::to_string(v % 100)
                   : std::to_string(v / 1000) + "." + std::to_string(v / 100 % 10) + "." +
                         std::to_string(v % 100);
    return "NCCL " + version + " (" + n->path + ")";
}

} // namespace hwl::cuda::module
