#pragma once
// The update rules an experiment may ask for (--optimizer), by the names
// the command line and JSON take. Part of the engine's public API (the
// experiment's field); what each rule does is optim/optimizerspec.h's.
#include <optional>
#include <string>

namespace hwl {

enum class OptimizerKind { Sgd, Adam, AdamW, RmsProp, Adagrad };
/// "sgd", "adam", "adamw", "rmsprop", "adagrad".
const char* toString(OptimizerKind k);
std::optional<OptimizerKind> parseOptimizerKind(const std::string& text);

} // namespace hwl
