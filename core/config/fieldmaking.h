#pragma once
// How the field table (config/fields.cpp) makes its entries: one maker per
// field type, each reading and writing one member of ExperimentConfig, and
// the marks of who takes a field. Private to config/.
#include "config/fields.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

namespace hwl::fieldmaking {

// Accessors for the table: each field reads and writes one member.
template <class T>
inline T as(const FieldValue& v) {
    return std::get<T>(v);
}

inline Field base(const char* key, FieldType type, const char* valueName, const char* help) {
    Field f;
    f.key = key;
    f.type = type;
    f.valueName = valueName;
    f.help = help;
    return f;
}

inline Field text(const char* key, const char* valueName, const char* help,
                  std::string ExperimentConfig::*member) {
    Field f = base(key, FieldType::Text, valueName, help);
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<std::string>(v); };
    return f;
}

inline Field integer(const char* key, const char* help, int lo, int hi,
                     int ExperimentConfig::*member) {
    Field f = base(key, FieldType::Integer, "N", help);
    f.min = lo;
    f.max = hi;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(std::int64_t(c.*member)); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) {
        // Out-of-range values stay visible to validate(); clamp only what int cannot hold.
        const std::int64_t x = as<std::int64_t>(v);
        c.*member = int(std::clamp<std::int64_t>(x, INT32_MIN, INT32_MAX));
    };
    return f;
}

inline Field number(const char* key, const char* help, double lo, bool loOpen, double hi,
                    bool hiOpen, double ExperimentConfig::*member) {
    Field f = base(key, FieldType::Number, "X", help);
    f.min = lo;
    f.max = hi;
    f.minOpen = loOpen;
    f.maxOpen = hiOpen;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<double>(v); };
    return f;
}

inline Field toggle(const char* key, const char* help, const char* negation,
                    const char* negationHelp, bool ExperimentConfig::*member) {
    Field f = base(key, FieldType::Switch, nullptr, help);
    f.negation = negation;
    f.negationHelp = negationHelp;
    f.get = [member](const ExperimentConfig& c) { return FieldValue(c.*member); };
    f.set = [member](ExperimentConfig& c, const FieldValue& v) { c.*member = as<bool>(v); };
    return f;
}

/// A field whose value is one of an enum's names (toString / parse).
template <class Enum>
Field choice(const char* key, const char* valueName, const char* help,
             std::initializer_list<Enum> values, Enum ExperimentConfig::*member,
             std::optional<Enum> (*parse)(const std::string&)) {
    Field f = base(key, FieldType::Choice, valueName, help);
    std::vector<std::string> names;
    for (Enum e : values)
        names.emplace_back(toString(e));
    f.choices = [names] { return names; };
    f.get = [member](const ExperimentConfig& c) {
        return FieldValue(std::string(toString(c.*member)));
    };
    f.set = [member, parse](ExperimentConfig& c, const FieldValue& v) {
        c.*member = *parse(as<std::string>(v));
    };
    return f;
}

/// `f`, taken by the modes that take `setting` (Field::setting).
inline Field takenBy(Field f, StrategySetting setting, bool advanced = false) {
    f.setting = setting;
    f.advanced = advanced;
    return f;
}

/// `f`, which a mode judges itself or a form keeps unused (Field::refusedElsewhere).
inline Field keptElsewhere(Field f) {
    f.refusedElsewhere = false;
    return f;
}

/// `f`, whose value its mode judges itself (Field::judgedByMode).
inline Field judgedByMode(Field f) {
    f.refusedElsewhere = false;
    f.judgedByMode = true;
    return f;
}

/// The update rule and each rule's hyper-parameters (config/optimizerfields.cpp).
void addOptimizerFields(std::vector<Field>& fields);

} // namespace hwl::fieldmaking
