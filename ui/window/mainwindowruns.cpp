// MainWindow's run list: finished runs kept, overlaid, opened from files;
// the comparison driver's signals wired.
#include "widgets/filedialogs.h"
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/measuredruns.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "runs/runstablemodel.h"
#include "teaching/comparisonverdict.h"
#include "teaching/explanationpane.h"
#include "teaching/verdict.h"
#include "widgets/numbers.h"
#include "window/comparisondriver.h"
#include "window/recentfiles.h"
#include "window/runcharts.h"

#include "config/fields.h"
#include "io/runfolders.h"
#include "strategy/catalog.h"

#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QProgressDialog>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace hwl::ui {

void MainWindow::buildRunList() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    runs_ = new RunLibrary(dir + QStringLiteral("/runs.json"), this);
    runPanel_ = new RunListPanel(runs_);
    bottomTabs_->addTab(runPanel_, tr("Runs"));
    connect(runs_, &RunLibrary::changed, this, &MainWindow::updateOverlays);
    connect(runPanel_, &RunListPanel::openRequested, this, &MainWindow::chooseRunToOpen);
    connect(runPanel_, &RunListPanel::saveFailed, this,
            [this](const QString& why) { logEvent(why, true); });
    connect(runPanel_, &RunListPanel::runTicked, this, &MainWindow::onRunTicked);
    // Where a comparison is, on screen while it goes (the event log scrolls).
    statusBar()->addPermanentWidget(comparison_->statusLabel());
    connect(controller_, &RunController::failedToStart, comparison_, &ComparisonDriver::end);
    connect(controller_, &RunController::stoppedWhileLoading, comparison_, &ComparisonDriver::end);
    connect(comparison_, &ComparisonDriver::eventLogged, this, &MainWindow::logEvent);
    connect(comparison_, &ComparisonDriver::verdictReady, verdict_, &VerdictBanner::showVerdict);
    connect(comparison_, &ComparisonDriver::nextRunDue, this, [this] {
        if (comparison_->current() && !controller_->busy())
            startConfig(comparison_->current()->config);
    });
    const ExperimentConfig shown = form_->config();
    chartedModel_ = QString::fromStdString(shown.model);
    chartedDataset_ = QString::fromStdString(shown.dataset);
    if (const QString why = runs_->load(); !why.isEmpty())
        logEvent(why, true);
    // A fresh window overlays only the runs the user ticked: a comparison's
    // or a sweep's runs, ticked by it, belong to that session's lesson.
    if (const QString why = runs_->untickAll(true); !why.isEmpty())
        logEvent(why, true);
}

void MainWindow::wireMeasuredRuns() {
    measured_ = new MeasuredRuns(this);
    connect(measured_, &MeasuredRuns::changed, explanation_, &ExplanationPane::setMeasured);
    connect(controller_, &RunController::started, measured_, [this] {
        const PresetRun* run = comparison_->current();
        measured_->runStarted(run ? run->label : std::string(), comparison_->runIndex() <= 0,
                              controller_->run()->config().optimizerState == StateSharing::Shared,
                              run || explanation_->followed().isEmpty());
    });
    connect(controller_, &RunController::workersUpdated, measured_,
            [this](const QList<WorkerRow>& rows) {
                if (const Run* run = controller_->run())
                    measured_->runGoing(rows, run->summary(), controller_->elapsed());
            });
    connect(controller_, &RunController::finished, measured_, [this](const RunSummary& s) {
        measured_->runEnded(s, medianDivergence(controller_->metrics()));
    });
}

void MainWindow::keepFinishedRun(const RunSummary& summary) {
    const Run* run = controller_->run();
    if (!run || controller_->metrics().size() == 0)
        return;
    SavedRun saved = RunLibrary::fromLog(controller_->metrics());
    if (saved.trainLoss.isEmpty())
        return; // no step was taken: nothing to compare
    QSettings settings;
    const int number = settings.value("runs/next", 1).toInt();
    settings.setValue("runs/next", number + 1);
    // Named by what sets it apart first, then by what it belongs to
    // ("#4 locked · Hogwild vs locked", "#7 lr=0.1 workers=2 · sweep.json"),
    // as a legend short of room keeps a name's head.
    const bool compared = comparison_->record() != nullptr;
    const QString context = explanation_->activePreset().isEmpty() ? explanation_->experimentName()
                            : explanation_->modified()
                                ? tr("%1 with %2").arg(runName_, changesOf(run->config()))
                                : runName_;
    QStringList parts{runLabel(run->config()), context};
    parts.removeAll(QString());
    saved.name = QStringLiteral("#%1 %2").arg(number).arg(parts.join(QStringLiteral(" · ")));
    saved.description = RunLibrary::describe(run->config());
    saved.model = QString::fromStdString(run->config().model);
    saved.dataset = QString::fromStdString(run->config().dataset);
    saved.fields = RunLibrary::fieldsOf(run->config());
    saved.visible = compared;
    RunLibrary::applySummary(saved, summary); // the figures summary.json would hold
    // A run too short for two step samples a worker (they come every 2 ms)
    // has no throughput curve: its whole-run average per worker, flat.
    if (saved.throughput.isEmpty() && summary.samplesPerSecond > 0) {
        const double perWorker = summary.samplesPerSecond / std::max(1, saved.workers);
        for (const ChartSample& at : {saved.trainLoss.front(), saved.trainLoss.back()})
            saved.throughput.append({at.step, at.samples, at.time, perWorker});
    }
    if (summary.state != RunState::Finished)
        saved.name += tr(" (%1)").arg(QString::fromLatin1(stateName(summary.state)));
    runOnCharts_ = saved.name; // before add(), whose change redraws the overlays
    if (const QString why = runs_->add(saved); !why.isEmpty())
        logEvent(why, true);
    logEvent(saved.visible ? tr("Kept in the run list as \"%1\", overlaid on the charts as a "
                                "run of the comparison (untick it under Runs to hide it)")
                                 .arg(saved.name)
                           : tr("Kept in the run list as \"%1\": tick it under Runs to "
                                "overlay it")
                                 .arg(saved.name));
}

QStringList MainWindow::namesApart(const QList<const SavedRun*>& shown) const {
    // The runs overlaid and the live one, by the fields that differ among
    // them (io/runfolders.h's varyingKeys): "lr=0.1", "mode=threads-locked".
    std::vector<std::map<std::string, std::string>> fields;
    const auto add = [&fields](const QMap<QString, QString>& f) {
        auto& run = fields.emplace_back();
        for (auto it = f.begin(); it != f.end(); ++it)
            run.emplace(it.key().toStdString(), it.value().toStdString());
    };
    for (const SavedRun* r : shown)
        add(r->fields);
    if (const Run* live = controller_->run())
        add(RunLibrary::fieldsOf(live->config()));
    std::vector<std::string> keys = varyingKeys(fields);
    if (keys.size() > 1) // the seed only where nothing else sets runs apart
        keys.erase(std::remove(keys.begin(), keys.end(), "seed"), keys.end());
    // A name's head without its number: a comparison's label ("locked" of
    // "#4 locked · Hogwild vs locked"), a sweep's point.
    const auto headOf = [](const QString& name) {
        QString head = name.section(QStringLiteral(" · "), 0, 0);
        if (head.startsWith(QLatin1Char('#')) && head.contains(QLatin1Char(' ')))
            head = head.section(QLatin1Char(' '), 1);
        return head;
    };
    QStringList heads;
    for (const SavedRun* r : shown)
        heads << headOf(r->name);
    if (const Run* live = controller_->run())
        heads << runLabel(live->config());
    QStringList names;
    for (const SavedRun* r : shown) {
        // Short and its own: the head (what a comparison calls the run).
        const QString head = headOf(r->name);
        if (head.size() <= 16 && heads.count(head) == 1) {
            names << head;
            continue;
        }
        QStringList parts;
        for (const std::string& key : keys) {
            const QString k = QString::fromStdString(key);
            if (r->fields.contains(k))
                parts << k + QLatin1Char('=') + r->fields.value(k);
        }
        names << (parts.isEmpty() ? head : parts.join(QStringLiteral(", ")));
    }
    return names;
}

QString MainWindow::changesOf(const ExperimentConfig& config) const {
    // Runs edited from one preset differ by these: "lr=0.1, dataset=...".
    QStringList changes;
    for (const QString& key : explanation_->changedFields())
        if (const Field* f = findField(key.toStdString()))
            changes << key + QLatin1Char('=') + QString::fromStdString(f->valueText(config));
    if (changes.size() > 3)
        changes = changes.mid(0, 3) << tr("%1 more").arg(changes.size() - 3);
    return changes.join(QStringLiteral(", "));
}

QString MainWindow::runLabel(const ExperimentConfig& config) const {
    if (const ComparisonRecord* record = comparison_->record())
        return QString(record->current).replace(QLatin1Char(','), QLatin1Char(' '));
    if (!explanation_->activePreset().isEmpty() && !explanation_->modified())
        return explanation_->followed();
    return QStringLiteral("%1 ×%2").arg(QString::fromStdString(config.mode)).arg(config.workers);
}

void MainWindow::onRunTicked(int index) {
    if (index < 0 || index >= runs_->size())
        return;
    const SavedRun& r = runs_->runs()[index];
    if (r.trained(chartedModel_, chartedDataset_))
        return;
    const QString what =
        r.model.isEmpty()
            ? tr("\"%1\" does not say what it trained (it was kept before the run list noted it)")
                  .arg(r.name)
            : tr("\"%1\" trained %2 on %3").arg(r.name, r.model, r.dataset);
    logEvent(tr("%1, while the charts show %2 on %3: its loss and accuracy are drawn there "
                "only because you ticked it")
                 .arg(what, chartedModel_, chartedDataset_));
}

void MainWindow::updateOverlays() {
    QList<const SavedRun*> shown;
    for (const SavedRun& r : runs_->runs()) {
        // Another task's curves would contradict the lesson on the charts
        // (a comparison's runs, ticked by it, under the next preset): only
        // when the user asked for it by ticking it.
        if (!r.visible || (!r.userTicked && !r.trained(chartedModel_, chartedDataset_)))
            continue;
        if (r.name != runOnCharts_) // the live curves are this run's
            shown << &r;
    }
    const QStringList apart = namesApart(shown);
    QList<TrainingChart::Overlay> loss, accuracy, rate, divergence;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const SavedRun& r = *shown[i];
        const QString& a = apart[i];
        if (!r.throughput.isEmpty())
            rate.append({r.name, r.color, false, r.throughput, -1, a});
        if (!r.divergence.isEmpty())
            divergence.append({r.name, r.color, false, r.divergence, -1, a});
        loss.append({r.name, r.color, false, r.trainLoss, -1, a});
        if (!r.testLoss.isEmpty()) // dotted, in the training curve's colour
            loss.append(
                {tr("%1 (test)").arg(r.name), r.color, true, r.testLoss, int(loss.size()) - 1, a});
        if (!r.accuracy.isEmpty())
            accuracy.append({r.name, r.color, true, r.accuracy, -1, a});
    }
    charts_->loss()->setOverlays(loss);
    charts_->accuracy()->setOverlays(accuracy);
    charts_->rate()->setOverlays(rate);
    charts_->divergence()->setOverlays(divergence);
    // The accuracy chart is worth its room once there is an accuracy to show.
    const Run* run = controller_->run();
    charts_->show(charts_->accuracy(), !accuracy.isEmpty() || (run && run->info().testRows > 0));
}

void MainWindow::refuseOpen(const QString& error, bool quiet, QString* why) {
    logEvent(tr("Could not open the run: %1").arg(error), true);
    if (why)
        *why = error;
    if (!quiet)
        QMessageBox::warning(this, tr("Could not open the run"), error);
}

bool MainWindow::openRun(const QString& path, bool quiet, QString* why) {
    if (QFileInfo(path).isDir() && !QFileInfo::exists(QDir(path).filePath("metrics.csv")))
        return openRunFolders(path, quiet, why);
    QString error;
    SavedRun run = RunLibrary::fromPath(path, &error);
    if (run.name.isEmpty()) {
        refuseOpen(error, quiet, why);
        return false;
    }
    // Opened to be compared: overlaid at once when it trained what the
    // charts show (or does not say); a run of another workload waits for a
    // tick.
    run.visible = run.userTicked =
        run.model.isEmpty() || run.trained(chartedModel_, chartedDataset_);
    if (const QString saveError = runs_->add(run); !saveError.isEmpty())
        logEvent(saveError, true);
    recent_->add(path);
    logEvent(run.visible ? tr("Opened run \"%1\" (%2)").arg(run.name, run.description)
                         : tr("Opened run \"%1\" (%2). It trained %3 on %4 while the charts "
                              "show %5 on %6: tick it under Runs to overlay it")
                               .arg(run.name, run.description, run.model, run.dataset,
                                    chartedModel_, chartedDataset_));
    bottomTabs_->setCurrentWidget(runPanel_);
    return true;
}

bool MainWindow::openRunFolders(const QString& dir, bool quiet, QString* why) {
    const QString shown = QDir::toNativeSeparators(dir);
    QProgressDialog progress(tr("Reading the runs in %1…").arg(shown), tr("Stop"), 0, 0, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(quiet ? 1000 : 400);
    QString error;
    QStringList leftOut;
    QList<SavedRun> runs =
        RunLibrary::fromRunFolders(dir, &error, &leftOut, [&](int done, int total) {
            progress.setMaximum(total);
            progress.setValue(done); // a modal dialog's: it takes the events (and Stop)
            return !progress.wasCanceled();
        });
    progress.reset();
    if (runs.isEmpty()) {
        refuseOpen(error, quiet, why);
        return false;
    }
    for (SavedRun& run : runs)
        run.visible = run.userTicked = false; // a tick overlays the ones wanted
    const int count = int(runs.size());
    const bool repeats = RunsTableModel::repeatRows(runs).size() < runs.size();
    if (const QString saveError = runs_->addAll(std::move(runs)); !saveError.isEmpty())
        logEvent(saveError, true);
    recent_->add(dir);
    QString line = (count == 1 ? tr("Opened 1 run from %1").arg(shown)
                               : tr("Opened %1 runs from %2").arg(count).arg(shown)) +
                   tr(", unticked: tick one under Runs to overlay it");
    if (repeats && !runPanel_->foldRepeats()->isChecked()) {
        runPanel_->foldRepeats()->setChecked(true); // as --compare folds them
        line += tr("; repeats folded into one row each (untick Fold repeats to list each)");
    }
    logEvent(line);
    for (const QString& left : leftOut)
        logEvent(tr("Left out: %1").arg(left), true);
    bottomTabs_->setCurrentWidget(runPanel_);
    return true;
}

void MainWindow::chooseRunToOpen(bool folder) {
    const QString path =
        folder ? filedialogs::folder(this, tr("Open a run's folder or a folder of runs"))
               : filedialogs::openFile(this, tr("Open run"),
                                       tr("Metrics (metrics.csv *.csv);;All files (*)"));
    if (!path.isEmpty())
        openRun(path);
}

} // namespace hwl::ui
