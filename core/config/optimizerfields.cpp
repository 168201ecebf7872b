#include "config/fieldmaking.h"
#include "config/optimizerconfig.h"

namespace hwl::fieldmaking {

namespace {
bool sgdOptimizer(const ExperimentConfig& c) {
    return c.optimizer == OptimizerKind::Sgd;
}
bool adamOptimizer(const ExperimentConfig& c) {
    return c.optimizer == OptimizerKind::Adam || c.optimizer == OptimizerKind::AdamW;
}
bool adaptiveOptimizer(const ExperimentConfig& c) {
    return c.optimizer != OptimizerKind::Sgd;
}
bool rmspropOptimizer(const ExperimentConfig& c) {
    return c.optimizer == OptimizerKind::RmsProp;
}
bool adagradOptimizer(const ExperimentConfig& c) {
    return c.optimizer == OptimizerKind::Adagrad;
}
/// An optimizer that keeps state (OptimizerSpec::stateNames() not empty).
bool statefulOptimizer(const ExperimentConfig& c) {
    return c.optimizer != OptimizerKind::Sgd || c.momentum > 0;
}

/// `f`, for the optimizers `needs` accepts (Field::needs).
Field forOptimizer(Field f, bool (*needs)(const ExperimentConfig&), const char* text) {
    f.needs = needs;
    f.needsText = text;
    return f;
}

} // namespace

/// The update rule and the hyper-parameters each rule takes, with torch.optim 1.13's defaults.
void addOptimizerFields(std::vector<Field>& fields) {
    using C = ExperimentConfig;
    using K = OptimizerKind;
    fields.push_back(choice("optimizer", "O",
                            "the update rule, as torch.optim 1.13 applies it, each worker "
                            "with its own state: sgd | adam | adamw (decoupled weight decay) | "
                            "rmsprop | adagrad",
                            {K::Sgd, K::Adam, K::AdamW, K::RmsProp, K::Adagrad}, &C::optimizer,
                            &parseOptimizerKind));
    const char* sgd = "--optimizer sgd";
    fields.push_back(forOptimizer(
        number("momentum", "SGD momentum", 0, false, 1, true, &C::momentum), &sgdOptimizer, sgd));
    fields.push_back(forOptimizer(toggle("nesterov", "SGD: Nesterov momentum (needs momentum > 0)",
                                         nullptr, nullptr, &C::nesterov),
                                  &sgdOptimizer, sgd));
    fields.push_back(number("weight-decay",
                            "L2 penalty added to the gradient\n(adamw: decoupled, p *= 1 - lr * "
                            "weight-decay; torch's AdamW default is 0.01)",
                            0, false, 1, false, &C::weightDecay));
    const char* adam = "--optimizer adam or adamw";
    fields.push_back(forOptimizer(
        number("beta1", "the first moment's decay (betas[0])", 0, false, 1, true, &C::beta1),
        &adamOptimizer, adam));
    fields.push_back(forOptimizer(
        number("beta2", "the second moment's decay (betas[1])", 0, false, 1, true, &C::beta2),
        &adamOptimizer, adam));
    fields.push_back(forOptimizer(number("eps",
                                         "the term added to the denominator; 0: the "
                                         "optimizer's default, 1e-8 (adagrad 1e-10)",
                                         0, false, 1, false, &C::eps),
                                  &adaptiveOptimizer,
                                  "--optimizer adam, adamw, rmsprop or adagrad"));
    fields.push_back(
        forOptimizer(number("alpha", "RMSprop's smoothing constant", 0, false, 1, true, &C::alpha),
                     &rmspropOptimizer, "--optimizer rmsprop"));
    const char* adagrad = "--optimizer adagrad";
    fields.push_back(
        forOptimizer(number("lr-decay", "Adagrad's rate decay: lr / (1 + (step - 1) * lr-decay)", 0,
                            false, 1, false, &C::lrDecay),
                     &adagradOptimizer, adagrad));
    fields.push_back(forOptimizer(number("initial-accumulator",
                                         "Adagrad's initial_accumulator_value (the sum's start)", 0,
                                         false, 100, false, &C::initialAccumulator),
                                  &adagradOptimizer, adagrad));
    Field sharing = takenBy(
        choice("optimizer-state", "WHERE",
               "per-worker | shared: where the Hogwild modes keep the optimizer's state\n"
               "per-worker (the default, as before the option): each worker its own moments "
               "and step count, as PyTorch's mnist_hogwild; shared: one copy beside the shared "
               "parameters, updated without a lock like them, one step count for all "
               "(A3C's SharedAdam)",
               {StateSharing::PerWorker, StateSharing::Shared}, &C::optimizerState,
               &parseStateSharing),
        StrategySetting::SharedState);
    fields.push_back(forOptimizer(sharing, &statefulOptimizer,
                                  "an optimizer that keeps state (sgd with momentum above 0, "
                                  "adam, adamw, rmsprop, adagrad)"));
}

} // namespace hwl::fieldmaking

namespace hwl {

OptimizerSpec optimizerSpecOf(const ExperimentConfig& config) {
    OptimizerSpec s;
    s.kind = config.optimizer;
    const bool sgd = s.kind == OptimizerKind::Sgd;
    s.sgd = {float(config.lr), sgd ? float(config.momentum) : 0.0f, float(config.weightDecay)};
    s.nesterov = sgd && config.nesterov;
    s.beta1 = config.beta1;
    s.beta2 = config.beta2;
    s.eps = float(config.eps > 0 ? config.eps : defaultEps(s.kind));
    s.alpha = config.alpha;
    s.lrDecay = config.lrDecay;
    s.initialAccumulator = float(config.initialAccumulator);
    return s;
}

} // namespace hwl
