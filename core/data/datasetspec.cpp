// The `--dataset` text: parsing, the canonical form, and what is known of a
// dataset's shape before it is loaded.
#include "data/datasetspec.h"

#include "util/errors.h"
#include "util/limits.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace hwl {

namespace {
using namespace limits;

const char* const kAllForms =
    "random:ROWSxDIM:CLASSES, teacher:ROWSxDIM:CLASSES[:HIDDEN], "
    "sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS], fashion-mnist, idx:DIR, csv:FILE, libsvm:FILE";

struct KindInfo {
    DatasetSpec::Kind kind;
    const char* name;
    const char* form;
    const char* example;
};

constexpr KindInfo kKinds[] = {
    {DatasetSpec::Kind::Random, "random", "random:ROWSxDIM:CLASSES", "random:10000x100:10"},
    {DatasetSpec::Kind::Teacher, "teacher", "teacher:ROWSxDIM:CLASSES[:HIDDEN]",
     "teacher:10000x100:10:32"},
    {DatasetSpec::Kind::SparseBow, "sparse-bow", "sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS]",
     "sparse-bow:10000x5000:10:20"},
    {DatasetSpec::Kind::FashionMnist, "fashion-mnist", "fashion-mnist", "fashion-mnist"},
    {DatasetSpec::Kind::Idx, "idx", "idx:DIR", "idx:/data/mnist"},
    {DatasetSpec::Kind::Csv, "csv", "csv:FILE", "csv:data.csv"},
    {DatasetSpec::Kind::Libsvm, "libsvm", "libsvm:FILE", "libsvm:data.svm"},
};

const KindInfo& info(DatasetSpec::Kind kind) {
    for (const auto& k : kKinds)
        if (k.kind == kind)
            return k;
    return kKinds[0];
}

[[noreturn]] void invalid(const std::string& text, const KindInfo& k, const std::string& why) {
    throw InputError("dataset: \"" + text + "\" is not valid: " + (why.empty() ? "" : why + "; ") +
                     "expected " + k.form + ", e.g. " + k.example);
}

/// A positive decimal integer (digits only), or nullopt.
std::optional<std::int64_t> positiveInt(std::string_view s) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range)
        return std::numeric_limits<std::int64_t>::max();
    if (ec != std::errc() || ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::int64_t field(const std::string& text, const KindInfo& k, std::string_view s, const char* name,
                   std::int64_t lo, std::int64_t hi) {
    const auto v = positiveInt(s);
    if (!v)
        invalid(text, k,
                std::string(name) + " \"" + std::string(s) + "\" is not a positive integer");
    if (*v < lo || *v > hi)
        invalid(text, k,
                std::string(name) + " must be from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + " (got " + std::string(s) + ")");
    return *v;
}

} // namespace

DatasetSpec parseDatasetSpec(const std::string& text) {
    const std::size_t colon = text.find(':');
    const std::string kindName = text.substr(0, colon);
    const KindInfo* k = nullptr;
    for (const auto& candidate : kKinds)
        if (kindName == candidate.name)
            k = &candidate;
    if (!k) {
        if (text.empty())
            throw InputError(std::string("dataset: the value is empty; expected one of ") +
                             kAllForms);
        throw InputError("dataset: \"" + text + "\" is not valid: unknown kind \"" + kindName +
                         "\"; expected one of " + kAllForms);
    }
    DatasetSpec spec;
    spec.kind = k->kind;
    const std::string rest = colon == std::string::npos ? std::string() : text.substr(colon + 1);
    switch (k->kind) {
    case DatasetSpec::Kind::FashionMnist:
        if (colon != std::string::npos)
            invalid(text, *k, "fashion-mnist takes no arguments");
        return spec;
    case DatasetSpec::Kind::Idx:
    case DatasetSpec::Kind::Csv:
    case DatasetSpec::Kind::Libsvm:
        if (rest.empty())
            invalid(text, *k,
                    k->kind == DatasetSpec::Kind::Idx ? "the directory is missing"
                                                      : "the file name is missing");
        spec.path = rest;
        return spec;
    default:
        break;
    }
    // random / teacher / sparse-bow: ROWSxDIM:CLASSES[:EXTRA]
    const auto parts = split(rest, ':');
    const bool extraAllowed = k->kind != DatasetSpec::Kind::Random;
    if (colon == std::string::npos || parts.size() < 2 || parts.size() > (extraAllowed ? 3u : 2u))
        invalid(text, *k, "");
    const auto shape = split(parts[0], 'x');
    if (shape.size() != 2)
        invalid(text, *k, "");
    const bool sparse = k->kind == DatasetSpec::Kind::SparseBow;
    spec.rows = field(text, *k, shape[0], "ROWS", 1, kMaxRows);
    spec.dim = field(text, *k, shape[1], sparse ? "VOCAB" : "DIM", 1, kMaxDim);
    spec.classes = std::int32_t(field(text, *k, parts[1], "CLASSES", 2, kMaxClasses));
    if (!sparse && spec.rows * spec.dim > kMaxDenseValues)
        invalid(text, *k,
                "ROWS x DIM = " + std::to_string(spec.rows * spec.dim) + " is more than " +
                    std::to_string(kMaxDenseValues) + " values");
    if (parts.size() == 3) {
        if (sparse)
            spec.tokens = field(text, *k, parts[2], "TOKENS", 1, kMaxTokens);
        else
            spec.hidden = field(text, *k, parts[2], "HIDDEN", 1, kMaxHidden);
    }
    return spec;
}

std::string toString(const DatasetSpec& spec) {
    const std::string name = info(spec.kind).name;
    switch (spec.kind) {
    case DatasetSpec::Kind::Random:
    case DatasetSpec::Kind::Teacher:
    case DatasetSpec::Kind::SparseBow: {
        std::string s = name + ":" + std::to_string(spec.rows) + "x" + std::to_string(spec.dim) +
                        ":" + std::to_string(spec.classes);
        if (spec.kind == DatasetSpec::Kind::Teacher)
            s += ':' + std::to_string(spec.hidden);
        if (spec.kind == DatasetSpec::Kind::SparseBow)
            s += ':' + std::to_string(spec.tokens);
        return s;
    }
    case DatasetSpec::Kind::FashionMnist:
        return name;
    case DatasetSpec::Kind::Idx:
    case DatasetSpec::Kind::Csv:
    case DatasetSpec::Kind::Libsvm:
        return name + ":" + spec.path.string();
    }
    return name;
}

bool isSyntheticKind(DatasetSpec::Kind kind) {
    return kind == DatasetSpec::Kind::Random || kind == DatasetSpec::Kind::Teacher ||
           kind == DatasetSpec::Kind::SparseBow;
}

bool isFileKind(DatasetSpec::Kind kind) {
    return kind == DatasetSpec::Kind::Idx || kind == DatasetSpec::Kind::Csv ||
           kind == DatasetSpec::Kind::Libsvm;
}

DatasetShape shapeBeforeLoading(const DatasetSpec& spec) {
    if (spec.kind == DatasetSpec::Kind::FashionMnist)
        return {784, 10, false};
    if (isSyntheticKind(spec.kind))
        return {spec.dim, spec.classes, spec.kind == DatasetSpec::Kind::SparseBow};
    return {-1, -1, spec.kind == DatasetSpec::Kind::Libsvm};
}

} // namespace hwl
