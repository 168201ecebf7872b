#pragma once
// One backend against the CPU reference (ggml's test-backend-ops style), with
// no Qt: tst_backends runs it for every backend of a build, and the Qt-free
// GPU test (tst_gpu, carried by the device bundle) for the CUDA backend. On
// the same parameters and batches the backend's step kernel must give the
// reference's loss and gradient (the double-precision CPU kernel), its SGD
// update the reference update, and its evaluation the reference loss and
// accuracy, within a normalised error bound.
#include "backend/backend.h"
#include "backend/cpu/modelkernel.h"
#include "data/datasources.h"
#include "model/model.h"

#include "enginetestutil.h"

#include <cmath>
#include <numeric>
#include <string>

namespace hwl::test {

/// The models every backend is checked on.
inline const std::vector<std::string>& referenceCases() {
    static const std::vector<std::string> names = {"mlp relu",           "mlp tanh",
                                                   "mlp sigmoid",        "logistic regression",
                                                   "mlp on sparse rows", "embedding bag"};
    return names;
}

struct ReferenceCase {
    std::unique_ptr<Model> model;
    Dataset data;
};

inline ReferenceCase makeReferenceCase(const std::string& name) {
    if (name == "mlp relu")
        return {makeModel(parseModelSpec("mlp:20-32-16-5")), makeTeacher(256, 20, 5, 8, 3)};
    if (name == "mlp tanh")
        return {makeModel(parseModelSpec("mlp:20-32-5:tanh")), makeTeacher(256, 20, 5, 8, 4)};
    if (name == "mlp sigmoid")
        return {makeModel(parseModelSpec("mlp:20-32-5:sigmoid")), makeTeacher(256, 20, 5, 8, 5)};
    if (name == "logistic regression")
        return {makeModel(parseModelSpec("mlp:20-5")), makeTeacher(256, 20, 5, 8, 6)};
    if (name == "mlp on sparse rows")
        return {makeModel(parseModelSpec("mlp:200-16-4")), makeSparseBow(256, 200, 4, 10, 7)};
    return {makeModel(parseModelSpec("embedding-bag:300-8-4")), makeSparseBow(256, 300, 4, 10, 8)};
}

/// A gradient scattered into the flat buffer (segments may repeat offsets).
template <class T>
std::vector<double> denseGradient(const Gradient<T>& g, std::int64_t total) {
    std::vector<double> out(std::size_t(total), 0.0);
    for (const auto& seg : g.segments)
        for (std::int64_t i = 0; i < seg.length; ++i)
            out[std::size_t(seg.offset + i)] += double(g.values[std::size_t(seg.valueIndex + i)]);
    return out;
}

constexpr double kReferenceBound = 1e-5; // float against double, normalised

inline bool within(double got, double want) {
    return std::abs(got - want) <= kReferenceBound * std::max(1.0, std::abs(want));
}

/// Three batches' loss and gradient, then one update, checked; empty when
/// they match, else what differs.
inline std::string checkStepAgainstReference(StepKernel& kernel, const ReferenceCase& c,
                                             std::vector<float>& params, const SgdSettings& sgd) {
    const DatasetView data = c.data.view();
    const std::int64_t total = c.model->layout().total();
    const std::vector<double> paramsD(params.begin(), params.end());
    const auto reference = makeModelKernel(*c.model);
    std::vector<std::int64_t> rows(32);
    for (int batch = 0; batch < 3; ++batch) {
        std::iota(rows.begin(), rows.end(), std::int64_t(batch * 37));
        Workspace<double> ws;
        const double want = reference->lossAndGradient(paramsD.data(), data, rows.data(), 32, ws);
        const float got = kernel.lossAndGradient(params.data(), rows.data(), 32);
        if (!within(got, want))
            return "loss " + std::to_string(got) + " vs " + std::to_string(want);
        const double err =
            normalisedError(denseGradient(kernel.gradient(), total), denseGradient(ws.grad, total));
        if (!(err < kReferenceBound))
            return "gradient error " + std::to_string(err);
    }
    // The update: the reference rule in double from the same gradient (the
    // first step of momentum: v = g + wd p; p -= lr v).
    const std::vector<double> g = denseGradient(kernel.gradient(), total);
    std::vector<double> expected(paramsD);
    std::vector<bool> touched(std::size_t(total), false);
    for (const auto& seg : kernel.gradient().segments)
        for (std::int64_t i = 0; i < seg.length; ++i)
            touched[std::size_t(seg.offset + i)] = true;
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (touched[i])
            expected[i] -= double(sgd.lr) * (g[i] + double(sgd.weightDecay) * paramsD[i]);
    kernel.update(params.data(), UpdateAccess::Private);
    const std::vector<double> after(params.begin(), params.end());
    if (!(normalisedError(after, expected) < kReferenceBound))
        return "update differs from the rule";
    for (std::size_t i = 0; i < after.size(); ++i)
        if (!touched[i] && after[i] != paramsD[i])
            return "parameter " + std::to_string(i) + " changed though no gradient touched it";
    return {};
}

/// The backend's evaluation over every row against the reference mean loss.
inline std::string checkEvaluationAgainstReference(const Backend& be, const ReferenceCase& c,
                                                   const std::vector<float>& params) {
    const DatasetView data = c.data.view();
    const EvalResult eval = be.evaluate(*c.model, params.data(), data);
    if (eval.count != data.rows)
        return "evaluated " + std::to_string(eval.count) + " of " + std::to_string(data.rows) +
               " rows";
    std::vector<std::int64_t> all(std::size_t(data.rows));
    std::iota(all.begin(), all.end(), std::int64_t(0));
    const std::vector<double> now(params.begin(), params.end());
    Workspace<double> ws;
    const double meanLoss =
        makeModelKernel(*c.model)->lossAndGradient(now.data(), data, all.data(), data.rows, ws);
    if (!within(eval.meanLoss(), meanLoss))
        return "evaluation loss " + std::to_string(eval.meanLoss()) + " vs " +
               std::to_string(meanLoss);
    if (eval.correct < 0 || eval.correct > eval.count)
        return "correct count " + std::to_string(eval.correct) + " out of range";
    return {};
}

/// The whole check of backend `be` on case `name`: empty when it matches.
inline std::string checkAgainstReference(const Backend& be, const std::string& name) {
    const ReferenceCase c = makeReferenceCase(name);
    std::vector<float> params(static_cast<std::size_t>(c.model->layout().total()), 0.0f);
    c.model->initialize(params.data(), 11);
    const SgdSettings sgd{0.1f, 0.9f, 0.01f};
    auto kernel = be.makeKernel(*c.model, c.data.view(), sgd, 0, 1);
    if (std::string why = checkStepAgainstReference(*kernel, c, params, sgd); !why.empty())
        return why;
    return checkEvaluationAgainstReference(be, c, params);
}

} // namespace hwl::test
