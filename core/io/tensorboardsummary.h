#pragma once
// The summaries TensorBoard's plugins read, built as its own Python writes
// them (io/tensorboard.proto declares the messages): the hparams plugin's
// (tensorboard/plugins/hparams/summary.py: plugin "hparams", its
// HParamsPluginData as the metadata's content, a null tensor as the value)
// and the custom_scalars plugin's layout (plugins/custom_scalar/summary.py:
// tag custom_scalars__config__, the Layout as a string tensor). Private to
// io/tensorboardlog.cpp and io/tensorboardlogdir.cpp.
#include "config/experimentconfig.h"
#include "io/tensorboard.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl::tbsummary {

inline constexpr const char* kExperimentTag = "_hparams_/experiment";
inline constexpr const char* kSessionStartTag = "_hparams_/session_start_info";
inline constexpr const char* kSessionEndTag = "_hparams_/session_end_info";
inline constexpr const char* kLayoutTag = "custom_scalars__config__";

/// One Event record's bytes: `summary` at `step` and `wall` (seconds since 1970).
std::string event(std::int64_t step, double wall, const tb::Summary& summary);
/// The first record of an event file: its version, "brain.Event:2".
std::string fileVersion(double wall);

/// A summary of the hparams plugin under `tag`.
tb::Summary hparams(const char* tag, const tb::HParamsPluginData& data);
/// The experiment of `runs`: every field of the field table but where a run
/// writes as an hparam (differs where two runs hold two values), the final/
/// figures (io/runstable.h) as its metrics.
tb::HParamsPluginData experiment(const std::vector<ExperimentConfig>& runs, double wall);
/// A session's start: the values of `config`'s hparams.
tb::HParamsPluginData sessionStart(const ExperimentConfig& config, double wall);

/// The custom_scalars layout: the workers' curves of one figure on one
/// chart (a regular expression over the per-worker tags).
tb::Summary layout();

} // namespace hwl::tbsummary
