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
/// torch.optim 1.13's default learning rate of the rule: Adam and AdamW
/// 0.001, RMSprop and Adagrad 0.01; 0 for SGD, which has none.
double torchDefaultLr(OptimizerKind k);
/// The rule's default eps, which --eps 0 stands for: Adagrad 1e-10, the
/// others 1e-8 (SGD takes none).
double defaultEps(OptimizerKind k);

/// Where a Hogwild run keeps the optimizer's state (--optimizer-state):
/// PerWorker, each worker its own buffers and step count (PyTorch's
/// mnist_hogwild, whose workers each build their optimizer); Shared, one
/// set of buffers and one step count beside the shared parameters, which
/// every worker updates without a lock as it does the parameters (the
/// SharedAdam of A3C implementations).
enum class StateSharing { PerWorker, Shared };
/// "per-worker", "shared".
const char* toString(StateSharing s);
std::optional<StateSharing> parseStateSharing(const std::string& text);

} // namespace hwl
