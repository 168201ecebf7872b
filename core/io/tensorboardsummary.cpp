#include "io/tensorboardsummary.h"

#include "config/fields.h"
#include "io/runstable.h"

#include <set>
#include <utility>

namespace hwl::tbsummary {

namespace {
/// The value of field `f` in `config` as HParams takes it, and its type.
std::pair<tb::Value, tb::DataType> hparamValue(const Field& f, const ExperimentConfig& config) {
    const FieldValue v = f.get(config);
    tb::Value out;
    if (const bool* b = std::get_if<bool>(&v)) {
        out.set_bool_value(*b);
        return {out, tb::DATA_TYPE_BOOL};
    }
    if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) {
        out.set_number_value(double(*i));
        return {out, tb::DATA_TYPE_FLOAT64};
    }
    if (const double* d = std::get_if<double>(&v)) {
        out.set_number_value(*d);
        return {out, tb::DATA_TYPE_FLOAT64};
    }
    // The seed (64 bits, more than a double holds exactly) and the texts.
    out.set_string_value(f.valueText(config));
    return {out, tb::DATA_TYPE_STRING};
}

/// The workers' tags of one figure: loss/train/worker_0, loss/train/worker_1...
tb::Chart* workersChart(tb::Category* category, const char* title, const char* prefix) {
    tb::Chart* chart = category->add_chart();
    chart->set_title(title);
    chart->mutable_multiline()->add_tag(std::string("^") + prefix + "/worker_[0-9]+$");
    return chart;
}
} // namespace

std::string event(std::int64_t step, double wall, const tb::Summary& summary) {
    tb::Event e;
    e.set_wall_time(wall);
    e.set_step(step);
    *e.mutable_summary() = summary;
    return e.SerializeAsString();
}

std::string fileVersion(double wall) {
    tb::Event version;
    version.set_wall_time(wall);
    version.set_file_version("brain.Event:2");
    return version.SerializeAsString();
}

tb::Summary hparams(const char* tag, const tb::HParamsPluginData& data) {
    tb::Summary summary;
    tb::Summary::Value* v = summary.add_value();
    v->set_tag(tag);
    tb::SummaryMetadata::PluginData* plugin = v->mutable_metadata()->mutable_plugin_data();
    plugin->set_plugin_name("hparams");
    plugin->set_content(data.SerializeAsString());
    // metadata.NULL_TENSOR: an empty float vector, so that the summary is a
    // tensor time series, which is what the plugin lists.
    tb::TensorProto* tensor = v->mutable_tensor();
    tensor->set_dtype(tb::DT_FLOAT);
    tensor->mutable_tensor_shape()->add_dim()->set_size(0);
    return summary;
}

tb::HParamsPluginData experiment(const std::vector<ExperimentConfig>& runs, double wall) {
    tb::HParamsPluginData data;
    tb::Experiment* ex = data.mutable_experiment();
    ex->set_time_created_secs(wall);
    for (const Field& f : experimentFields()) {
        if (f.output || runs.empty()) // where the run writes, not a hyper-parameter
            continue;
        std::set<std::string> values;
        for (const ExperimentConfig& config : runs)
            values.insert(f.valueText(config));
        tb::HParamInfo* h = ex->add_hparam_infos();
        h->set_name(f.key);
        h->set_type(hparamValue(f, runs.front()).second);
        h->set_differs(values.size() > 1);
    }
    for (const RunFigure& figure : runFigures())
        if (figure.value)
            ex->add_metric_infos()->mutable_name()->set_tag(std::string("final/") + figure.column);
    return data;
}

tb::HParamsPluginData sessionStart(const ExperimentConfig& config, double wall) {
    tb::HParamsPluginData data;
    tb::SessionStartInfo* info = data.mutable_session_start_info();
    info->set_start_time_secs(wall);
    info->set_model_uri(config.out);
    for (const Field& f : experimentFields())
        if (!f.output)
            (*info->mutable_hparams())[f.key] = hparamValue(f, config).first;
    return data;
}

tb::Summary layout() {
    tb::Layout layout;
    tb::Category* workers = layout.add_category();
    workers->set_title("Workers");
    workersChart(workers, "training loss, every worker", "loss/train");
    workersChart(workers, "epoch loss, every worker", "loss/epoch");
    workersChart(workers, "samples per second, every worker", "samples_per_second");
    workersChart(workers, "divergence, every worker", "divergence");
    tb::Summary summary;
    tb::Summary::Value* v = summary.add_value();
    v->set_tag(kLayoutTag);
    v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("custom_scalars");
    tb::TensorProto* tensor = v->mutable_tensor(); // a string scalar: no dimensions
    tensor->set_dtype(tb::DT_STRING);
    tensor->mutable_tensor_shape();
    tensor->add_string_val(layout.SerializeAsString());
    return summary;
}

} // namespace hwl::tbsummary
