// MainWindow's View menu (which charts show, the theme) and its theme: light
// or dark, following the system unless chosen.
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
    fitChartRows(); // a row of hidden charts goes, and one fewer may now fit
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
    view->addAction(presentationAction_);
    view->addSeparator();
    const struct {
        QString label;
        TrainingChart* chart;
    } shown[] = {{tr("&Loss chart"), lossChart_},
                 {tr("Test &accuracy chart"), accuracyChart_},
                 {tr("Di&vergence chart"), divergenceChart_},
                 {tr("&Throughput chart (samples/s)"), rateChart_},
                 {tr("Lost &updates chart"), lostChart_},
                 {tr("Learning-&rate chart"), lrChart_}};
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
        view->addAction(tabs[i], QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), this, [this, i] {
            bottomTabs_->setCurrentIndex(i);
            if (presentation_)
                setBottomTabsCollapsed(false);
        });
    if (chosen != QLatin1String("system"))
        setDarkTheme(chosen == QLatin1String("dark"), true);
    else
        setDarkTheme(false, false);
}

} // namespace hwl::ui
