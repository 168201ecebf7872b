// MainWindow's View menu: the theme (WindowTheme), presentation, which
// charts show, the bottom tabs.
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "form/experimentform.h"
#include "runs/runlibrary.h"
#include "runs/runlistpanel.h"
#include "teaching/explanationpane.h"
#include "window/presentationmode.h"
#include "window/runcharts.h"
#include "window/windowtheme.h"

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

void MainWindow::buildViewMenu() {
    auto* view = menuBar()->addMenu(tr("&View"));
    theme_->addChoices(view);
    view->addSeparator();
    view->addAction(presentation_->action());
    view->addSeparator();
    const struct {
        QString label;
        TrainingChart* chart;
    } shown[] = {{tr("&Loss chart"), charts_->loss()},
                 {tr("Test &accuracy chart"), charts_->accuracy()},
                 {tr("Di&vergence chart"), charts_->divergence()},
                 {tr("&Throughput chart (samples/s)"), charts_->rate()},
                 {tr("Lost &updates chart"), charts_->lostUpdates()},
                 {tr("Learning-&rate chart"), charts_->learningRate()}};
    for (const auto& c : shown) {
        QAction* a = view->addAction(c.label);
        a->setCheckable(true);
        a->setChecked(RunCharts::ticked(c.chart));
        connect(a, &QAction::toggled, this, [this, chart = c.chart](bool on) {
            RunCharts::setTicked(chart, on);
            charts_->show(chart, chart->property("relevant").toBool());
        });
        charts_->show(c.chart, c.chart->property("relevant").toBool());
    }
    view->addSeparator();
    const QString tabs[] = {tr("&Workers"), tr("&Timeline"), tr("&Events"), tr("&Runs")};
    for (int i = 0; i < 4; ++i)
        view->addAction(tabs[i], QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), this,
                        [this, name = tabs[i]] { openTab(name); });
}

bool MainWindow::openTab(const QString& name) {
    const QString wanted = QString(name).remove(QLatin1Char('&')).toLower();
    for (int i = 0; i < bottomTabs_->count(); ++i)
        if (bottomTabs_->tabText(i).remove(QLatin1Char('&')).toLower() == wanted) {
            bottomTabs_->setCurrentIndex(i);
            presentation_->openTabs();
            return true;
        }
    return false;
}

} // namespace hwl::ui
