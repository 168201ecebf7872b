#include "optim/optimizerspec.h"

namespace hwl {

namespace {
constexpr OptimizerKind kKinds[] = {OptimizerKind::Sgd, OptimizerKind::Adam, OptimizerKind::AdamW,
                                    OptimizerKind::RmsProp, OptimizerKind::Adagrad};
}

const char* toString(OptimizerKind k) {
    switch (k) {
    case OptimizerKind::Sgd:
        return "sgd";
    case OptimizerKind::Adam:
        return "adam";
    case OptimizerKind::AdamW:
        return "adamw";
    case OptimizerKind::RmsProp:
        return "rmsprop";
    case OptimizerKind::Adagrad:
        return "adagrad";
    }
    return "?";
}

std::optional<OptimizerKind> parseOptimizerKind(const std::string& text) {
    for (OptimizerKind k : kKinds)
        if (text == toString(k))
            return k;
    return std::nullopt;
}

double torchDefaultLr(OptimizerKind k) {
    switch (k) {
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
        return 1e-3;
    case OptimizerKind::RmsProp:
    case OptimizerKind::Adagrad:
        return 1e-2;
    case OptimizerKind::Sgd:
        break;
    }
    return 0;
}

double defaultEps(OptimizerKind k) {
    return k == OptimizerKind::Adagrad ? 1e-10 : 1e-8;
}

const char* toString(StateSharing s) {
    return s == StateSharing::Shared ? "shared" : "per-worker";
}

std::optional<StateSharing> parseStateSharing(const std::string& text) {
    for (StateSharing s : {StateSharing::PerWorker, StateSharing::Shared})
        if (text == toString(s))
            return s;
    return std::nullopt;
}

std::vector<const char*> OptimizerSpec::stateNames() const {
    switch (kind) {
    case OptimizerKind::Sgd:
        return sgd.momentum > 0 ? std::vector<const char*>{"momentum_buffer"}
                                : std::vector<const char*>{};
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
        return {"exp_avg", "exp_avg_sq"};
    case OptimizerKind::RmsProp:
        return {"square_avg"};
    case OptimizerKind::Adagrad:
        return {"sum"};
    }
    return {};
}

} // namespace hwl
