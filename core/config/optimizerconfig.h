#pragma once
// The update rule an experiment asks for (optim/optimizerspec.h), made from
// its fields in this one place (config/optimizerfields.cpp, beside the
// fields): strategy/strategy.h's optimizerOf() trains with it, and
// io/optimizerstate.h names and checks the state it keeps. Private to the
// engine.
#include "config/experimentconfig.h"
#include "optim/optimizerspec.h"

namespace hwl {

/// The rule of a valid `config`: its kind, rate (config.lr, in float),
/// momentum (SGD only; 0 for the others), weight decay, and the kind's own
/// hyper-parameters, eps 0 read as the kind's default (1e-8, Adagrad 1e-10).
OptimizerSpec optimizerSpecOf(const ExperimentConfig& config);

} // namespace hwl
