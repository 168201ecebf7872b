#include "data/normalize.h"

#include "util/errors.h"
#include "util/textutil.h"

#include <cmath>
#include <string_view>

namespace hwl {

namespace {

constexpr const char* kForms = "none, global, per-feature, or MEAN,STD (e.g. 0.1307,0.3081)";

/// MEAN,STD of a given setting; false when `setting` is not of that form.
bool givenPair(const std::string& setting, double& mean, double& sd) {
    const std::size_t comma = setting.find(',');
    if (comma == std::string::npos)
        return false;
    const auto m = parseNumber(std::string_view(setting).substr(0, comma));
    const auto s = parseNumber(std::string_view(setting).substr(comma + 1));
    if (!m || !s)
        return false;
    mean = *m;
    sd = *s;
    return true;
}

/// Mean and population std of each of `dim` interleaved features over
/// `rows` rows of `data` (row-major; dim 1: every value as one feature), in
/// two row-wise passes, in doubles so 47 million pixels do not lose the mean
/// to rounding. A constant feature gets std 1: it becomes 0, not a division by 0.
void moments(const float* data, std::int64_t rows, std::size_t dim, std::vector<float>& mean,
             std::vector<float>& sd) {
    std::vector<double> sum(dim, 0.0), squares(dim, 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::size_t f = 0; f < dim; ++f)
            sum[f] += data[std::size_t(r) * dim + f];
    for (double& m : sum)
        m = rows > 0 ? m / double(rows) : 0.0;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::size_t f = 0; f < dim; ++f) {
            const double d = data[std::size_t(r) * dim + f] - sum[f];
            squares[f] += d * d;
        }
    mean.resize(dim);
    sd.resize(dim);
    for (std::size_t f = 0; f < dim; ++f) {
        const double s = rows > 0 ? std::sqrt(squares[f] / double(rows)) : 0.0;
        mean[f] = float(sum[f]);
        sd[f] = s > 0 ? float(s) : 1.0f;
    }
}

} // namespace

std::string normalizeSettingProblem(const std::string& setting) {
    if (setting == "none" || setting == "global" || setting == "per-feature")
        return {};
    double mean = 0, sd = 0;
    if (!givenPair(setting, mean, sd))
        return "expected " + std::string(kForms) + ", got \"" + setting + "\"";
    if (!(sd > 0))
        return "the standard deviation in \"" + setting + "\" must be above 0";
    return {};
}

std::string sparseNormalizeRefusal(const std::string& what) {
    return what +
           " is sparse, and subtracting a mean would make every row dense; use --normalize none "
           "for sparse data";
}

Normalization normalizationFor(const std::string& setting, const Dataset& train) {
    if (const std::string why = normalizeSettingProblem(setting); !why.empty())
        throw InputError("normalize: " + why);
    Normalization n;
    n.setting = setting;
    if (setting == "none")
        return n;
    if (train.isSparse())
        throw InputError("normalize: " + sparseNormalizeRefusal(train.description));
    if (double mean = 0, sd = 0; givenPair(setting, mean, sd)) {
        n.mean = {float(mean)};
        n.stddev = {float(sd)};
    } else if (setting == "global") {
        moments(train.dense.data(), std::int64_t(train.dense.size()), 1, n.mean, n.stddev);
    } else {
        moments(train.dense.data(), train.rows, std::size_t(train.dim), n.mean, n.stddev);
    }
    return n;
}

void normalize(Dataset& data, const Normalization& n) {
    if (!n.applies() || data.dense.empty())
        return;
    const std::size_t dim = std::size_t(data.dim), stats = n.mean.size();
    for (std::size_t i = 0; i < data.dense.size(); ++i) {
        const std::size_t f = stats == 1 ? 0 : i % dim;
        data.dense[i] = (data.dense[i] - n.mean[f]) / n.stddev[f];
    }
}

Normalization normalizeSplit(DatasetSplit& split, const std::string& setting) {
    Normalization n = normalizationFor(setting, split.train);
    normalize(split.train, n);
    normalize(split.test, n);
    return n;
}

} // namespace hwl
