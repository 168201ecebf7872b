// fuzz_seed_weights: writes the safetensors seeds of corpus/fuzz_safetensors
// with the engine's own writer (hwl::writeSafetensors), so the corpus starts
// from exactly the files the app produces. Run by make-seeds.py; not a fuzz
// target.
//
// Usage: fuzz_seed_weights OUTDIR
#include "io/tensorfile.h"
#include "io/weightsio.h"
#include "model/model.h"
#include "model/modelspec.h"
#include "util/errors.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

/// The model `spec` initialised with `seed`, written to dir/name.
void writeModel(const std::filesystem::path& dir, const char* name, const char* spec,
                std::uint64_t seed) {
    const auto model = hwl::makeModel(hwl::parseModelSpec(spec));
    std::vector<float> params(std::size_t(model->layout().total()));
    model->initialize(params.data(), seed);
    hwl::writeSafetensors(dir / name, hwl::tensorRefs(model->layout(), params.data()),
                          {{"format", "pt"}, {"model", spec}});
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    try {
        std::filesystem::create_directories(dir);
        // The model fuzz_safetensors loads with loadWeights: accepted.
        writeModel(dir, "seed-mlp-4-3-2.safetensors", "mlp:4-3-2", 42);
        // Same names, other shapes: read, then refused as mis-shaped.
        writeModel(dir, "seed-mlp-4-2-2.safetensors", "mlp:4-2-2", 7);
        // Other names (embedding.weight, ...): missing and unexpected tensors.
        writeModel(dir, "seed-embedding-bag-6-2-2.safetensors", "embedding-bag:6-2-2", 1);
        // No tensors at all.
        hwl::writeSafetensors(dir / "seed-empty.safetensors", {});
    } catch (const hwl::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
