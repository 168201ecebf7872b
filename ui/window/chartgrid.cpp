#include "window/chartgrid.h"

#include "charts/trainingchart.h"
#include "teaching/verdict.h"
#include "window/runcharts.h"

#include <QChart>
#include <QEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace hwl::ui {

namespace {
/// A chart's height beyond its plot (title, legend, labels) until it has
/// been laid out once; the loss chart's legend and x title take more.
constexpr int kGuessOverhead = 100, kGuessLossOverhead = 140;
} // namespace

ChartGrid::ChartGrid(RunCharts* charts, VerdictBanner* verdict, QWidget* parent)
    : QWidget(parent), charts_(charts), verdict_(verdict) {
    splitter_ = new QSplitter(Qt::Vertical);
    splitter_->addWidget(charts->loss());
    splitter_->setChildrenCollapsible(false); // a chart is shown readable, or not at all
    for (int i = 0; i < 2; ++i) {
        auto* row = rows_[i] = new QSplitter(Qt::Horizontal);
        row->setChildrenCollapsible(false);
        row->addWidget(i == 0 ? charts->accuracy() : charts->rate());
        row->addWidget(i == 0 ? charts->divergence() : charts->lostUpdates());
        if (i == 1)
            row->addWidget(charts->learningRate());
        splitter_->addWidget(row);
    }
    splitter_->setStretchFactor(0, 3); // the loss chart gets the most room
    splitter_->setStretchFactor(1, 2);
    splitter_->setStretchFactor(2, 2);

    // The verdict banner sits over the charts, where the eye is; a long one
    // scrolls rather than squeezing the charts (fit() bounds it).
    verdictScroll_ = new QScrollArea;
    verdictScroll_->setObjectName("verdictArea");
    verdictScroll_->setWidget(verdict_);
    verdictScroll_->setWidgetResizable(true);
    verdictScroll_->setFrameShape(QFrame::NoFrame);
    verdictScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    verdict_->hide();       // setWidget() showed it: hidden until a run ends
    verdictScroll_->hide(); // with the banner
    verdict_->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(verdictScroll_);
    layout->addWidget(splitter_, 1);
    connect(charts_, &RunCharts::layoutChanged, this, &ChartGrid::fit);
    // A chart's legend or labels may grow after the last fit (a series
    // added as a run ends, a legend wrapping): fit again, or its plot is
    // left under kMinPlot until the next resize.
    refit_ = new QTimer(this);
    refit_->setSingleShot(true);
    refit_->setInterval(0);
    connect(refit_, &QTimer::timeout, this, &ChartGrid::fit);
    for (TrainingChart* chart : charts_->all())
        connect(chart->chart(), &QChart::plotAreaChanged, this,
                [this, chart] { refitIfOverheadChanged(chart); });
}

std::optional<int> ChartGrid::overheadOf(const TrainingChart* chart) {
    const qreal plot = chart->chart()->plotArea().height();
    if (!chart->isVisible() || plot <= 0)
        return std::nullopt;
    return chart->height() - int(plot);
}

void ChartGrid::refitIfOverheadChanged(TrainingChart* chart) {
    // The overhead follows the texts, not the height fit() gives, so a
    // refit settles at once.
    const std::optional<int> overhead = overheadOf(chart);
    if (!overhead)
        return;
    const auto last = overhead_.constFind(chart);
    if (last != overhead_.constEnd() && std::abs(*last - *overhead) <= 2)
        return;
    overhead_[chart] = *overhead;
    refit_->start();
}

QByteArray ChartGrid::saveState() const {
    return splitter_->saveState();
}

bool ChartGrid::restoreState(const QByteArray& state) {
    return splitter_->restoreState(state);
}

int ChartGrid::shownRows() const {
    return int(!rows_[0]->isHidden()) + int(!rows_[1]->isHidden());
}

void ChartGrid::setPresentation(bool on) {
    presentation_ = on;
    // Each chart keeps its fonts and lines through new series, axes and
    // themes, and fits its labels to them.
    for (TrainingChart* chart : charts_->all())
        chart->setPresentation(on);
    fit();
}

int ChartGrid::heightFor(const TrainingChart* chart) const {
    const std::optional<int> measured = overheadOf(chart);
    int overhead = measured.value_or(0);
    if (overhead <= 0)
        overhead = chart == charts_->loss() ? kGuessLossOverhead : kGuessOverhead;
    if (presentation_ && !measured)
        overhead = int(overhead * TrainingChart::kPresentationFontScale);
    return kMinPlot + overhead;
}

void ChartGrid::placeSmallCharts(bool oneRow) {
    QSplitter* home = oneRow ? rows_[0] : rows_[1];
    bool moved = false;
    for (TrainingChart* chart : {charts_->rate(), charts_->lostUpdates(), charts_->learningRate()})
        if (chart->parentWidget() != home) {
            home->addWidget(chart);
            moved = true;
        }
    if (moved) // the charts of a row share it evenly
        for (QSplitter* row : rows_)
            row->setSizes(QList<int>(row->count(), std::max(1, row->width() / 2)));
}

void ChartGrid::fit() {
    for (TrainingChart* chart : charts_->all()) // what this fit plans with
        if (const std::optional<int> overhead = overheadOf(chart))
            overhead_[chart] = *overhead;
    const int gap = splitter_->handleWidth();
    const int room = height();
    const bool firstPair = !charts_->accuracy()->isHidden() || !charts_->divergence()->isHidden();
    const bool secondPair = !charts_->rate()->isHidden() || !charts_->lostUpdates()->isHidden() ||
                            !charts_->learningRate()->isHidden();
    const int pairs = int(firstPair) + int(secondPair);
    int bannerWant = 0;
    if (!verdict_->isHidden())
        bannerWant = verdict_->hasHeightForWidth() ? verdict_->heightForWidth(width())
                                                   : verdict_->sizeHint().height();
    const int bannerLeast = std::min(bannerWant, kBannerMin);
    // Each chart's height for a readable plot, as its texts are laid out now.
    const int lossNeed = heightFor(charts_->loss());
    int smallNeed = 0;
    for (TrainingChart* chart : charts_->all())
        if (chart != charts_->loss() && !chart->isHidden())
            smallNeed = std::max(smallNeed, heightFor(chart));
    const auto needed = [&](int rows) { return lossNeed + rows * (smallNeed + gap); };
    const auto fits = [&](int rows) { return bannerLeast + needed(rows) <= room; };
    // Two rows of two; else every small chart in one row; else the loss alone.
    const int rows = pairs == 2 && fits(2) ? 2 : pairs > 0 && fits(1) ? 1 : 0;
    const bool oneRow = pairs == 2 && rows == 1;
    placeSmallCharts(oneRow);
    rows_[0]->setVisible(rows >= 1 && (firstPair || oneRow));
    rows_[1]->setVisible(rows >= 1 && secondPair && !oneRow && (rows == 2 || !firstPair));
    int banner = 0;
    if (bannerWant > 0) {
        banner =
            std::clamp(room - needed(rows), bannerLeast, std::min(bannerWant, bannerMax(room)));
        verdictScroll_->setFixedHeight(banner);
    }
    // Each shown chart its readable height, and what is left shared 3 : 2
    // each row of two (evenly with one row). No minimum heights: one set
    // for a larger window keeps it from shrinking (a 1024x768 projector
    // window stayed 841 high), where these shares follow every resize.
    const int height = std::max(0, room - banner - rows * gap);
    const int spare = std::max(0, height - lossNeed - rows * smallNeed);
    if (rows == 2)
        splitter_->setSizes(
            {lossNeed + spare * 3 / 7, smallNeed + spare * 2 / 7, smallNeed + spare * 2 / 7});
    else if (rows == 1)
        splitter_->setSizes({lossNeed + spare / 2, smallNeed + spare / 2, 0});
    else
        splitter_->setSizes({height, 0, 0});
    if (isVisible()) // a window not shown yet has no room to speak of
        tellBannerWhatIsOut();
}

void ChartGrid::tellBannerWhatIsOut() {
    QStringList noRoom, unticked;
    for (TrainingChart* chart : charts_->all()) {
        if (chart->isHidden() && !RunCharts::ticked(chart))
            unticked << chart->objectName();
        else if (!chart->isHidden() && chart->parentWidget()->isHidden()) // its row
            noRoom << chart->objectName();
    }
    verdict_->setChartsOut(noRoom, unticked);
}

bool ChartGrid::eventFilter(QObject* watched, QEvent* event) {
    if (watched == verdict_ &&
        (event->type() == QEvent::ShowToParent || event->type() == QEvent::HideToParent ||
         event->type() == QEvent::LayoutRequest)) {
        verdictScroll_->setVisible(!verdict_->isHidden());
        // After the banner's own layout settled on its new text.
        QTimer::singleShot(0, this, &ChartGrid::fit);
    }
    return QWidget::eventFilter(watched, event);
}

void ChartGrid::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fit();
}

} // namespace hwl::ui
