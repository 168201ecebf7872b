// MainWindow's run list (finished runs kept, overlaid, opened from files)
// and its theme (light or dark, following the system unless chosen).
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "teaching/explanationpane.h"

#include <QActionGroup>
#include <QApplication>
#include <QEvent>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>

namespace hwl::ui {

namespace {

/// Whether a palette is a dark one (light text on a dark window).
bool isDark(const QPalette& p) {
    return p.color(QPalette::Window).lightness() < p.color(QPalette::WindowText).lightness();
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(100, 170, 255));
    p.setColor(QPalette::Highlight, QColor(60, 120, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(130, 130, 130));
    return p;
}

/// The QSettings key saying whether the user wants `chart` shown.
QString chartKey(const QObject* chart) {
    return QStringLiteral("view/show/") + chart->objectName();
}

const QPalette& systemPalette() {
    static const QPalette initial = QApplication::palette(); // before we force one
    return initial;
}

} // namespace

void MainWindow::buildRunList() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    runs_ = new RunLibrary(dir + QStringLiteral("/runs.json"), this);
    runPanel_ = new RunListPanel(runs_);
    bottomTabs_->addTab(runPanel_, tr("Runs"));
    connect(runs_, &RunLibrary::changed, this, &MainWindow::updateOverlays);
    connect(runPanel_, &RunListPanel::openRequested, this, &MainWindow::chooseRunToOpen);
    connect(runPanel_, &RunListPanel::saveFailed, this,
            [this](const QString& why) { logEvent(why, true); });
    if (const QString why = runs_->load(); !why.isEmpty())
        logEvent(why, true);
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
    // Named after its preset (marked when edited), else after its mode.
    QString what = QStringLiteral("%1 ×%2")
                       .arg(QString::fromStdString(run->config().mode))
                       .arg(run->config().workers);
    if (comparisonIndex_ >= 0)
        what = QStringLiteral("%1: %2").arg(
            runName_, QString::fromStdString(comparison_[std::size_t(comparisonIndex_)].label));
    else if (!explanation_->activePreset().isEmpty())
        what = explanation_->modified() ? tr("%1 (modified) · %2").arg(runName_, what) : runName_;
    saved.name = QStringLiteral("#%1 %2").arg(number).arg(what);
    saved.description = RunLibrary::describe(run->config());
    saved.samplesPerSecond = summary.samplesPerSecond;
    if (summary.evaluated)
        saved.testAccuracy = summary.testAccuracy;
    if (summary.state != RunState::Finished)
        saved.name += tr(" (%1)").arg(QString::fromLatin1(toString(summary.state)));
    if (const QString why = runs_->add(saved); !why.isEmpty())
        logEvent(why, true);
    logEvent(
        tr("Kept in the run list as \"%1\": tick it under Runs to overlay it").arg(saved.name));
}

void MainWindow::continueComparison(const RunSummary& summary) {
    if (comparisonIndex_ < 0)
        return;
    if (summary.state != RunState::Finished) {
        logEvent(tr("The comparison stops: run %1 did not finish").arg(comparisonIndex_ + 1), true);
        comparisonIndex_ = -1;
        return;
    }
    if (++comparisonIndex_ >= int(comparison_.size())) {
        logEvent(
            tr("Comparison done: its %1 runs are overlaid (Runs tab)").arg(comparison_.size()));
        comparisonIndex_ = -1;
        return;
    }
    // A moment between runs, for the eye and for the workers to be gone.
    QTimer::singleShot(300, this, [this] {
        if (comparisonIndex_ >= 0 && !controller_->busy())
            startConfig(comparison_[std::size_t(comparisonIndex_)].config);
    });
}

void MainWindow::updateOverlays() {
    QList<TrainingChart::Overlay> loss, accuracy;
    for (const SavedRun& r : runs_->runs()) {
        if (!r.visible)
            continue;
        loss.append({r.name, r.color, false, r.trainLoss});
        if (!r.testLoss.isEmpty())
            loss.append({tr("%1 (test)").arg(r.name), r.color, true, r.testLoss});
        if (!r.accuracy.isEmpty())
            accuracy.append({r.name, r.color, true, r.accuracy});
    }
    lossChart_->setOverlays(loss);
    accuracyChart_->setOverlays(accuracy);
    // The accuracy chart is worth its room once there is an accuracy to show.
    const Run* run = controller_->run();
    showChart(accuracyChart_, !accuracy.isEmpty() || (run && run->info().testRows > 0));
}

bool MainWindow::openRun(const QString& path, bool quiet, QString* why) {
    QString error;
    SavedRun run = RunLibrary::fromPath(path, &error);
    if (run.name.isEmpty()) {
        logEvent(tr("Could not open the run: %1").arg(error), true);
        if (why)
            *why = error;
        if (!quiet)
            QMessageBox::warning(this, tr("Could not open the run"), error);
        return false;
    }
    if (const QString saveError = runs_->add(run); !saveError.isEmpty())
        logEvent(saveError, true);
    logEvent(tr("Opened run \"%1\" (%2)").arg(run.name, run.description));
    bottomTabs_->setCurrentWidget(runPanel_);
    return true;
}

void MainWindow::chooseRunToOpen(bool folder) {
    const QString path =
        folder ? QFileDialog::getExistingDirectory(this, tr("Open a --out folder"))
               : QFileDialog::getOpenFileName(this, tr("Open run"), {},
                                              tr("Metrics (metrics.csv *.csv);;All files (*)"));
    if (!path.isEmpty())
        openRun(path);
}

void MainWindow::setDarkTheme(bool dark, bool forced) {
    themeForced_ = forced;
    if (forced) {
        // Fusion draws every palette faithfully; the platform style may not.
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
    } else {
        QApplication::setPalette(systemPalette());
        dark = isDark(systemPalette());
    }
    applyTheme(dark);
}

void MainWindow::applyTheme(bool dark) {
    dark_ = dark;
    form_->setDarkStyle(dark);
    for (TrainingChart* chart : charts())
        chart->setDarkTheme(dark);
}

void MainWindow::changeEvent(QEvent* event) {
    // The system switched between light and dark (its palette changed).
    if (event->type() == QEvent::ApplicationPaletteChange && !themeForced_ &&
        isDark(QApplication::palette()) != dark_)
        applyTheme(!dark_);
    QMainWindow::changeEvent(event);
}

void MainWindow::showChart(TrainingChart* chart, bool relevant) {
    chart->setProperty("relevant", relevant);
    chart->setVisible(relevant && QSettings().value(chartKey(chart), true).toBool());
    // A row of the chart grid whose charts are all hidden goes too.
    if (auto* row = qobject_cast<QSplitter*>(chart->parentWidget()); row && row != chartSplitter_) {
        bool any = false;
        for (int i = 0; i < row->count(); ++i)
            any = any || !row->widget(i)->isHidden();
        row->setVisible(any);
    }
}

void MainWindow::buildViewMenu() {
    (void)systemPalette(); // kept before a forced theme replaces it
    auto* view = menuBar()->addMenu(tr("&View"));
    auto* group = new QActionGroup(this);
    const struct {
        QString label, key;
    } themes[] = {{tr("Theme: follow the &system"), "system"},
                  {tr("Theme: &light"), "light"},
                  {tr("Theme: &dark"), "dark"}};
    const QString chosen = QSettings().value("view/theme", "system").toString();
    for (const auto& t : themes) {
        QAction* a = view->addAction(t.label);
        a->setCheckable(true);
        a->setChecked(t.key == chosen);
        a->setData(t.key);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, key = t.key] {
            QSettings().setValue("view/theme", key);
            setDarkTheme(key == QLatin1String("dark"), key != QLatin1String("system"));
        });
    }
    view->addSeparator();
    const struct {
        QString label;
        TrainingChart* chart;
    } shown[] = {{tr("&Loss chart"), lossChart_},
                 {tr("Test &accuracy chart"), accuracyChart_},
                 {tr("Di&vergence chart"), divergenceChart_},
                 {tr("&Throughput chart (samples/s)"), rateChart_},
                 {tr("Lost &updates chart"), lostChart_}};
    for (const auto& c : shown) {
        QAction* a = view->addAction(c.label);
        a->setCheckable(true);
        a->setChecked(QSettings().value(chartKey(c.chart), true).toBool());
        connect(a, &QAction::toggled, this, [this, chart = c.chart](bool on) {
            QSettings().setValue(chartKey(chart), on);
            showChart(chart, chart->property("relevant").toBool());
        });
        showChart(c.chart, c.chart->property("relevant").toBool());
    }
    view->addSeparator();
    const QString tabs[] = {tr("&Workers"), tr("&Events"), tr("&Runs")};
    for (int i = 0; i < 3; ++i)
        view->addAction(tabs[i], QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), this,
                        [this, i] { bottomTabs_->setCurrentIndex(i); });
    if (chosen != QLatin1String("system"))
        setDarkTheme(chosen == QLatin1String("dark"), true);
    else
        setDarkTheme(false, false);
}

} // namespace hwl::ui
