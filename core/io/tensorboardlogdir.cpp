#include "io/tensorboardlogdir.h"

#include "io/tensorboardsummary.h"
#include "io/tfrecord.h"
#include "util/errors.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>

namespace hwl {

namespace fs = std::filesystem;

namespace {
/// Creates `dir` and its parents; InputError in `name`'s words otherwise.
void createLogdir(const std::string& dir, const std::string& name) {
    if (dir.empty())
        throw InputError(name + ": an empty path; name a directory for the event files");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        if (fs::exists(dir) && !fs::is_directory(dir))
            throw InputError(name + ": \"" + dir + "\" exists and is not a directory");
        throw InputError(name + ": cannot create directory \"" + dir +
                         "\": " + (ec ? ec.message() : std::string("not a directory")));
    }
}

/// `text` with what a folder name should not hold made '_'.
std::string fileNamePart(std::string text) {
    for (char& c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
            c = '_';
    return text;
}
} // namespace

std::string tensorBoardRunName(const ExperimentConfig& config, std::time_t when) {
    // The month in English whatever the locale (the window sets the user's).
    static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm local{};
    localtime_r(&when, &local);
    char time[32];
    std::snprintf(time, sizeof time, "%s%02d_%02d-%02d-%02d", kMonths[local.tm_mon % 12],
                  local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec);
    return std::string(time) + "_" + fileNamePart(config.mode) + "-" +
           std::to_string(config.workers) + "w";
}

std::string makeTensorBoardRunFolder(const std::string& logdir, const ExperimentConfig& config,
                                     std::time_t when, const std::string& name) {
    createLogdir(logdir, name);
    const std::string stem = tensorBoardRunName(config, when);
    for (int attempt = 1;; ++attempt) {
        // create_directory() is mkdir: of two runs asking at once, one gets it.
        const fs::path folder =
            fs::path(logdir) / (attempt == 1 ? stem : stem + "-" + std::to_string(attempt));
        std::error_code ec;
        if (fs::create_directory(folder, ec))
            return folder.string();
        if (ec || attempt >= 1000)
            throw InputError(name + ": cannot create directory \"" + folder.string() +
                             "\": " + (ec ? ec.message() : std::string("too many runs")));
    }
}

bool writeTensorBoardExperiment(const std::string& logdir,
                                const std::vector<ExperimentConfig>& runs, const std::string& name,
                                std::string* note) {
    createLogdir(logdir, name);
    const fs::path file = fs::path(logdir) / kTensorBoardExperimentFile;
    if (runs.empty())
        return false;
    if (fs::exists(file)) {
        std::string bytes;
        std::error_code sized;
        if (fs::file_size(file, sized) <= (std::uintmax_t(16) << 20) && !sized) {
            std::ifstream in(file, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        if (wholeRecords(bytes))
            return false;
        // Cut short by a crash, or not ours: TensorBoard would show no HParams.
        std::error_code ec;
        fs::remove(file, ec);
        if (note)
            *note = name + ": replaced " + file.string() +
                    ", which was not a whole TensorBoard event file (a run cut short while "
                    "writing it, or another program's)";
    }
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::unique_ptr<RecordWriter> writer;
    try {
        writer = std::make_unique<RecordWriter>(file); // O_EXCL: one writer only
    } catch (const InputError& e) {
        if (fs::exists(file)) // another run of the sweep was first
            return false;
        throw InputError(name + ": " + e.what());
    }
    writer->write(tbsummary::fileVersion(now));
    writer->write(tbsummary::event(
        0, now, tbsummary::hparams(tbsummary::kExperimentTag, tbsummary::experiment(runs, now))));
    writer->write(tbsummary::event(0, now, tbsummary::layout()));
    if (!writer->close())
        throw InputError(name + ": cannot write \"" + file.string() + "\": " + writer->error());
    return true;
}

} // namespace hwl
