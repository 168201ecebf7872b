// fuzz_safetensors: hwl::readSafetensors(path, &metadata) on the input as a
// safetensors file, then hwl::loadWeights(path, layout, params) on the same
// file for a fixed small model (mlp:4-3-2: tensors 0.weight [3,4], 0.bias
// [3], 2.weight [2,3], 2.bias [2]).
//
// Input: the file's bytes, as they are.
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout, an allocation
// over -malloc_limit_mb, an exception other than InputError/RunError, or a
// result that breaks the readers' contract: a tensor whose data is not
// product(shape) floats or has a negative dimension, or loadWeights
// accepting a file that readSafetensors refused (or that lacks the model's
// tensors), or writing anything but the file's values into the buffer.
#include "fuzzutil.h"
#include "io/tensorfile.h"
#include "io/weightsio.h"
#include "model/model.h"
#include "model/modelspec.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

const hwl::ParamLayout& modelLayout() {
    static const std::unique_ptr<hwl::Model> model =
        hwl::makeModel(hwl::parseModelSpec("mlp:4-3-2"));
    return model->layout();
}

void checkTensors(const std::vector<hwl::Tensor>& tensors) {
    for (const hwl::Tensor& t : tensors) {
        std::uint64_t count = 1;
        for (const std::int64_t d : t.shape) {
            HWL_FUZZ_CHECK(d >= 0);
            count *= std::uint64_t(d);
        }
        HWL_FUZZ_CHECK(t.data.size() == count);
    }
}

/// The tensor named `name` in `tensors`, or null.
const hwl::Tensor* find(const std::vector<hwl::Tensor>& tensors, const std::string& name) {
    const auto it = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const hwl::Tensor& t) { return t.name == name; });
    return it == tensors.end() ? nullptr : &*it;
}

/// loadWeights into a buffer prefilled with a canary; when it succeeds,
/// every tensor of the layout must hold the file's values, bit for bit.
void checkLoadWeights(const std::filesystem::path& file,
                      const std::optional<std::vector<hwl::Tensor>>& read) {
    const hwl::ParamLayout& layout = modelLayout();
    std::vector<float> params(std::size_t(layout.total()), -12345.0f);
    bool loaded = false;
    hwl::fuzz::expectingInputErrors([&] {
        hwl::loadWeights(file, layout, params.data());
        loaded = true;
    });
    if (!loaded)
        return;
    HWL_FUZZ_CHECK(read.has_value()); // loadWeights accepted what readSafetensors refused
    HWL_FUZZ_CHECK(read->size() == layout.tensors().size()); // "and nothing else"
    for (const hwl::ParamTensor& want : layout.tensors()) {
        const hwl::Tensor* have = find(*read, want.name);
        HWL_FUZZ_CHECK(have && have->shape == want.shape);
        HWL_FUZZ_CHECK(std::memcmp(params.data() + want.offset, have->data.data(),
                                   std::size_t(want.size) * sizeof(float)) == 0);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = hwl::fuzz::writeScratch("weights.safetensors", data, size);
    std::optional<std::vector<hwl::Tensor>> read;
    hwl::fuzz::expectingInputErrors([&] {
        std::map<std::string, std::string> metadata;
        read = hwl::readSafetensors(file, &metadata);
        checkTensors(*read);
    });
    checkLoadWeights(file, read);
    return 0;
}
