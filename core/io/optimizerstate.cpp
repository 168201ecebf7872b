#include "io/optimizerstate.h"

#include "config/optimizerconfig.h"
#include "io/tensorfile.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace hwl {

namespace {
using nlohmann::json;

constexpr const char* kFormat = "hogwild-lab optimizer state 1";

/// The optimizer's param_groups as its torch.optim state_dict() says them.
std::string paramGroups(const ExperimentConfig& c, const OptimizerSpec& spec, std::size_t tensors) {
    json params = json::array();
    for (std::size_t i = 0; i < tensors; ++i)
        params.push_back(i);
    json group = {{"lr", c.lr}, {"weight_decay", c.weightDecay}, {"maximize", false}};
    switch (spec.kind) {
    case OptimizerKind::Sgd:
        group.update({{"momentum", c.momentum}, {"dampening", 0}, {"nesterov", c.nesterov}});
        break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
        group.update(
            {{"betas", {spec.beta1, spec.beta2}}, {"eps", double(spec.eps)}, {"amsgrad", false}});
        break;
    case OptimizerKind::RmsProp:
        group.update({{"alpha", spec.alpha},
                      {"eps", double(spec.eps)},
                      {"momentum", 0},
                      {"centered", false}});
        break;
    case OptimizerKind::Adagrad:
        group.update({{"lr_decay", spec.lrDecay},
                      {"eps", double(spec.eps)},
                      {"initial_accumulator_value", double(spec.initialAccumulator)}});
        break;
    }
    group["params"] = params;
    return json::array({group}).dump();
}

/// The fields that decide which rows an epoch visits and in what order. A
/// run stopped mid-epoch resumes by skipping the updates it made, which is
/// right only while these stay as they were.
constexpr const char* kStreamFields[] = {"dataset",   "test-fraction", "shuffle", "split",
                                         "drop-last", "seed",          "batch",   "accumulate"};

json streamOf(const ExperimentConfig& c) {
    const json all = json::parse(c.toJson());
    json stream = json::object();
    for (const char* key : kStreamFields)
        stream[key] = all.at(key);
    return stream;
}

std::string valueText(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& why) {
    throw InputError("resume: " + quoted(file) + " " + why);
}

std::uint64_t whole(const json& worker, const char* key, const std::filesystem::path& file) {
    const auto it = worker.find(key);
    if (it == worker.end() || !it->is_number_unsigned())
        refuse(file, std::string("has no whole number \"") + key +
                         "\" for every worker in its \"workers\" metadata");
    return it->get<std::uint64_t>();
}

/// The workers' positions from the "workers" metadata.
std::vector<WorkerResume> positions(const std::map<std::string, std::string>& meta,
                                    const std::filesystem::path& file) {
    const auto it = meta.find("workers");
    const json list = it == meta.end() ? json() : json::parse(it->second, nullptr, false);
    if (!list.is_array() || list.empty())
        refuse(file, "has no \"workers\" metadata: is it an optimizer.safetensors that "
                     "hogwild-lab --out wrote?");
    std::vector<WorkerResume> workers;
    for (const json& w : list) {
        if (!w.is_object())
            refuse(file, "has a \"workers\" entry that is not an object");
        WorkerResume r;
        const std::uint64_t epochs = whole(w, "epochs_done", file);
        if (epochs > std::uint64_t(UINT32_MAX))
            refuse(file, "says a worker finished " + std::to_string(epochs) + " epochs");
        r.epochsDone = std::uint32_t(epochs);
        r.stepsInEpoch = whole(w, "steps_in_epoch", file);
        r.steps = whole(w, "steps", file);
        workers.push_back(std::move(r));
    }
    return workers;
}

/// Refuses a run that changes a field of the data stream while a worker
/// stopped in the middle of an epoch (files written before the stream was
/// kept are not checked).
void checkStream(const std::map<std::string, std::string>& meta,
                 const std::vector<WorkerResume>& workers, const ExperimentConfig& config,
                 const std::filesystem::path& file) {
    const auto mid = std::find_if(workers.begin(), workers.end(),
                                  [](const WorkerResume& w) { return w.stepsInEpoch > 0; });
    const auto it = meta.find("stream");
    if (mid == workers.end() || it == meta.end())
        return;
    const json saved = json::parse(it->second, nullptr, false);
    if (!saved.is_object())
        refuse(file, "has \"stream\" metadata that is not a JSON object");
    const json now = streamOf(config);
    for (const char* key : kStreamFields) {
        const auto was = saved.find(key);
        if (was == saved.end() || *was == now.at(key))
            continue;
        refuse(file, "stopped " + std::to_string(mid->stepsInEpoch) + " updates into epoch " +
                         std::to_string(mid->epochsDone + 1) + " with " + key + " " +
                         valueText(*was) + ", and this run has " + key + " " +
                         valueText(now.at(key)) + ": the rows it skips follow from " + key +
                         ", so resume with " + key + " " + valueText(*was) +
                         " (a run stopped at the end of an epoch may change it)");
    }
}

/// One state's buffers (`names`) from the tensors named for worker `rank`
/// of `n` (stateTensorName()), checked against `layout`; the tensors taken.
std::size_t buffersOf(std::vector<float>& state, const std::vector<Tensor>& tensors,
                      const std::vector<const char*>& names, const ParamLayout& layout,
                      std::uint32_t rank, std::uint32_t n, const std::filesystem::path& file) {
    const auto total = std::size_t(layout.total());
    std::size_t taken = 0;
    state.assign(total * names.size(), 0.0f);
    for (std::size_t k = 0; k < names.size(); ++k)
        for (std::size_t i = 0; i < layout.tensors().size(); ++i) {
            const ParamTensor& want = layout.tensors()[i];
            const std::string name = stateTensorName(rank, n, i, names[k]);
            const auto t = std::find_if(tensors.begin(), tensors.end(),
                                        [&](const Tensor& x) { return x.name == name; });
            if (t == tensors.end())
                refuse(file, "has no tensor \"" + name + "\" " + bracketedList(want.shape) +
                                 " (the " + names[k] + " of " + want.name + ")");
            if (t->shape != want.shape)
                refuse(file, "has tensor \"" + name + "\" of shape " + bracketedList(t->shape) +
                                 " but the model's " + want.name + " is " +
                                 bracketedList(want.shape));
            if (!std::all_of(t->data.begin(), t->data.end(),
                             [](float v) { return std::isfinite(v); }))
                refuse(file, "has tensor \"" + name +
                                 "\" holding NaN or Inf: the run it "
                                 "continues had diverged");
            std::copy(t->data.begin(), t->data.end(),
                      state.begin() + std::ptrdiff_t(k * total) + want.offset);
            ++taken;
        }
    return taken;
}

/// The state buffers (`names`): each worker's, or with `shared` the one
/// state all shared; every tensor of the file taken.
void stateOf(std::vector<WorkerResume>& workers, SharedStateResume* shared,
             const std::vector<Tensor>& tensors, const std::vector<const char*>& names,
             const ParamLayout& layout, const std::filesystem::path& file) {
    const auto n = std::uint32_t(workers.size());
    std::size_t expected = 0;
    if (shared)
        expected = buffersOf(shared->state, tensors, names, layout, 0, 1, file);
    else
        for (std::uint32_t r = 0; r < n; ++r)
            expected += buffersOf(workers[r].state, tensors, names, layout, r, n, file);
    if (tensors.size() != expected)
        refuse(file,
               "holds " + std::to_string(tensors.size()) + " tensors where " +
                   (shared ? std::string("the workers' shared state")
                           : std::to_string(n) + " worker" + (n == 1 ? "" : "s") + "' state") +
                   " makes " + std::to_string(expected));
}

/// Refuses a state kept otherwise than this run keeps it (per worker, or
/// shared); reads the shared step count into `shared`.
void checkSharing(const std::map<std::string, std::string>& meta, const ExperimentConfig& config,
                  SharedStateResume* shared, const std::filesystem::path& file) {
    const auto it = meta.find("optimizer_state");
    const std::string saved = it == meta.end() ? toString(StateSharing::PerWorker) : it->second;
    const std::string now = toString(config.optimizerState);
    if (saved != now)
        refuse(file, "holds the optimizer state of a run of --optimizer-state " + saved +
                         ", and this run has --optimizer-state " + now +
                         ": resume with --optimizer-state " + saved);
    if (config.optimizerState != StateSharing::Shared)
        return;
    if (!shared)
        throw std::logic_error("readOptimizerState: a shared state needs somewhere to go");
    const auto step = meta.find("shared_step");
    const json value =
        step == meta.end() ? json() : json::parse(step->second, nullptr, false, true);
    if (!value.is_number_unsigned())
        refuse(file, "has no whole number \"shared_step\" metadata for its shared state");
    shared->steps = value.get<std::uint64_t>();
}

/// Refuses a state of another optimizer, or one whose buffers do not fit
/// this run's (SGD with and without momentum).
void checkOptimizer(const std::map<std::string, std::string>& meta,
                    const std::vector<Tensor>& tensors, const std::vector<WorkerResume>& workers,
                    const ExperimentConfig& config, const OptimizerSpec& spec,
                    const std::filesystem::path& file) {
    // Files written before --optimizer existed are SGD's.
    const auto it = meta.find("optimizer");
    const std::string saved = it == meta.end() ? "sgd" : it->second;
    const std::string now = toString(config.optimizer);
    if (saved != now)
        refuse(file, "holds the state of optimizer " + saved + ", and this run has --optimizer " +
                         now + ": resume with --optimizer " + saved);
    const bool keeps = !spec.stateNames().empty();
    if (config.optimizer != OptimizerKind::Sgd) {
        if (tensors.empty() && workers.front().steps > 0)
            refuse(file, "holds no " + now + " state for a run that made updates");
        return;
    }
    if (keeps && tensors.empty() && workers.front().steps > 0)
        refuse(file, "holds no momentum buffers: the run it continues had --momentum 0; "
                     "resume with --momentum 0");
    if (!keeps && !tensors.empty())
        refuse(file, "holds momentum buffers, and this run has --momentum 0: resume with the "
                     "momentum of the run it continues");
}
} // namespace

std::string stateTensorName(std::uint32_t rank, std::uint32_t workers, std::size_t index,
                            const std::string& key) {
    const std::string name = "state." + std::to_string(index) + "." + key;
    return workers == 1 ? name : "worker." + std::to_string(rank) + "." + name;
}

void writeOptimizerState(const std::filesystem::path& file, const ParamLayout& layout,
                         const ExperimentConfig& config, const std::vector<WorkerResume>& workers,
                         const SharedStateResume* shared) {
    const auto n = std::uint32_t(workers.size());
    const OptimizerSpec spec = optimizerSpecOf(config);
    const std::vector<const char*> names = spec.stateNames();
    const auto total = std::size_t(layout.total());
    std::vector<TensorRef> refs;
    // One state's tensors, named for worker `r` of `of` (of 1: no prefix).
    auto add = [&](const std::vector<float>& state, std::uint32_t r, std::uint32_t of) {
        if (names.empty() || state.size() != total * names.size())
            return; // no state (SGD without momentum): PyTorch's state is empty too
        for (std::size_t k = 0; k < names.size(); ++k)
            for (std::size_t i = 0; i < layout.tensors().size(); ++i) {
                const ParamTensor& t = layout.tensors()[i];
                refs.push_back({stateTensorName(r, of, i, names[k]), t.shape,
                                state.data() + k * total + std::size_t(t.offset)});
            }
    };
    json positions = json::array();
    for (std::uint32_t r = 0; r < n; ++r) {
        const WorkerResume& w = workers[r];
        positions.push_back({{"epochs_done", w.epochsDone},
                             {"steps_in_epoch", w.stepsInEpoch},
                             {"steps", w.steps}});
        if (!shared)
            add(w.state, r, n);
    }
    std::map<std::string, std::string> meta{
        {"format", kFormat},
        {"optimizer", toString(config.optimizer)},
        {"param_groups", paramGroups(config, spec, layout.tensors().size())},
        {"workers", positions.dump()},
        {"stream", streamOf(config).dump()},
        {"model", config.model},
        {"seed", std::to_string(config.seed)}};
    if (shared) {
        add(shared->state, 0, 1);
        meta["optimizer_state"] = toString(StateSharing::Shared);
        meta["shared_step"] = std::to_string(shared->steps);
    }
    writeSafetensors(file, refs, meta);
}

std::vector<WorkerResume> readOptimizerState(const std::filesystem::path& file,
                                             const ParamLayout& layout,
                                             const ExperimentConfig& config,
                                             SharedStateResume* shared) {
    std::map<std::string, std::string> meta;
    const std::vector<Tensor> tensors = readSafetensors(file, &meta);
    if (const auto f = meta.find("format"); f == meta.end() || f->second != kFormat)
        refuse(file, "is not an optimizer state hogwild-lab wrote (its \"format\" metadata is "
                     "not \"" +
                         std::string(kFormat) + "\")");
    if (const auto m = meta.find("model"); m == meta.end() || m->second != config.model)
        refuse(file, "was saved by a run of model \"" +
                         (m == meta.end() ? std::string("?") : m->second) +
                         "\"; this run's model is \"" + config.model + "\"");
    std::vector<WorkerResume> workers = positions(meta, file);
    if (workers.size() != std::size_t(config.workers))
        refuse(file, "holds the state of " + std::to_string(workers.size()) + " worker" +
                         (workers.size() == 1 ? "" : "s") + ", and this run has " +
                         std::to_string(config.workers) + "; resume with --workers " +
                         std::to_string(workers.size()));
    checkStream(meta, workers, config, file);
    const OptimizerSpec spec = optimizerSpecOf(config);
    checkOptimizer(meta, tensors, workers, config, spec, file);
    checkSharing(meta, config, shared, file);
    const bool isShared = config.optimizerState == StateSharing::Shared;
    if (!tensors.empty())
        stateOf(workers, isShared ? shared : nullptr, tensors, spec.stateNames(), layout, file);
    const auto least = std::min_element(workers.begin(), workers.end(), [](auto& a, auto& b) {
        return a.epochsDone < b.epochsDone;
    });
    if (least->epochsDone >= std::uint32_t(config.epochs))
        refuse(file,
               "ends after " + std::to_string(least->epochsDone) +
                   " epochs, and this run "
                   "asks for " +
                   std::to_string(config.epochs) +
                   " in all: --epochs counts from the start, so ask for more (e.g. --epochs " +
                   std::to_string(least->epochsDone * 2) + ")");
    return workers;
}

} // namespace hwl
