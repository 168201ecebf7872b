// fuzz_fields: one judgement per value, whichever road it comes by. A value
// for one experiment field is made from the input and given to the flag
// parser (parseFieldText, what `--KEY VALUE`, a sweep and the form's texts
// go through) and to the experiment file's reader (mergeJson of
// {"KEY": VALUE}); then each config is validated as a run would be.
//
// Input: byte 0 picks the field (modulo the field table), byte 1 how the
// value is made, the rest its bytes:
//   integers and seeds: a 64-bit integer (signed or not), or a run of
//     decimal digits longer than 64 bits hold;
//   numbers: a double (any bits: NaN and infinities included), written as
//     %.17g on the command line and as JSON writes it in the file;
//   switches: true or false; choices: one of the choices or free text;
//   texts: the bytes as text (ASCII without control characters, as both
//     roads can carry it).
//
// Oracle: both roads accept (parsed, and validate() finds nothing) or both
// refuse; when both accept, the two experiments are the same (toJson()).
// The one intended difference: an empty path (init, resume, out, tensorboard) is
// refused as a flag (`--out=$UNSET`) and means "none" in a file, where
// toJson() writes it so; such inputs are skipped.
//
// Failure: a crash, a sanitizer report, an exception other than InputError,
// or the roads disagreeing (__builtin_trap, after printing both answers).
#include "config/experimentconfig.h"
#include "config/fields.h"
#include "fuzzutil.h"
#include "strategy/validation.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

using hwl::ExperimentConfig;
using hwl::Field;
using hwl::FieldType;

/// The value as the command line writes it and as a file writes it; false
/// when the input makes none.
bool makeValue(const Field& f, std::uint8_t how, const std::uint8_t* p, std::size_t n,
               std::string& flag, std::string& json) {
    auto bits = [&] {
        std::uint64_t v = 0;
        std::memcpy(&v, p, std::min<std::size_t>(n, 8));
        return v;
    };
    switch (f.type) {
    case FieldType::Integer:
    case FieldType::Seed:
        if (how % 3 == 2) { // more digits than 64 bits hold
            flag = std::string(how & 4 ? "-" : "") + "1" + std::string(20 + n % 10, '0');
            json = flag;
        } else if (how % 3 == 1) {
            flag = json = std::to_string(bits());
        } else {
            const auto v = std::int64_t(bits());
            flag = json = std::to_string(how & 8 ? v % 1000 : v);
        }
        return true;
    case FieldType::Number: {
        double d = 0;
        const std::uint64_t raw = bits();
        std::memcpy(&d, &raw, sizeof d);
        if (how & 1)
            d = double(std::int64_t(raw % 2001) - 1000) / 100.0; // near the ranges
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", d);
        flag = text;
        json = nlohmann::json(d).dump();
        return true;
    }
    case FieldType::Switch:
        flag = json = how & 1 ? "true" : "false";
        return true;
    case FieldType::Choice:
        if (how & 1) {
            const auto names = f.choices();
            flag = names[bits() % names.size()];
            json = nlohmann::json(flag).dump();
            return true;
        }
        [[fallthrough]];
    case FieldType::Text:
        flag.clear();
        for (std::size_t i = 0; i < n; ++i)
            if (p[i] >= 0x20 && p[i] < 0x7f)
                flag.push_back(char(p[i]));
        if (flag.empty() && f.pathKind)
            return false; // the intended difference (see the top)
        json = nlohmann::json(flag).dump();
        return true;
    }
    return false;
}

/// Parsed and valid: the experiment's JSON; else the refusal.
struct Answer {
    bool accepted = false;
    std::string text;
};

template <class Set>
Answer judge(Set&& set) {
    ExperimentConfig c = ExperimentConfig::defaults();
    try {
        set(c);
    } catch (const hwl::InputError& e) {
        return {false, e.what()};
    }
    const auto issues = validateExperiment(c);
    if (!issues.empty())
        return {false, issues.front().field + ": " + issues.front().message};
    return {true, c.toJson()};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2)
        return 0;
    const auto& fields = hwl::experimentFields();
    const Field& f = fields[data[0] % fields.size()];
    std::string flag, json;
    if (!makeValue(f, data[1], data + 2, size - 2, flag, json))
        return 0;
    const std::string name = std::string("--") + f.key;
    const Answer byFlag =
        judge([&](ExperimentConfig& c) { f.set(c, hwl::parseFieldText(f, flag, name)); });
    const Answer byFile = judge([&](ExperimentConfig& c) {
        c.mergeJson("{\"" + std::string(f.key) + "\": " + json + "}", "fuzz");
    });
    if (byFlag.accepted != byFile.accepted || (byFlag.accepted && byFlag.text != byFile.text)) {
        std::fprintf(
            stderr, "the roads disagree on %s:\n  flag %s: %s\n    %s\n  file %s: %s\n    %s\n",
            f.key, flag.c_str(), byFlag.accepted ? "accepted" : "refused", byFlag.text.c_str(),
            json.c_str(), byFile.accepted ? "accepted" : "refused", byFile.text.c_str());
        HWL_FUZZ_CHECK(byFlag.accepted == byFile.accepted && byFlag.text == byFile.text);
    }
    return 0;
}
