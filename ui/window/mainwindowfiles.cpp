// MainWindow's files: experiments opened and saved (and the last one
// started), weights, metrics and charts exported. What opens which file,
// and the recent files, are in mainwindowopen.cpp.
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/metricsexport.h"
#include "teaching/countertoydialog.h"
#include "teaching/explanationpane.h"
#include "teaching/racestepper.h"

#include "config/sweep.h"
#include "io/atomicfile.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "util/errors.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace hwl::ui {

bool MainWindow::saveChart(TrainingChart* chart, const QString& chosen, bool quiet, QSize size) {
    // No suffix: PNG. A suffix it cannot write: the chart says which it can.
    QString path = chosen;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".png");
    QString error;
    if (!chart->saveImage(path, size, &error)) {
        if (!quiet)
            QMessageBox::warning(this, tr("Save chart"), error);
        logEvent(error, true);
        return false;
    }
    logEvent(tr("Saved the chart to %1 (%2 x %3 pixels)")
                 .arg(path)
                 .arg(size.width())
                 .arg(size.height()));
    return true;
}

bool MainWindow::openLastStarted(bool quiet) {
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
            QMessageBox::warning(this, tr("Open last started experiment"), error);
        logEvent(error, true);
        return false;
    }
    explanation_->showExperiment(config, tr("The last started experiment"));
    form_->setConfig(config);
    logEvent(tr("Opened the last started experiment"));
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

bool MainWindow::openExperiment(const QString& path, bool quiet, QString* why) {
    if (controller_->busy()) {
        const QString busy =
            tr("An experiment opens once the run ends: stop it first, then open %1 again.")
                .arg(path);
        if (why)
            *why = busy;
        logEvent(busy, true);
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
            QMessageBox::warning(this, tr("Open experiment"), QString::fromUtf8(e.what()));
        logEvent(QString::fromUtf8(e.what()), true);
        return false;
    }
    explanation_->showExperiment(config, tr("Opened from %1").arg(QFileInfo(path).fileName()));
    form_->setConfig(config);
    addRecent(path);
    logEvent(tr("Opened %1").arg(path));
    if (!config.sweep.empty()) { // the form holds one experiment: say what it leaves out
        QStringList swept;
        for (const std::string& key : sweepKeys(config))
            swept << QString::fromStdString(key);
        logEvent(tr("%1 also holds a sweep over %2: the window opened its experiment without "
                    "it; hogwild-lab --headless --config %1 makes the sweep's runs")
                     .arg(path, swept.join(", ")),
                 true);
    }
    return true;
}

bool MainWindow::saveExperiment(const QString& path, bool quiet) {
    try {
        writeFileAtomically(path.toStdString(), form_->config().toJson());
    } catch (const std::exception& e) {
        if (!quiet)
            QMessageBox::warning(this, tr("Save experiment"), QString::fromUtf8(e.what()));
        return false;
    }
    addRecent(path);
    logEvent(tr("Saved %1").arg(path));
    return true;
}

bool MainWindow::exportWeights(const QString& path, bool quiet) {
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
            QMessageBox::warning(this, tr("Export weights"), error);
        return false;
    }
    logEvent(tr("Exported weights to %1").arg(path));
    return true;
}

bool MainWindow::exportMetrics(const QString& path, bool quiet) {
    QString error;
    if (!controller_->run())
        error = tr("There are no metrics yet: start a run first.");
    else if (const auto outcome =
                 exportMetricsCsv(controller_->metrics(), path, quiet ? nullptr : this, error);
             outcome == ExportOutcome::Cancelled) {
        logEvent(tr("Export of the metrics to %1 cancelled; nothing was written").arg(path));
        return false;
    }
    if (!error.isEmpty()) {
        if (!quiet)
            QMessageBox::warning(this, tr("Export metrics"), error);
        return false;
    }
    logEvent(tr("Exported metrics to %1").arg(path));
    return true;
}

} // namespace hwl::ui
