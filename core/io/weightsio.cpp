#include "io/weightsio.h"

#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hwl {

std::vector<TensorRef> tensorRefs(const ParamLayout& layout, const float* params) {
    std::vector<TensorRef> refs;
    for (const auto& t : layout.tensors())
        refs.push_back({t.name, t.shape, params + t.offset});
    return refs;
}

void loadWeights(const std::filesystem::path& file, const ParamLayout& layout, float* params,
                 const std::string& field) {
    const auto tensors = readSafetensors(file);
    std::vector<std::string> problems;
    for (const auto& want : layout.tensors()) {
        const auto it = std::find_if(tensors.begin(), tensors.end(),
                                     [&](const Tensor& t) { return t.name == want.name; });
        if (it == tensors.end())
            problems.push_back("missing tensor \"" + want.name + "\" " + bracketedList(want.shape));
        else if (it->shape != want.shape)
            problems.push_back("tensor \"" + want.name + "\" has shape " +
                               bracketedList(it->shape) + " but the model needs " +
                               bracketedList(want.shape));
        else if (const auto bad = std::find_if(it->data.begin(), it->data.end(),
                                               [](float v) { return !std::isfinite(v); });
                 bad != it->data.end())
            problems.push_back("tensor \"" + want.name + "\" holds " +
                               (std::isnan(*bad) ? "NaN" : "Inf") + " at element " +
                               std::to_string(bad - it->data.begin()) +
                               ": training cannot start from it (was it saved after the "
                               "run diverged?)");
    }
    for (const auto& have : tensors) {
        const bool known = std::any_of(layout.tensors().begin(), layout.tensors().end(),
                                       [&](const ParamTensor& t) { return t.name == have.name; });
        if (!known)
            problems.push_back("unexpected tensor \"" + have.name + "\" " +
                               bracketedList(have.shape));
    }
    if (!problems.empty()) {
        std::string message =
            field + ": weights file " + quoted(file) + " cannot start this model:";
        for (const auto& p : problems)
            message += "\n  " + p;
        throw InputError(message);
    }
    for (const auto& want : layout.tensors()) {
        const auto it = std::find_if(tensors.begin(), tensors.end(),
                                     [&](const Tensor& t) { return t.name == want.name; });
        std::memcpy(params + want.offset, it->data.data(), std::size_t(want.size) * sizeof(float));
    }
}

} // namespace hwl
