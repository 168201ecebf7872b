#pragma once
// Mlp: Linear -> act -> ... -> Linear, softmax cross-entropy. Tensor names and
// shapes match nn.Sequential(nn.Linear, nn.ReLU, nn.Linear, ...): "0.weight"
// [out, in], "0.bias" [out], "2.weight", ... so load_state_dict takes them.
// With no hidden layer it is logistic regression ("0.weight", "0.bias").
#include "model/model.h"

namespace hwl {

class Mlp final : public Model {
public:
    explicit Mlp(const ModelSpec& spec);

    void initialize(float* params, std::uint64_t seed) const override;
    float lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                          std::int64_t n, Workspace<float>& ws) const override;
    double lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<double>& ws) const override;
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end, Workspace<float>& ws) const override;
    std::string incompatibility(const DatasetView& data) const override;
    double flopsPerSample() const override;

private:
    template <class T>
    void forward(const T* params, std::int64_t n, Workspace<T>& ws) const;
    template <class T>
    T train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
            Workspace<T>& ws) const;

    struct Layer {
        std::int64_t in, out, weight, bias; // widths and offsets
    };
    std::vector<Layer> layers_;
};

} // namespace hwl
