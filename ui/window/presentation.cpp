// MainWindow in presentation (a projector at 1280x720 or 1024x768): the form
// and the explanation fold into drawers, the bottom tabs to their tab bar,
// the charts take the room with larger fonts and lines. And, in any layout,
// the chart grid fitted to its room: the verdict banner is bounded, and the
// small charts go to one row, or none, before any plot gets unreadably low.
#include "window/mainwindow.h"

#include "charts/trainingchart.h"
#include "teaching/explanationpane.h"
#include "teaching/verdict.h"

#include <QAction>
#include <QChart>
#include <QDockWidget>
#include <QEvent>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

#include <algorithm>

namespace hwl::ui {

namespace {
/// The least plot height a shown chart keeps: a curve still reads.
constexpr int kMinPlot = 110;
/// A chart's height beyond its plot (title, legend, labels) until it has
/// been laid out once; the loss chart's legend and x title take more.
constexpr int kGuessOverhead = 100, kGuessLossOverhead = 140;
/// The verdict banner: at least its title and a line, at most this, scrolling.
constexpr int kBannerMin = 56, kBannerMax = 170;
/// The tab strip's height beyond the tab bar's (the frame).
constexpr int kStripMargin = 4;
/// The bottom tabs' height when a click opens them in presentation.
constexpr int kOpenTabsHeight = 200;
} // namespace

void MainWindow::buildPresentationActions(QToolBar* toolbar) {
    presentationAction_ = new QAction(tr("&Presentation"), this);
    presentationAction_->setObjectName("presentationAction");
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(Qt::Key_F5);
    presentationAction_->setToolTip(
        tr("For a projector: the charts get the room and larger text; the experiment and the "
           "explanation fold into the toolbar's buttons, the tabs below to their titles (F5)"));
    connect(presentationAction_, &QAction::triggered, this,
            [this](bool on) { setPresentation(on); });
    addAction(presentationAction_); // F5 works with the menu bar closed, too

    drawerAction_ = toolbar->addAction(tr("Experiment"));
    drawerAction_->setCheckable(true);
    drawerAction_->setToolTip(tr("Show or hide the experiment beside the charts"));
    explanationAction_ = toolbar->addAction(tr("Explanation"));
    explanationAction_->setCheckable(true);
    explanationAction_->setToolTip(tr("Show or hide the explanation beside the charts"));
    for (QAction* a : {drawerAction_, explanationAction_})
        a->setVisible(false); // presentation's only
    connect(drawerAction_, &QAction::toggled, this, [this](bool on) {
        if (presentation_)
            dock_->setVisible(on);
    });
    connect(explanationAction_, &QAction::toggled, this, [this](bool on) {
        if (presentation_)
            explanation_->setVisible(on);
    });
}

void MainWindow::setPresentation(bool on, bool remember) {
    presentationAction_->setChecked(on);
    if (on == presentation_)
        return;
    if (on) {
        normalState_ = saveState();
        normalMain_ = mainSplitter_->saveState();
        normalCentre_ = centreSplitter_->saveState();
    }
    presentation_ = on;
    for (QAction* a : {drawerAction_, explanationAction_}) {
        a->setChecked(false);
        a->setVisible(on);
    }
    dock_->setVisible(!on);
    explanation_->setVisible(!on);
    setBottomTabsCollapsed(on);
    if (!on) {
        restoreState(normalState_);
        mainSplitter_->restoreState(normalMain_);
        centreSplitter_->restoreState(normalCentre_);
    }
    if (remember)
        QSettings().setValue(kPresentationKey, on);
    applyChartPresentation();
    fitChartRows();
}

void MainWindow::setBottomTabsCollapsed(bool collapsed) {
    bottomTabs_->setProperty("collapsed", collapsed);
    bottomTabs_->setMaximumHeight(
        collapsed ? bottomTabs_->tabBar()->sizeHint().height() + kStripMargin : QWIDGETSIZE_MAX);
    if (!collapsed && presentation_) {
        const QList<int> sizes = centreSplitter_->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        centreSplitter_->setSizes({std::max(0, total - kOpenTabsHeight), kOpenTabsHeight});
    }
}

int MainWindow::chartHeightFor(const TrainingChart* chart) const {
    const qreal plot = chart->chart()->plotArea().height();
    int overhead = chart->isVisible() && plot > 0 ? chart->height() - int(plot) : 0;
    if (overhead <= 0)
        overhead = chart == lossChart_ ? kGuessLossOverhead : kGuessOverhead;
    if (presentation_ && !(chart->isVisible() && plot > 0))
        overhead = int(overhead * TrainingChart::kPresentationFontScale);
    return kMinPlot + overhead;
}

void MainWindow::fitChartRows() {
    if (!chartsArea_ || !verdictScroll_)
        return;
    const int gap = chartSplitter_->handleWidth();
    const int room = chartsArea_->height();
    const bool firstPair = !accuracyChart_->isHidden() || !divergenceChart_->isHidden();
    const bool secondPair =
        !rateChart_->isHidden() || !lostChart_->isHidden() || !lrChart_->isHidden();
    const int pairs = int(firstPair) + int(secondPair);
    int bannerWant = 0;
    if (!verdict_->isHidden())
        bannerWant = verdict_->hasHeightForWidth() ? verdict_->heightForWidth(chartsArea_->width())
                                                   : verdict_->sizeHint().height();
    const int bannerLeast = std::min(bannerWant, kBannerMin);
    // Each chart's height for a readable plot, as its texts are laid out now.
    const int lossNeed = chartHeightFor(lossChart_);
    int smallNeed = 0;
    for (TrainingChart* chart :
         {accuracyChart_, divergenceChart_, rateChart_, lostChart_, lrChart_})
        if (!chart->isHidden())
            smallNeed = std::max(smallNeed, chartHeightFor(chart));
    const auto needed = [&](int rows) { return lossNeed + rows * (smallNeed + gap); };
    const auto fits = [&](int rows) { return bannerLeast + needed(rows) <= room; };
    // Two rows of two; else every small chart in one row; else the loss alone.
    const int rows = pairs == 2 && fits(2) ? 2 : pairs > 0 && fits(1) ? 1 : 0;
    const bool oneRow = pairs == 2 && rows == 1;
    QSplitter* home = oneRow ? chartRows_[0] : chartRows_[1];
    bool moved = false;
    for (TrainingChart* chart : {rateChart_, lostChart_, lrChart_})
        if (chart->parentWidget() != home) {
            home->addWidget(chart);
            moved = true;
        }
    if (moved) // the charts of a row share it evenly
        for (QSplitter* row : chartRows_)
            row->setSizes(QList<int>(row->count(), std::max(1, row->width() / 2)));
    chartRows_[0]->setVisible(rows >= 1 && (firstPair || oneRow));
    chartRows_[1]->setVisible(rows >= 1 && secondPair && !oneRow && (rows == 2 || !firstPair));
    int banner = 0;
    if (bannerWant > 0) {
        banner = std::clamp(room - needed(rows), bannerLeast, std::min(bannerWant, kBannerMax));
        verdictScroll_->setFixedHeight(banner);
    }
    // Each shown chart its readable height, and what is left shared 3 : 2
    // each row of two (evenly with one row). No minimum heights: one set
    // for a larger window keeps it from shrinking (a 1024x768 projector
    // window stayed 841 high), where these shares follow every resize.
    const int height = std::max(0, room - banner - rows * gap);
    const int spare = std::max(0, height - lossNeed - rows * smallNeed);
    if (rows == 2)
        chartSplitter_->setSizes(
            {lossNeed + spare * 3 / 7, smallNeed + spare * 2 / 7, smallNeed + spare * 2 / 7});
    else if (rows == 1)
        chartSplitter_->setSizes({lossNeed + spare / 2, smallNeed + spare / 2, 0});
    else
        chartSplitter_->setSizes({height, 0, 0});
}

void MainWindow::applyChartPresentation() {
    // Each chart keeps its fonts and lines through new series, axes and
    // themes, and fits its labels to them.
    for (TrainingChart* chart : charts())
        chart->setPresentation(presentation_);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == verdict_ &&
        (event->type() == QEvent::ShowToParent || event->type() == QEvent::HideToParent ||
         event->type() == QEvent::LayoutRequest)) {
        verdictScroll_->setVisible(!verdict_->isHidden());
        // After the banner's own layout settled on its new text.
        QTimer::singleShot(0, this, &MainWindow::fitChartRows);
    } else if (watched == chartsArea_ && event->type() == QEvent::Resize) {
        fitChartRows();
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // Once per window: a small window squeezes the charts, presentation
    // gives them the room.
    if (!smallHintShown_ && !presentation_ &&
        (event->size().width() < kSmallWidth || event->size().height() < kSmallHeight)) {
        smallHintShown_ = true;
        // Once the window shows: a message given before would be drawn over
        // the status bar's own text.
        QTimer::singleShot(0, this, [this] {
            statusBar()->showMessage(
                tr("Small window: View > Presentation gives the charts the room (F5)"), 20000);
        });
    }
}

} // namespace hwl::ui
