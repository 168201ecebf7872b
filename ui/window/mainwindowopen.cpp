// MainWindow's files opened: by what they are (an experiment, a run,
// initial weights), from the command line, dropped on the window, or from
// File > Open recent. One place decides what a file is, so that every way in
// opens it alike and refuses it with the same message.
#include "window/mainwindow.h"

#include "form/experimentform.h"

#include "io/tensorfile.h"
#include "util/limits.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace hwl::ui {

namespace {

/// QSettings key of the recent files. Its name is from when it held only
/// experiments; kept so that the lists people have carry over.
const QString kRecentKey = QStringLiteral("recentExperiments");
constexpr int kStatusMs = 15000; ///< how long a refusal stays in the status bar

enum class FileKind { Experiment, Run, Weights, Unknown };

FileKind kindOf(const QFileInfo& file) {
    if (file.isDir())
        return FileKind::Run; // a --out folder
    const QString suffix = file.suffix().toLower();
    if (suffix == QLatin1String("json"))
        return FileKind::Experiment;
    if (suffix == QLatin1String("csv"))
        return FileKind::Run;
    if (suffix == QLatin1String("safetensors"))
        return FileKind::Weights;
    return FileKind::Unknown;
}

/// The local files among dropped URLs (a drop of web links opens nothing).
QStringList localFiles(const QMimeData* mime) {
    QStringList paths;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile())
                paths << url.toLocalFile();
    return paths;
}

/// Takes drops of files on any widget of the window: a chart's view or the
/// event log would otherwise take the drop themselves, or refuse it, and
/// the window under them would never see it. Installed on the application,
/// so it sees the events before the widget under the mouse does.
class FileDropFilter : public QObject {
public:
    explicit FileDropFilter(MainWindow* window) : QObject(window), window_(window) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        const QEvent::Type type = event->type();
        if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop)
            return false;
        if (!inWindow(qobject_cast<QWidget*>(watched)))
            return false;
        auto* drop = static_cast<QDropEvent*>(event); // DragEnter and DragMove are QDropEvents
        const QStringList paths = localFiles(drop->mimeData());
        if (paths.isEmpty())
            return false;
        drop->setDropAction(Qt::CopyAction);
        drop->accept();
        // After the drop returns: the file manager that dragged them is not
        // kept waiting while the files load.
        if (type == QEvent::Drop)
            QTimer::singleShot(0, window_, [window = window_, paths] { window->openFiles(paths); });
        return true;
    }

private:
    bool inWindow(const QWidget* widget) const {
        for (; widget; widget = widget->parentWidget())
            if (widget == window_)
                return true;
        return false;
    }

    MainWindow* window_;
};

} // namespace

void MainWindow::acceptFileDrops() {
    setAcceptDrops(true); // the window is a drop target wherever the mouse is
    qApp->installEventFilter(new FileDropFilter(this));
}

bool MainWindow::openFile(const QString& path, bool quiet, QString* why) {
    const QFileInfo file(path);
    QString reason;
    bool opened = false;
    if (!file.exists())
        reason = tr("Cannot open %1: there is no such file or folder").arg(path);
    else {
        switch (kindOf(file)) {
        case FileKind::Experiment:
            opened = openExperiment(path, quiet, &reason);
            break;
        case FileKind::Run:
            opened = openRun(path, quiet, &reason);
            break;
        case FileKind::Weights:
            opened = openWeights(path, quiet, &reason);
            break;
        case FileKind::Unknown:
            reason = tr("Cannot open %1: the window opens experiments (.json), runs (metrics.csv "
                        "or a --out folder) and initial weights (.safetensors)")
                         .arg(path);
            break;
        }
        if (!opened && reason.isEmpty()) // cannot happen: each opener says why
            reason = tr("Cannot open %1").arg(path);
    }
    if (opened)
        return true;
    if (why)
        *why = reason;
    if (!file.exists() || kindOf(file) == FileKind::Unknown) {
        logEvent(reason, true); // the openers log their own refusals
        if (!quiet)
            QMessageBox::warning(this, tr("Open"), reason);
    }
    statusBar()->showMessage(reason, kStatusMs);
    return false;
}

QStringList MainWindow::openFiles(const QStringList& paths) {
    // Experiments first: an experiment file sets every field, its `init`
    // too, so weights given with it would be forgotten if they came first.
    QStringList ordered = paths;
    std::stable_partition(ordered.begin(), ordered.end(), [](const QString& path) {
        return kindOf(QFileInfo(path)) == FileKind::Experiment;
    });
    QStringList failed;
    for (const QString& path : ordered)
        if (QString why; !openFile(path, true, &why))
            failed << why;
    return failed;
}

bool MainWindow::openWeights(const QString& path, bool quiet, QString* why) {
    QString error;
    if (controller_->busy())
        error = tr("Initial weights are set once the run ends: stop it first, then open %1 "
                   "again.")
                    .arg(path);
    else {
        try {
            // Read whole, so a broken file is refused now, not at Start.
            (void)readSafetensors(path.toStdString());
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
    }
    if (!error.isEmpty()) {
        if (why)
            *why = error;
        if (!quiet)
            QMessageBox::warning(this, tr("Open initial weights"), error);
        logEvent(error, true);
        return false;
    }
    ExperimentConfig config = form_->config();
    config.init = QFileInfo(path).absoluteFilePath().toStdString();
    form_->setConfig(config);
    addRecent(path);
    logEvent(tr("Initial weights: %1. The next run starts from them instead of a seeded "
                "initialisation (File > Forget initial weights undoes it)")
                 .arg(path));
    return true;
}

bool MainWindow::continueRun(const QString& dir, bool quiet, QString* why) {
    QString error;
    for (const char* name : {"experiment.json", "optimizer.safetensors"})
        if (error.isEmpty() && !QFileInfo(QDir(dir).filePath(QLatin1String(name))).isFile())
            error = tr("Cannot continue %1: it holds no %2. Runs of mode serial, threads or "
                       "threads-locked written with --out keep what a run continues from")
                        .arg(dir, QLatin1String(name));
    if (!error.isEmpty()) {
        if (why)
            *why = error;
        if (!quiet)
            QMessageBox::warning(this, tr("Continue a run"), error);
        logEvent(error, true);
        return false;
    }
    if (!openExperiment(QDir(dir).filePath("experiment.json"), quiet, why))
        return false;
    ExperimentConfig config = form_->config();
    config.init.clear(); // the run's own weights come with it
    config.resume = QFileInfo(dir).absoluteFilePath().toStdString();
    config.epochs = std::min(2 * config.epochs, limits::kMaxEpochs);
    form_->setConfig(config);
    logEvent(tr("The next run continues %1: its weights, momentum and place in the data. "
                "Epochs counts from its start (now %2); File > Forget the run to continue "
                "undoes it")
                 .arg(dir)
                 .arg(config.epochs));
    return true;
}

void MainWindow::addInitialWeightsActions(QMenu* file) {
    file->addAction(tr("Open initial &weights (safetensors)…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open initial weights"), {},
                                                          tr("safetensors (*.safetensors)"));
        if (!path.isEmpty())
            openWeights(path);
    });
    QAction* forget = file->addAction(tr("&Forget initial weights"), this, [this] {
        ExperimentConfig config = form_->config();
        config.init.clear();
        form_->setConfig(config);
        logEvent(tr("The next run starts from a seeded initialisation"));
    });
    file->addAction(tr("&Continue a run…"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Continue a run: its --out folder"), {});
        if (!dir.isEmpty())
            continueRun(dir);
    });
    QAction* forgetRun = file->addAction(tr("Forget the run to continue"), this, [this] {
        ExperimentConfig config = form_->config();
        config.resume.clear();
        form_->setConfig(config);
        logEvent(tr("The next run starts afresh"));
    });
    const auto showForget = [this, forget, forgetRun] {
        forget->setEnabled(!form_->config().init.empty());
        forgetRun->setEnabled(!form_->config().resume.empty());
    };
    connect(form_, &ExperimentForm::changed, this, showForget);
    showForget();
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
    QStringList recent = recentFiles();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kRecentFiles)
        recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = recentFiles();
    // A file moved or deleted since stays listed, disabled, until Clear or
    // until newer files push it out: its name still says what it was.
    for (const QString& path : recent) {
        const bool there = QFileInfo::exists(path);
        QAction* action = recentMenu_->addAction(there ? path : tr("%1 (missing)").arg(path), this,
                                                 [this, path] { openFile(path); });
        action->setEnabled(there);
    }
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("&Clear the list"), this, [this] {
        QSettings().setValue(kRecentKey, QStringList());
        rebuildRecentMenu();
    });
    recentMenu_->setEnabled(!recent.isEmpty());
}

} // namespace hwl::ui
