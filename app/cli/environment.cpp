#include "cli/environment.h"

#include "mpi/launcherenv.h"
#include "run/outputfolder.h"

namespace hwl {

namespace {
std::vector<EnvironmentVariable> userVariables();
} // namespace

const std::vector<EnvironmentVariable>& environmentVariables() {
    static const std::vector<EnvironmentVariable> table = [] {
        std::vector<EnvironmentVariable> all = userVariables();
        // The launchers' variables, from the table the rank is read by
        // (mpi/launcherenv.h), in the order they are looked at.
        for (const mpi::LauncherVariable& v : mpi::launcherVariables())
            all.push_back({v.name.c_str(), v.value.c_str(), v.meaning.c_str()});
        all.insert(
            all.end(),
            {
                {"HWL_TEST_CRASH_AT", "K",
                 "for the crash tests: kill this process at the K-th step that makes a run's files "
                 "durable (util/persistence.h)"},
                {"HWL_TEST_FAIL_AT", "K", "for the crash tests: fail that K-th step with ENOSPC"},
                {"HWL_TEST_TRACE_PERSISTENCE", "1",
                 "for the crash tests: list those steps on stderr"},
                {"HWL_SWEEP_PARENT", "PID",
                 "set by --sweep-parallel for each run it starts: the run dies with that sweep"},
            });
        return all;
    }();
    return table;
}

namespace {
/// The variables a user sets.
std::vector<EnvironmentVariable> userVariables() {
    return {
        {"HWL_FASHION_MNIST_DIR", "DIR",
         "where the dataset fashion-mnist is read from, instead of Debian's "
         "/usr/share/datasets/fashion-mnist"},
        {"HWL_CPU_KERNELS", "builtin, x86-64-v3 or x86-64-v4",
         "run these CPU kernels, or stop with status 2 when this processor or this install lacks "
         "them; unset, the engine takes the widest the processor runs"},
        {"HWL_CPU_MAX_LEVEL", "1 to 4",
         "behave as on a processor of at most this x86-64 level (for tests)"},
        {"HWL_CUDA_MODULE", "FILE",
         "the CUDA module (libhwl_cuda.so) to load, before the places it is looked for: beside "
         "the executable, ../lib beside it, the build tree"},
        {"HWL_NCCL_LIBRARY", "FILE",
         "libnccl.so.2 for a run on more than one GPU, before the loader's path, the CUDA "
         "toolkit's folders and a Python wheel's nvidia/nccl/lib"},
        {"HWL_DEVICE_REPORT", "FILE",
         "a device probe's report saved earlier, believed instead of probing the GPUs"},
        {"HWL_SHM_FREE_BYTES", "N",
         "take /dev/shm to have at most N bytes free: a run that shares more between its "
         "processes puts its segments in anonymous memory files instead (for tests)"},
        {"XDG_DATA_HOME", "DIR",
         "the user's presets (hogwild-lab/presets/) and the window's run list "
         "(HogwildLab/Hogwild Lab/runs.json); default ~/.local/share"},
        {"XDG_DATA_DIRS", "DIR:DIR...",
         "more folders whose hogwild-lab/presets/ holds presets; default "
         "/usr/local/share:/usr/share"},
        {"XDG_CONFIG_HOME", "DIR", "the window's settings; default ~/.config"},
        {"HOME", "DIR",
         "the defaults above, and a user's Python packages searched for NCCL "
         "(~/.local/lib/python3*/site-packages)"},
        {"VIRTUAL_ENV", "DIR", "a Python environment searched first for NCCL's wheel"},
        {"TMPDIR", "DIR", "where temporary files go (an absolute path; default /tmp)"},
        {"PATH", "DIR:DIR...", "where mpirun is looked for (--transport mpi)"},
        {"DISPLAY", "NAME",
         "with WAYLAND_DISPLAY and QT_QPA_PLATFORM: the display the window opens on; with none "
         "set, hogwild-lab without --headless says so and exits with status 2"},
        {"WAYLAND_DISPLAY", "NAME", "a Wayland display for the window (see DISPLAY)"},
        {"QT_QPA_PLATFORM", "NAME",
         "Qt's platform for the window: xcb, wayland, or offscreen (no display, for "
         "--screenshot)"},
    };
}
} // namespace

namespace {
/// "weights.safetensors, ..., summary.json": what OutputFolder writes.
std::string outputList() {
    std::string out;
    for (const std::string& name : outputFileNames())
        out += (out.empty() ? "" : ", ") + name;
    return out;
}
} // namespace

const std::vector<ProgramFile>& programFiles() {
    static const std::vector<ProgramFile> table{
        {"~/.config/HogwildLab/Hogwild Lab.conf",
         "the window's settings: recent files, the last experiment started, the theme, the "
         "charts shown, the TensorBoard folder, presentation"},
        {"~/.local/share/HogwildLab/Hogwild Lab/runs.json",
         "the window's run list (at most 1,000 runs; a damaged one is set aside as runs.json.bad)"},
        {"~/.local/share/hogwild-lab/presets/",
         "the user's presets, ID.json and ID.html; then hogwild-lab/presets/ in each folder of "
         "$XDG_DATA_DIRS"},
        {"/usr/share/hogwild-lab/experiments/", "example experiment files for --config"},
        {"/usr/share/datasets/fashion-mnist/",
         "the dataset fashion-mnist (Debian's dataset-fashion-mnist; see HWL_FASHION_MNIST_DIR)"},
        {"DIR/ (--out DIR)", "a run's outputs: " + outputList() +
                                 " (the weights and the optimizer's state where the run has "
                                 "them); a sweep adds sweep.csv and one folder per run"},
        {"DIR/ (--tensorboard DIR)", "TensorBoard event files, events.out.tfevents.*"},
    };
    return table;
}

} // namespace hwl
