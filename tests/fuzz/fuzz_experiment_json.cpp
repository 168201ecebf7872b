// fuzz_experiment_json: ExperimentConfig::mergeJson(text, "fuzz") over the
// defaults, then validate() and toJson(), as the CLI and the GUI do with an
// experiment file.
//
// Input: the JSON text, as it is.
//
// Oracle (the round trip): when the merge succeeded, the config's toJson()
// merged into a fresh ExperimentConfig::defaults() must be accepted and
// give the same toJson() text again, whether or not validate() found issues.
// When the merge failed, the config must be the defaults still (mergeJson
// merges into a copy: a bad field changes nothing).
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout, an allocation
// over -malloc_limit_mb, an exception other than InputError/RunError, or a
// failed round trip (__builtin_trap).
#include "config/experimentconfig.h"
#include "fuzzutil.h"
#include "strategy/validation.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    hwl::ExperimentConfig config = hwl::ExperimentConfig::defaults();
    bool merged = false;
    hwl::fuzz::expectingInputErrors([&] {
        config.mergeJson(text, "fuzz");
        merged = true;
    });
    (void)validateExperiment(config);
    const std::string json = config.toJson();
    if (!merged) {
        static const std::string defaults = hwl::ExperimentConfig::defaults().toJson();
        HWL_FUZZ_CHECK(json == defaults); // a refused merge changed the config
        return 0;
    }
    hwl::ExperimentConfig again = hwl::ExperimentConfig::defaults();
    bool reread = false;
    hwl::fuzz::expectingInputErrors([&] {
        again.mergeJson(json, "round trip");
        reread = true;
    });
    HWL_FUZZ_CHECK(reread); // toJson() wrote what mergeJson() refuses
    if (const std::string second = again.toJson(); second != json) {
        std::fprintf(stderr, "round trip changed the config:\n--- toJson()\n%s--- merged back\n%s",
                     json.c_str(), second.c_str());
        HWL_FUZZ_CHECK(second == json);
    }
    return 0;
}
