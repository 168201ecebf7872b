// What the open window costs training: figures, no pass/fail.
//
// (a) Chart upkeep: one TrainingChart with 16 worker series (shown, offscreen
//     when there is no display) fed as the live window feeds it — 16 points per
//     series per 40 ms tick — up to 1,000,000 points per series. At 10%, 50%
//     and 100% of that history it times refresh() per tick (mean and max) and
//     the repaint that follows (the event loop's work), and gives the CPU share
//     of one core at 25 Hz, and how much the process's resident memory grew
//     (each series keeps at most TrainingChart::kRawPointLimit points). Also
//     the one-off full recompute a smoothing change costs at 1e6 points.
// (b) End to end: a threads experiment run headless (hwl::Run and a plain
//     drain loop, as the CLI does), in a MainWindow that exists but is not
//     shown, and in a shown MainWindow (started through its form and
//     startRun(), Pace at full speed), alternating, several times each;
//     median samples/s (RunSummary::samplesPerSecond) and the ratios to
//     headless. Two experiments: the blog's MLP on random data, and the
//     default experiment (the Fashion-MNIST MLP) at 2 workers.
//
// Usage: gui_overhead [--quick]   (--quick: about 20 s instead of ~2 min)
#include "charts/trainingchart.h"
#include "config/experimentconfig.h"
#include "form/experimentform.h"
#include "io/metricslog.h"
#include "run/run.h"
#include "run/workerrole.h"
#include "runs/runcontroller.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSpinBox>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

using hwl::ui::ChartSample;
using hwl::ui::TrainingChart;

namespace {

std::string cpuModel() {
    QFile f("/proc/cpuinfo");
    if (f.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> lines = f.readAll().split('\n');
        for (const QByteArray& line : lines)
            if (line.startsWith("model name"))
                return line.mid(line.indexOf(':') + 1).trimmed().toStdString();
    }
    return "unknown CPU";
}

// The process's resident memory in MiB (VmRSS), or -1.
double rssMiB() {
    QFile f("/proc/self/status");
    if (f.open(QIODevice::ReadOnly))
        for (const QByteArray& line : f.readAll().split('\n'))
            if (line.startsWith("VmRSS:"))
                return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
    return -1;
}

// Lets the event loop run (layout, repaint) for about `ms` milliseconds.
void pumpEvents(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

// Point i of worker w: a decaying, noisy loss (deterministic noise).
ChartSample point(int w, qint64 i) {
    std::uint64_t h =
        std::uint64_t(i) * 0x9e3779b97f4a7c15ull + std::uint64_t(w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    const double noise = double(h >> 11) / double(1ull << 53) - 0.5;
    ChartSample s;
    s.step = double(i);
    s.samples = 32.0 * double(i);
    s.time = 0.0005 * double(i);
    s.value = (1.0 + 0.1 * w) * std::exp(-double(i) / 3e5) + 0.2 + 0.1 * noise;
    return s;
}

struct Timing {
    double meanMs = 0, maxMs = 0;
    void add(double ms, int count) {
        meanMs += ms / count;
        maxMs = std::max(maxMs, ms);
    }
};

void chartUpkeep(bool quick) {
    constexpr int kSeries = 16;
    constexpr qint64 kTotal = 1'000'000;
    constexpr int kPerTick = 16; // points per series per 40 ms tick
    const int ticks = quick ? 100 : 300;

    TrainingChart chart("Loss per worker", "loss");
    chart.resize(1000, 420); // about the loss chart in a 1400x900 window
    chart.show();
    pumpEvents(200);
    chart.setWorkerCount(kSeries, false);
    chart.setSmoothing(0.6); // the window's default
    chart.refresh();

    std::printf("(a) chart upkeep: %d series, %d points per series per tick, smoothing 0.6, "
                "chart %dx%d, %d buckets\n",
                kSeries, kPerTick, chart.width(), chart.height(), chart.bucketCount());
    const double rssBefore = rssMiB();
    std::printf("    %-9s %-8s %-21s %-21s %-13s %-21s %s\n", "history", "ticks",
                "refresh() mean/max", "repaint mean/max", "CPU @25Hz", "(refresh + repaint)",
                "RSS growth");

    qint64 have = 0;
    auto appendUpTo = [&](qint64 target, qint64 batch) {
        while (have < target) {
            const qint64 end = std::min(target, have + batch);
            for (int w = 0; w < kSeries; ++w) {
                QList<ChartSample> pts;
                pts.reserve(end - have);
                for (qint64 i = have; i < end; ++i)
                    pts.append(point(w, i));
                chart.appendPoints(w, pts);
            }
            have = end;
            if (batch == kPerTick)
                return;
        }
    };

    for (const double fraction : {0.1, 0.5, 1.0}) {
        const qint64 target = qint64(fraction * double(kTotal));
        // The history before the measured ticks, in big batches (untimed; in
        // the window it arrives tick by tick at the cost measured below).
        appendUpTo(target - qint64(ticks) * kPerTick, 1 << 16);
        chart.refresh();
        pumpEvents(50);

        Timing refresh, repaint;
        QElapsedTimer t;
        for (int k = 0; k < ticks; ++k) {
            appendUpTo(have + kPerTick, kPerTick);
            t.start();
            chart.refresh();
            refresh.add(double(t.nsecsElapsed()) / 1e6, ticks);
            t.start();
            QCoreApplication::processEvents(); // the repaint the refresh asked for
            repaint.add(double(t.nsecsElapsed()) / 1e6, ticks);
        }
        std::printf("    %-9s %-8d %6.3f / %6.3f ms     %6.3f / %6.3f ms     %5.2f%% core   "
                    "%5.2f%% core           %+.1f MiB\n",
                    qPrintable(QString("%1 pts").arg(have)), ticks, refresh.meanMs, refresh.maxMs,
                    repaint.meanMs, repaint.maxMs, refresh.meanMs * 25 / 10,
                    (refresh.meanMs + repaint.meanMs) * 25 / 10, rssMiB() - rssBefore);
    }
    QElapsedTimer t;
    t.start();
    chart.setSmoothing(0.61); // a user action: everything is recomputed
    std::printf("    one-off full recompute after a smoothing change at %lld pts/series: "
                "%.1f ms\n",
                static_cast<long long>(have), double(t.nsecsElapsed()) / 1e6);
    std::printf("    displayed points per series: %lld (raw %lld)\n",
                static_cast<long long>(chart.displayedPoints(0).size()),
                static_cast<long long>(chart.rawPoints(0).size()));
    std::fflush(stdout);
}

hwl::ExperimentConfig experiment(int epochs) {
    hwl::ExperimentConfig c;
    c.model = "mlp:100-256-10";
    c.dataset = "random:10000x100:10";
    c.mode = "threads";
    c.workers = 2;
    c.split = hwl::DataSplit::Replicate;
    c.epochs = epochs;
    c.lr = 0.01;
    c.momentum = 0;
    c.testFraction = 0.1;
    c.out.clear();
    return c;
}

double runHeadless(const hwl::ExperimentConfig& config) {
    hwl::Run run(config);
    run.prepare();
    hwl::MetricsLog log;
    run.start();
    while (!run.wait(std::chrono::milliseconds(100)))
        log.drain(run.telemetry());
    log.drain(run.telemetry());
    return run.summary().samplesPerSecond;
}

/// CPU seconds the calling thread has used.
double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

/// The run's samples/s in a window; `guiShare`: the GUI thread's CPU time
/// over the run's wall time (a share of one core), loading included.
double runInWindow(const hwl::ExperimentConfig& config, bool shown, double* guiShare = nullptr) {
    hwl::ui::MainWindow window;
    if (shown) {
        window.show();
        pumpEvents(300);
    }
    window.form()->setConfig(config);
    // Full speed: a fresh window takes the default preset's pace.
    if (auto* pace = window.findChild<QSpinBox*>(QStringLiteral("pace")))
        pace->setValue(0);
    if (!window.form()->isValid()) {
        std::fprintf(stderr, "the form rejects the experiment\n");
        return 0;
    }
    QEventLoop loop;
    double rate = 0;
    QObject::connect(window.controller(), &hwl::ui::RunController::finished, &loop,
                     [&](const hwl::RunSummary& s) {
                         rate = s.samplesPerSecond;
                         loop.quit();
                     });
    QObject::connect(window.controller(), &hwl::ui::RunController::failedToStart, &loop,
                     [&](const QString& message) {
                         std::fprintf(stderr, "could not start: %s\n", qPrintable(message));
                         loop.quit();
                     });
    const double cpu0 = threadCpuSeconds();
    QElapsedTimer wall;
    wall.start();
    window.startRun();
    loop.exec();
    pumpEvents(50); // the final refresh and repaint
    if (guiShare)
        *guiShare = (threadCpuSeconds() - cpu0) / (double(wall.nsecsElapsed()) / 1e9);
    return rate;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void endToEnd(const hwl::ExperimentConfig& config, bool quick) {
    const int repeats = quick ? 3 : 5;
    std::printf("(b) end to end: %s on %s, %s, %d workers, %d epochs, lr %g, "
                "momentum %g; %d runs each, alternating\n",
                config.model.c_str(), config.dataset.c_str(), config.mode.c_str(), config.workers,
                config.epochs, config.lr, config.momentum, repeats);
    std::vector<double> headless, hidden, shown, gui;
    for (int r = 0; r < repeats; ++r) {
        headless.push_back(runHeadless(config));
        hidden.push_back(runInWindow(config, false));
        gui.push_back(0);
        shown.push_back(runInWindow(config, true, &gui.back()));
        std::printf("    run %d: headless %.0f, window hidden %.0f, window shown %.0f samples/s "
                    "(its GUI thread: %.1f%% of a core)\n",
                    r + 1, headless.back(), hidden.back(), shown.back(), 100 * gui.back());
        std::fflush(stdout);
    }
    const double h = median(headless), w0 = median(hidden), w1 = median(shown);
    std::printf("    median samples/s: headless %.0f, window hidden %.0f, window shown %.0f\n", h,
                w0, w1);
    std::printf("    ratio window shown / headless: %.4f (%+.2f%%); hidden / headless: %.4f "
                "(%+.2f%%); the shown window's GUI thread: median %.1f%% of a core\n",
                w1 / h, 100 * (w1 / h - 1), w0 / h, 100 * (w0 / h - 1), 100 * median(gui));
}

} // namespace

int main(int argc, char** argv) {
    int code = 0;
    if (hwl::runWorkerRoleIfRequested(argc, argv, code))
        return code;
    bool quick = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // Keep the window's saved geometry and recent files apart from the app's.
    QCoreApplication::setOrganizationName("hogwild-lab-bench");
    QCoreApplication::setApplicationName("gui-overhead");

    std::printf("gui_overhead%s: %s, %u hardware threads, Qt platform %s\n",
                quick ? " --quick" : "", cpuModel().c_str(), std::thread::hardware_concurrency(),
                qPrintable(QGuiApplication::platformName()));
    std::fflush(stdout);
    QElapsedTimer total;
    total.start();
    chartUpkeep(quick);
    // 10 epochs of the blog's workload take ~0.15 s on a 2-core EPYC (~1.4M
    // samples/s): too short to see a 2% difference through start-up and
    // noise, so the runs are longer (about 1 s with --quick, 4 s without).
    endToEnd(experiment(quick ? 60 : 250), quick);
    // The default experiment (the window's first): 60,000 images an epoch.
    hwl::ExperimentConfig fashion = hwl::ExperimentConfig::defaults();
    fashion.mode = "threads";
    fashion.workers = 2;
    fashion.epochs = quick ? 2 : 5;
    fashion.out.clear();
    fashion.tensorboard.clear();
    endToEnd(fashion, quick);
    std::printf("total %.1f s\n", double(total.elapsed()) / 1000);
    return 0;
}
