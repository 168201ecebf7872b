#include "window/experimentfiles.h"
#include "widgets/filedialogs.h"

#include "run/outputfolder.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "runs/runcontroller.h"
#include "teaching/explanationpane.h"

#include "config/sweep.h"
#include "io/atomicfile.h"
#include "io/tensorfile.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "util/errors.h"
#include "util/limits.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace hwl::ui {

namespace {

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
    FileDropFilter(QWidget* window, ExperimentFiles* files)
        : QObject(files), window_(window), files_(files) {}

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
            QTimer::singleShot(0, files_, [files = files_, paths] { files->openFiles(paths); });
        return true;
    }

private:
    bool inWindow(const QWidget* widget) const {
        for (; widget; widget = widget->parentWidget())
            if (widget == window_)
                return true;
        return false;
    }

    QWidget* window_;
    ExperimentFiles* files_;
};

} // namespace

ExperimentFiles::ExperimentFiles(ExperimentForm* form, ExplanationPane* explanation,
                                 RunController* controller, QWidget* window)
    : QObject(window), form_(form), explanation_(explanation), controller_(controller),
      window_(window) {}

void ExperimentFiles::rememberStarted(const ExperimentConfig& experiment) {
    QSettings settings;
    settings.setValue(kLastStartedKey, QString::fromStdString(experiment.toJson()));
    settings.sync();
}

void ExperimentFiles::acceptFileDrops() {
    window_->setAcceptDrops(true); // the window is a drop target wherever the mouse is
    qApp->installEventFilter(new FileDropFilter(window_, this));
}

bool ExperimentFiles::openFile(const QString& path, bool quiet, QString* why) {
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
            opened = openRun_ && openRun_(path, quiet, &reason);
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
        log(reason, true); // the openers log their own refusals
        if (!quiet)
            QMessageBox::warning(window_, tr("Open"), reason);
    }
    Q_EMIT statusShown(reason, kStatusMs);
    return false;
}

QStringList ExperimentFiles::openFiles(const QStringList& paths) {
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

bool ExperimentFiles::openWeights(const QString& path, bool quiet, QString* why) {
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
            QMessageBox::warning(window_, tr("Open initial weights"), error);
        log(error, true);
        return false;
    }
    ExperimentConfig config = form_->config();
    config.init = QFileInfo(path).absoluteFilePath().toStdString();
    form_->setConfig(config);
    Q_EMIT fileUsed(path);
    log(tr("Initial weights: %1. The next run starts from them instead of a seeded "
           "initialisation (File > Forget initial weights undoes it)")
            .arg(path));
    return true;
}

bool ExperimentFiles::continueRun(const QString& dir, bool quiet, QString* why) {
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
            QMessageBox::warning(window_, tr("Continue a run"), error);
        log(error, true);
        return false;
    }
    if (!openExperiment(QDir(dir).filePath("experiment.json"), quiet, why))
        return false;
    ExperimentConfig config = form_->config();
    config.init.clear(); // the run's own weights come with it
    config.resume = QFileInfo(dir).absoluteFilePath().toStdString();
    config.epochs = std::min(2 * config.epochs, limits::kMaxEpochs);
    form_->setConfig(config);
    log(tr("The next run continues %1: its weights, momentum and place in the data. "
           "Epochs counts from its start (now %2); File > Forget the run to continue "
           "undoes it")
            .arg(dir)
            .arg(config.epochs));
    return true;
}

void ExperimentFiles::addInitialWeightsActions(QMenu* file) {
    file->addAction(tr("Open initial &weights (safetensors)…"), this, [this] {
        const QString path = filedialogs::openFile(window_, tr("Open initial weights"),
                                                   tr("safetensors (*.safetensors)"));
        if (!path.isEmpty())
            openWeights(path);
    });
    QAction* forget = file->addAction(tr("&Forget initial weights"), this, [this] {
        ExperimentConfig config = form_->config();
        config.init.clear();
        form_->setConfig(config);
        log(tr("The next run starts from a seeded initialisation"));
    });
    file->addAction(tr("&Continue a run…"), this, [this] {
        const QString dir = filedialogs::folder(window_, tr("Continue a run: its --out folder"));
        if (!dir.isEmpty())
            continueRun(dir);
    });
    QAction* forgetRun = file->addAction(tr("Forget the run to continue"), this, [this] {
        ExperimentConfig config = form_->config();
        config.resume.clear();
        form_->setConfig(config);
        log(tr("The next run starts afresh"));
    });
    const auto showForget = [this, forget, forgetRun] {
        forget->setEnabled(!form_->config().init.empty());
        forgetRun->setEnabled(!form_->config().resume.empty());
    };
    connect(form_, &ExperimentForm::changed, this, showForget);
    showForget();
}

bool ExperimentFiles::saveChart(TrainingChart* chart, const QString& chosen, bool quiet,
                                QSize size) {
    // No suffix: PNG. A suffix it cannot write: the chart says which it can.
    QString path = chosen;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".png");
    QString error;
    if (!chart->saveImage(path, size, &error)) {
        if (!quiet)
            QMessageBox::warning(window_, tr("Save chart"), error);
        log(error, true);
        return false;
    }
    log(tr("Saved the chart to %1 (%2 x %3 pixels)")
            .arg(path)
            .arg(size.width())
            .arg(size.height()));
    return true;
}

bool ExperimentFiles::openLastStarted(bool quiet) {
    const QString json = QSettings().value(kLastStartedKey).toString();
    QString error;
    ExperimentConfig config;
    if (json.isEmpty())
        error = tr("No run has been started yet.");
    else {
        try {
            config.mergeJson(json.toStdString(), "last started experiment");
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
    }
    if (!error.isEmpty()) {
        if (!quiet)
            QMessageBox::warning(window_, tr("Open last started experiment"), error);
        log(error, true);
        return false;
    }
    explanation_->showExperiment(config, tr("The last started experiment"),
                                 tr("last started experiment"));
    form_->setConfig(config);
    log(tr("Opened the last started experiment"));
    return true;
}

namespace {
/// The worker count as the command line settles it (settleWorkerCount): a
/// file that sets a count its mode fixes otherwise ({"mode": "serial",
/// "workers": 4}) is refused as the command line refuses it, since the form
/// shows the mode's fixed count and would run another count silently.
void settleWorkers(ExperimentConfig& config, const std::vector<std::string>& keys,
                   const QString& path) {
    const bool chosen = std::find(keys.begin(), keys.end(), "workers") != keys.end();
    settleWorkerCount(config, chosen);
    if (!chosen || fixedWorkerCount(config) == 0 || config.workers == fixedWorkerCount(config))
        return;
    for (const ConfigIssue& issue : validateExperiment(config))
        if (issue.field == "workers")
            throw InputError(QString("Cannot open %1: workers: %2")
                                 .arg(path, QString::fromStdString(issue.message))
                                 .toStdString());
}
} // namespace

bool ExperimentFiles::openExperiment(const QString& path, bool quiet, QString* why) {
    if (controller_->busy()) {
        const QString busy =
            tr("An experiment opens once the run ends: stop it first, then open %1 again.")
                .arg(path);
        if (why)
            *why = busy;
        log(busy, true);
        return false;
    }
    ExperimentConfig config = form_->config();
    try {
        const std::vector<std::string> keys = config.mergeJsonFile(path.toStdString());
        settleWorkers(config, keys, path);
    } catch (const std::exception& e) {
        if (why)
            *why = QString::fromUtf8(e.what());
        if (!quiet)
            QMessageBox::warning(window_, tr("Open experiment"), QString::fromUtf8(e.what()));
        log(QString::fromUtf8(e.what()), true);
        return false;
    }
    const QString file = QFileInfo(path).fileName();
    explanation_->showExperiment(config, tr("Opened from %1").arg(file), file);
    form_->setConfig(config);
    Q_EMIT fileUsed(path);
    log(tr("Opened %1").arg(path));
    if (!config.sweep.empty()) { // the form holds one experiment: say what it leaves out
        QStringList swept;
        for (const std::string& key : sweepKeys(config))
            swept << QString::fromStdString(key);
        log(tr("%1 also holds a sweep over %2: the window opened its experiment without "
               "it; hogwild-lab --headless --config %1 makes the sweep's runs")
                .arg(path, swept.join(", ")),
            true);
    }
    return true;
}

bool ExperimentFiles::saveExperiment(const QString& path, bool quiet) {
    try {
        writeFileAtomically(path.toStdString(), experimentFileJson(form_->config()));
    } catch (const std::exception& e) {
        if (!quiet)
            QMessageBox::warning(window_, tr("Save experiment"), QString::fromUtf8(e.what()));
        return false;
    }
    Q_EMIT fileUsed(path);
    log(tr("Saved %1").arg(path));
    return true;
}

bool ExperimentFiles::exportWeights(const QString& path, bool quiet) {
    const Run* run = controller_->run();
    QString error;
    if (!run || !run->hasParameters())
        error = tr("There are no trained weights yet: start a run first.");
    else if (controller_->busy())
        error = tr("The run is still going: stop it or wait for it to finish, then export.");
    else {
        try {
            run->writeWeights(path.toStdString());
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
    }
    if (!error.isEmpty()) {
        if (!quiet)
            QMessageBox::warning(window_, tr("Export weights"), error);
        return false;
    }
    log(tr("Exported weights to %1").arg(path));
    return true;
}

bool ExperimentFiles::exportMetrics(const QString& path, bool quiet) {
    QString error;
    if (!controller_->run())
        error = tr("There are no metrics yet: start a run first.");
    else if (const auto outcome =
                 exportMetricsCsv(controller_->metrics(), path, quiet ? nullptr : window_, error);
             outcome == ExportOutcome::Cancelled) {
        log(tr("Export of the metrics to %1 cancelled; nothing was written").arg(path));
        return false;
    }
    if (!error.isEmpty()) {
        if (!quiet)
            QMessageBox::warning(window_, tr("Export metrics"), error);
        return false;
    }
    log(tr("Exported metrics to %1").arg(path));
    return true;
}

bool ExperimentFiles::confirmOutFolder(hwl::ExperimentConfig& config, bool* replace) {
    *replace = false;
    for (;;) {
        if (config.out.empty())
            return true;
        const std::vector<std::string> files = hwl::runFilesIn(config.out);
        std::error_code ec;
        if (files.empty() ||
            (!config.resume.empty() && std::filesystem::equivalent(config.resume, config.out, ec)))
            return true;
        QStringList names;
        for (const std::string& f : files)
            names << QString::fromStdString(f);
        QMessageBox box(QMessageBox::Question, tr("Replace the run?"),
                        tr("This experiment writes its files into %1 when the run ends, and that "
                           "folder already holds a run (%2).")
                            .arg(QString::fromStdString(config.out), names.join(", ")),
                        QMessageBox::NoButton, window_);
        box.setInformativeText(tr("Replace that run's files, write this run's into another "
                                  "folder, or start without writing files."));
        QPushButton* replaceButton = box.addButton(tr("&Replace"), QMessageBox::DestructiveRole);
        QPushButton* other = box.addButton(tr("&Other folder…"), QMessageBox::ActionRole);
        QPushButton* none = box.addButton(tr("&Don't write files"), QMessageBox::ActionRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() == replaceButton) {
            *replace = true;
            return true;
        }
        if (box.clickedButton() == none) {
            config.out.clear();
            return true;
        }
        if (box.clickedButton() != other)
            return false;
        const QString dir = filedialogs::folder(window_, tr("Write the run's files into"));
        if (dir.isEmpty())
            return false;
        config.out = dir.toStdString(); // asked again if that one holds a run too
    }
}

} // namespace hwl::ui
