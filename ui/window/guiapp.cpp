#include "window/guiapp.h"

#include "window/experimentfiles.h"
#include "window/windowoptions.h"

#include "charts/trainingchart.h"
#include "preset/presets.h"
#include "teaching/racestepper.h"
#include "teaching/verdict.h"
#include "window/mainwindow.h"

#include "config/fields.h"
#include "launch/devices.h"
#include "run/workerrole.h"
#include "util/cpukernels.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QIcon>
#include <QSocketNotifier>
#include <QTimer>
#include <QUrl>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

namespace hwl::ui {

namespace {
int gSignalPipe[2] = {-1, -1};

void onStopSignal(int sig) {
    const auto byte = static_cast<unsigned char>(sig);
    (void)!::write(gSignalPipe[1], &byte, 1);
}

/// SIGINT, SIGTERM and SIGHUP (a terminal's Ctrl-C, a session's logout, a
/// service manager's stop) end the window as quitting it does: the run is
/// stopped after its step, its workers end and its segments go. The handler
/// writes the signal into a pipe that the event loop reads; the exit status
/// is 128 + the signal. SIGPIPE is ignored.
void quitOnStopSignals(QApplication& app) {
    if (::pipe2(gSignalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return; // the signals keep their default action
    auto* notifier = new QSocketNotifier(gSignalPipe[0], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app, [] {
        unsigned char byte = 0;
        if (::read(gSignalPipe[0], &byte, 1) == 1)
            QCoreApplication::exit(128 + byte);
    });
    struct sigaction stop {};
    stop.sa_handler = onStopSignal;
    sigemptyset(&stop.sa_mask);
    stop.sa_flags = SA_RESTART;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(sig, &stop, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

bool haveDisplay() {
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") ||
           std::getenv("QT_QPA_PLATFORM");
}

/// A picture of the race stepper, its order `order` (0-based, of the 20)
/// stepped to the end, instead of the window; returns the exit status.
int stepperShot(MainWindow& window, const QString& path, const QString& order) {
    bool ok = false;
    const int index = order.toInt(&ok);
    if (!ok || index < 0 || index >= int(RaceModel::interleavings().size())) {
        std::fprintf(stderr, "error: --race-order needs an order number in 0..%d\n",
                     int(RaceModel::interleavings().size()) - 1);
        return 2;
    }
    RaceStepperDialog* stepper = window.raceStepper();
    stepper->resize(900, 380);
    stepper->show();
    stepper->choose(index);
    while (!stepper->model().finished())
        stepper->stepOnce();
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    if (!stepper->grab().save(path)) {
        std::fprintf(stderr, "error: cannot write %s\n", qPrintable(path));
        return 1;
    }
    std::printf("saved %s\n", qPrintable(path));
    return 0;
}

/// "1280x720" as a size, or an invalid one.
QSize parseSize(const QString& text) {
    const QStringList parts = text.toLower().split('x');
    bool w = false, h = false;
    const QSize size = parts.size() == 2 ? QSize(parts[0].toInt(&w), parts[1].toInt(&h)) : QSize();
    return w && h && size.width() >= 320 && size.height() >= 240 && size.width() <= 8192 &&
                   size.height() <= 8192
               ? size
               : QSize();
}

/// Whether the run (a comparison: every run of it) is over and its verdict shows.
bool endedWithVerdict(const MainWindow& window) {
    return !window.controller()->busy() && window.comparisonRun() < 0 &&
           !window.verdictBanner()->isHidden();
}

/// Starts the run, saves a picture of the window `after` seconds into it
/// ("end": once the run, or the comparison, ended and its verdict shows),
/// and quits; returns the exit status.
int screenshot(QApplication& app, MainWindow& window, const QString& path, const QString& after) {
    constexpr int kMaxSeconds = 3600, kPollMs = 200, kSettleMs = 300;
    const bool atEnd = after == QLatin1String("end");
    bool ok = atEnd;
    const double seconds = atEnd ? 0 : after.toDouble(&ok);
    if (!ok || seconds < 0 || seconds > kMaxSeconds) {
        std::fprintf(stderr, "error: --after needs a number of seconds in 0..3600, or \"end\"\n");
        return 2;
    }
    window.setInteractive(false); // a run that cannot start: its banner is the picture
    QTimer::singleShot(0, &window, &MainWindow::startRun);
    int status = 0;
    const auto shoot = [&] {
        for (TrainingChart* chart : window.findChildren<TrainingChart*>())
            chart->refresh();
        // No caret in the picture: the Pace box has the focus by then.
        if (QWidget* focused = QApplication::focusWidget())
            focused->clearFocus();
        // Qt Charts lays axes out from posted events, over more than one
        // pass: let them through for a moment, or the picture shows labels
        // elided to the room of the range before ("...").
        QEventLoop settle;
        QTimer::singleShot(kSettleMs, &settle, &QEventLoop::quit);
        settle.exec();
        if (!window.grab().save(path)) {
            std::fprintf(stderr, "error: cannot write %s\n", qPrintable(path));
            status = 1;
        } else {
            std::printf("saved %s\n", qPrintable(path));
        }
        window.close();
    };
    QTimer poll;
    QElapsedTimer waited;
    if (atEnd) {
        // Until the last run's verdict shows (at most an hour): a picture of
        // the run as it ended, a comparison with all its runs.
        waited.start();
        QObject::connect(&poll, &QTimer::timeout, &window, [&] {
            if (endedWithVerdict(window) || waited.elapsed() > kMaxSeconds * 1000LL) {
                poll.stop();
                shoot();
            }
        });
        poll.start(kPollMs);
    } else {
        QTimer::singleShot(int(seconds * 1000), &window, shoot);
    }
    const int code = app.exec();
    return status ? status : code;
}

/// Whether the window has a screen to go on: the display, or offscreen
/// for what needs none (a picture, the help, the version); false with the
/// reason on stderr when there is none.
bool findScreen(int argc, char** argv) {
    // A picture, the help and the version need no screen.
    bool needNoScreen = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        needNoScreen = needNoScreen || a.rfind("--screenshot", 0) == 0 || a == "--help" ||
                       a == "-h" || a == "--help-all" || a == "--version" || a == "-v";
    }
    if (!haveDisplay()) {
        if (!needNoScreen) {
            std::fprintf(stderr,
                         "error: no display to open the window on (DISPLAY is not set).\n"
                         "Run it in a desktop session, under xvfb-run, or use --headless for "
                         "the command line.\n");
            return false;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    return true;
}

/// --screenshot: the window (or, with a race order, the race stepper) at
/// `sizeText`; returns the exit status.
int picture(QApplication& app, MainWindow& window, const QString& path, const QString& after,
            const QString& sizeText, const std::optional<QString>& raceOrder, bool presenting,
            const QString& tab) {
    const QSize size = parseSize(sizeText);
    if (!size.isValid()) {
        std::fprintf(stderr, "error: --size needs a width and a height, as 1280x720\n");
        return 2;
    }
    // In presentation only when asked, whatever the window remembers, and
    // leaving what it remembers alone.
    window.setPresentation(presenting, false);
    window.resize(size); // the same picture on any screen
    window.show();
    if (!tab.isEmpty())
        window.openTab(tab); // presentation folded it; opened once laid out
    if (raceOrder)
        return stepperShot(window, path, *raceOrder);
    return screenshot(app, window, path, after);
}

/// The description, --help and --version (own, not Qt's: it also says which
/// CPU kernels run); returns the version option.
QCommandLineOption addHelpAndVersion(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        "Hogwild Lab: a workbench for parallel SGD training. Use --headless for the command "
        "line (hogwild-lab --headless --help lists its options).");
    parser.addHelpOption();
    QCommandLineOption version({"v", "version"}, "Displays version information.");
    parser.addOption(version);
    return version;
}

/// The option `name` of the window's table (window/windowoptions.h).
QCommandLineOption windowOption(const char* name) {
    for (const WindowOption& o : kWindowOptions)
        if (QLatin1String(o.name) == QLatin1String(name))
            return o.valueName
                       ? QCommandLineOption(QString::fromLatin1(o.name), QString::fromUtf8(o.help),
                                            QString::fromLatin1(o.valueName),
                                            QString::fromLatin1(o.defaultValue))
                       : QCommandLineOption(QString::fromLatin1(o.name), QString::fromUtf8(o.help));
    std::abort(); // a name not in the table: a programming error
}

/// A flag the window does not take, refused before the window opens with
/// status 2: a flag of the command line says to add --headless; a typo gets
/// the nearest flag. Empty when every flag is the window's.
std::optional<int> refuseUnknownFlags(QCommandLineParser& parser, const QStringList& args) {
    if (parser.parse(args))
        return std::nullopt;
    const QStringList unknown = parser.unknownOptionNames();
    if (unknown.isEmpty()) { // a value missing, say
        std::fprintf(stderr, "error: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    const std::string name = unknown.first().toStdString();
    const std::string flag = (name.size() == 1 ? "-" : "--") + name;
    bool commandLine = false;
    for (const hwl::Field& f : hwl::experimentFields())
        commandLine = commandLine || name == f.key || (f.negation && name == f.negation);
    if (commandLine) {
        std::fprintf(stderr,
                     "error: %s is an option of the command line, not of the window: add "
                     "--headless (hogwild-lab --headless %s ...), or set it in the window's "
                     "form\n",
                     flag.c_str(), flag.c_str());
        return 2;
    }
    std::vector<std::string> known = {"--help", "--version", "--headless", "--compare",
                                      "--list-presets"};
    for (const WindowOption& o : kWindowOptions)
        known.push_back(std::string("--") + o.name);
    std::fprintf(stderr,
                 "error: %s: unknown option%s (hogwild-lab --help lists the window's options, "
                 "hogwild-lab --headless --help the command line's)\n",
                 flag.c_str(), hwl::didYouMeanFlag(flag, known).c_str());
    return 2;
}

/// --version's answer, or HWL_CPU_KERNELS asking for kernels this machine
/// lacks (util/cpukernels.h), said before the window opens: the exit status;
/// empty to go on.
std::optional<int> versionOrUnusableKernels(bool version) {
    if (version) {
        std::printf("Hogwild Lab %s\n%s\n", HWL_VERSION, hwl::cpuKernelsDescription().c_str());
        return 0;
    }
    try {
        hwl::cpuKernels();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    return std::nullopt;
}
} // namespace

void setDesktopIdentity() {
    QGuiApplication::setDesktopFileName(QString::fromLatin1(kAppId));
    const QString installed = QCoreApplication::applicationDirPath() +
                              QStringLiteral("/../share/icons/hicolor/scalable/apps/%1.svg")
                                  .arg(QString::fromLatin1(kAppId));
    const QIcon fallback = QFileInfo::exists(installed) ? QIcon(installed) : QIcon();
    QApplication::setWindowIcon(QIcon::fromTheme(QString::fromLatin1(kAppId), fallback));
}

QStringList filesToOpen(const QStringList& arguments) {
    QStringList files;
    for (const QString& argument : arguments) {
        const QUrl url(argument);
        files << (argument.startsWith(QLatin1String("file:")) && url.isLocalFile()
                      ? url.toLocalFile()
                      : argument);
    }
    return files;
}

int runGui(int argc, char** argv) {
    if (!findScreen(argc, argv))
        return 2;
    // The fork server must exist before Qt starts its threads.
    // This process never initialises CUDA: its forks (fork start method, the
    // late fork server) must stay safe; devices are found by a child.
    neverInitialiseCudaHere();
    if (const std::string why = startForkServer(); !why.empty())
        std::fprintf(stderr, "warning: %s; the forkserver start method is unavailable\n",
                     why.c_str());

    QApplication app(argc, argv);
    quitOnStopSignals(app);
    QApplication::setOrganizationName("HogwildLab");
    QApplication::setApplicationName("Hogwild Lab");
    QApplication::setApplicationVersion(HWL_VERSION);
    setDesktopIdentity();

    QCommandLineParser parser;
    const QCommandLineOption version = addHelpAndVersion(parser);
    const QCommandLineOption start = windowOption("start"), config = windowOption("config"),
                             preset = windowOption("preset"), shot = windowOption("screenshot"),
                             after = windowOption("after"), size = windowOption("size"),
                             raceOrder = windowOption("race-order"),
                             presenting = windowOption("presentation"), tab = windowOption("tab");
    parser.addOptions({start, config, preset, shot, after, size, raceOrder, presenting, tab});
    parser.addPositionalArgument("files", QString::fromUtf8(kWindowFilesHelp), "[FILE...]");
    if (const auto refused = refuseUnknownFlags(parser, QCoreApplication::arguments()))
        return *refused;
    parser.process(app); // --help
    if (const auto status = versionOrUnusableKernels(parser.isSet(version)))
        return *status;

    MainWindow window;
    if (QString why;
        parser.isSet(config) && !window.files()->openExperiment(parser.value(config), true, &why)) {
        std::fprintf(stderr, "error: %s\n", qPrintable(why)); // names the file and the reason
        return 2;
    }
    if (parser.isSet(preset) && !window.applyPreset(parser.value(preset))) {
        std::vector<hwl::PresetProblem> problems;
        const std::vector<hwl::Preset> all = hwl::presets(&problems);
        std::fprintf(
            stderr, "error: %s (hogwild-lab --list-presets describes them)\n",
            hwl::presetNotFound(parser.value(preset).toStdString(), all, problems).c_str());
        return 2;
    }
    // Like a drop on the window: each that cannot be opened is said and
    // skipped, and the window opens (a file manager shows no stderr).
    for (const QString& why : window.files()->openFiles(filesToOpen(parser.positionalArguments())))
        std::fprintf(stderr, "warning: %s\n", qPrintable(why));
    if (parser.isSet(tab) && !window.openTab(parser.value(tab))) {
        std::fprintf(stderr, "error: --tab takes workers, timeline, events or runs, not \"%s\"\n",
                     qPrintable(parser.value(tab)));
        return 2;
    }
    if (parser.isSet(shot))
        return picture(app, window, parser.value(shot), parser.value(after), parser.value(size),
                       parser.isSet(raceOrder) ? std::optional(parser.value(raceOrder))
                                               : std::nullopt,
                       parser.isSet(presenting), parser.value(tab));
    if (parser.isSet(presenting))
        window.setPresentation(true);
    window.show();
    if (parser.isSet(tab))
        window.openTab(parser.value(tab)); // presentation folded it; opened once laid out
    if (parser.isSet(start))
        QTimer::singleShot(0, &window, &MainWindow::startRun);
    return app.exec();
}

} // namespace hwl::ui
