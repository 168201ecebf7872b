#include "charts/trainingchartparts.h"

#include "widgets/chartaxes.h"
#include "widgets/chartview.h"
#include "widgets/numbers.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace hwl::ui {

namespace {

// Tableau 10 (matplotlib's "tab10"): distinct, and none of them black, which
// is the test series' colour.
constexpr std::array<QRgb, 10> kPalette = {
    0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
    0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
};

QString xTitle(TrainingChart::XAxis axis) {
    switch (axis) {
    case TrainingChart::XAxis::Step:
        return QStringLiteral("step");
    case TrainingChart::XAxis::Samples:
        return QStringLiteral("samples");
    case TrainingChart::XAxis::Time:
        return QStringLiteral("time (s)");
    }
    return {};
}

} // namespace

QColor TrainingChart::workerColor(int rank) {
    const int n = int(kPalette.size());
    if (rank >= 0 && rank < n)
        return QColor(kPalette[std::size_t(rank)]);
    // Past ten: hues a golden angle apart, alternating lightness.
    const double hue = std::fmod(0.1 + 0.6180339887 * double(std::abs(rank)), 1.0);
    return QColor::fromHsvF(float(hue), 0.70f, rank % 2 ? 0.85f : 0.60f);
}

const double ChartSample::*TrainingChart::Parts::xFieldOf(XAxis axis) {
    switch (axis) {
    case TrainingChart::XAxis::Step:
        return &ChartSample::step;
    case TrainingChart::XAxis::Samples:
        return &ChartSample::samples;
    case TrainingChart::XAxis::Time:
        return &ChartSample::time;
    }
    return &ChartSample::step;
}

TrainingChart::TrainingChart(const QString& title, const QString& yTitle, QWidget* parent)
    : QWidget(parent), p_(std::make_unique<Parts>(*this, title, yTitle)) {
    p_->chart_ = ChartView::makeChart();
    p_->chart_->setTitle(title);

    p_->view_ = new ChartView(p_->chart_, this); // takes ownership of chart_
    p_->view_->setRenderHint(QPainter::Antialiasing);
    connect(p_->view_, &ChartView::zoomed, this, [this] {
        p_->zoomed_ = true; // said after the zoom: both axes have their new range
        p_->relabelAxis(p_->xAxisItem_);
        p_->relabelAxis(p_->yAxisItem_);
    });
    connect(p_->view_, &ChartView::resetRequested, this, &TrainingChart::resetZoom);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(p_->view_);

    p_->xAxisItem_ = new QCategoryAxis;
    p_->xAxisItem_->setTitleText(xTitle(p_->xMode_));
    p_->xAxisItem_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // The ticks are chosen so that their labels fit (chartaxes.h); Qt
    // Charts could still cut them to "..." at the room of earlier, shorter
    // labels until a later layout, so it may not cut them at all.
    p_->xAxisItem_->setTruncateLabels(false);
    p_->chart_->addAxis(p_->xAxisItem_, Qt::AlignBottom);
    p_->readThemeFonts(); // as the theme gave them to the chart and the new axis
    p_->replaceYAxis();
    // A zoom moves the range: ticks at round values inside it, told apart.
    connect(p_->xAxisItem_, &QCategoryAxis::rangeChanged, this, [this] {
        if (p_->zoomed_)
            p_->relabelAxis(p_->xAxisItem_);
    });

    // The plot area follows the widget size: more pixel columns want more
    // downsampling buckets.
    connect(p_->chart_, &QChart::plotAreaChanged, this, [this] { p_->onPlotAreaChanged(); });
    // The legend elides its labels as it is laid out: fit them to its width.
    connect(p_->chart_->legend(), &QGraphicsWidget::geometryChanged, this,
            [this] { p_->queueFitTexts(); });
}

TrainingChart::~TrainingChart() = default;

ChartSeries* TrainingChart::Parts::find(int seriesId) {
    if (seriesId == kTestSeries)
        return test_ ? &*test_ : nullptr;
    if (seriesId <= kOverlayBase) {
        const std::size_t i = std::size_t(kOverlayBase - seriesId);
        return i < overlays_.size() ? &overlays_[i] : nullptr;
    }
    if (seriesId < 0 || seriesId >= int(workers_.size()))
        return nullptr;
    return &workers_[std::size_t(seriesId)];
}

const ChartSeries* TrainingChart::Parts::find(int seriesId) const {
    return const_cast<Parts*>(this)->find(seriesId);
}

ChartSeries* TrainingChart::Parts::find(const QLineSeries* line) {
    ChartSeries* found = nullptr;
    forEachSeries([&](ChartSeries& s) {
        if (s.line == line)
            found = &s;
    });
    return found;
}

QLineSeries* TrainingChart::series(int seriesId) const {
    const ChartSeries* s = p_->find(seriesId);
    return s ? s->line : nullptr;
}

QLineSeries* TrainingChart::Parts::addLineSeries(const QString& name, const QColor& color,
                                                 bool isTest) {
    auto* line = new QLineSeries;
    line->setName(name);
    chart_->addSeries(line); // takes ownership
    line->attachAxis(xAxisItem_);
    line->attachAxis(yAxisItem_);
    // After addSeries: the theme would otherwise pick the colour.
    QPen pen(color);
    pen.setWidthF(lineWidth(isTest ? 2.5 : 1.5));
    pen.setStyle(isTest ? Qt::DashLine : Qt::SolidLine);
    line->setPen(pen);

    if (isTest)
        line->setPointsVisible(true); // each test evaluation is a marked point
    line->setMarkerSize(6);           // the test's dots: their outline grows with the pen
    QObject::connect(line, &QLineSeries::hovered, &q, [this, line](const QPointF& p, bool entered) {
        const ChartSeries* s = find(line);
        // The view keeps the text, so that its own tooltip ("Drag a
        // rectangle...") does not replace it while the pointer stays.
        const QString text = entered && s ? q.describePoint(s->id, p.x()) : QString();
        view_->setHoverText(text);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(QCursor::pos(), text, view_);
    });

    const QList<QLegendMarker*> markers = chart_->legend()->markers(line);
    for (QLegendMarker* marker : markers) {
        QObject::connect(marker, &QLegendMarker::clicked, &q, [this, line] {
            if (ChartSeries* s = find(line))
                q.setSeriesVisible(s->id, !line->isVisible());
        });
    }
    return line;
}

void TrainingChart::setWorkerCount(int n, bool withTestSeries) {
    p_->workers_.clear();
    p_->test_.reset();
    p_->marks_.clear();
    n = std::max(n, 0);
    p_->workers_.resize(std::size_t(n));
    for (int rank = 0; rank < n; ++rank) {
        p_->workers_[std::size_t(rank)].id = rank;
        p_->workers_[std::size_t(rank)].resetDerived(
            p_->weightOf(p_->workers_[std::size_t(rank)])); // the current smoothing weight
    }
    if (withTestSeries) {
        p_->test_ = ChartSeries(); // not emplace(): clang 14 deems ChartSeries not yet
                                   // default-constructible here
        p_->test_->id = kTestSeries;
        p_->test_->resetDerived(p_->weightOf(*p_->test_));
    }
    p_->recreateLines();
    p_->fitAxes();
}

void TrainingChart::appendPoints(int seriesId, const QList<ChartSample>& points) {
    ChartSeries* s = p_->find(seriesId);
    if (!s || points.isEmpty())
        return;
    s->append(points, p_->rawLimit_, p_->weightOf(*s));
}

void TrainingChart::setRawPointLimit(qsizetype limit) {
    p_->rawLimit_ = std::max<qsizetype>(16, limit);
    p_->forEachSeries([this](ChartSeries& s) { s.enforceLimit(p_->rawLimit_, p_->weightOf(s)); });
}

void TrainingChart::clear() {
    p_->forEachSeries([this](ChartSeries& s) {
        s.raw = QList<ChartSample>(); // frees the memory, unlike QList::clear()
        s.resetDerived(p_->weightOf(s));
        s.dirty = true;
    });
    p_->marks_.clear();
    refresh();
}

void TrainingChart::Parts::markAllDirty() {
    forEachSeries([](ChartSeries& s) { s.dirty = true; });
    marks_.markDirty();
}

void TrainingChart::Parts::resetAllDerived() {
    forEachSeries([this](ChartSeries& s) {
        s.resetDerived(weightOf(s));
        s.dirty = true;
    });
    marks_.markDirty();
}

void TrainingChart::setSmoothing(double weight) {
    const double w = clampSmoothingWeight(weight);
    if (w == p_->smoothing_)
        return;
    p_->smoothing_ = w;
    p_->resetAllDerived();
    refresh();
}

void TrainingChart::setXAxis(XAxis axis) {
    if (axis == p_->xMode_)
        return;
    p_->xMode_ = axis;
    p_->xAxisItem_->setTitleText(xTitle(axis));
    p_->resetAllDerived();
    refresh();
}

void TrainingChart::setXTitleVisible(bool visible) {
    p_->xTitleWanted_ = visible;
    p_->fitTexts();
}

void TrainingChart::setLogScale(bool on) {
    if (on == p_->logScale_)
        return;
    p_->logScale_ = on;
    p_->replaceYAxis();
    p_->resetAllDerived();
    refresh();
}

void TrainingChart::Parts::replaceYAxis() {
    // A log scale is a linear axis over log10(y), labelled with the values:
    // Qt's QLogValueAxis labels powers of ten only ("1e+05", one label over
    // less than a decade) and warns about every zero it is shown.
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setTruncateLabels(false); // as the x axis: the ticks fit by choice
    axis->setTitleText(yTitle_);
    QObject::connect(axis, &QCategoryAxis::rangeChanged, &q, [this, axis] {
        if (zoomed_)
            relabelAxis(axis);
    });
    if (yAxisItem_) {
        chart_->removeAxis(yAxisItem_); // detaches it from every series
        delete yAxisItem_;
    }
    yAxisItem_ = axis;
    chart_->addAxis(axis, Qt::AlignLeft);
    applyFonts(); // the new axis has the theme's
    forEachSeries([axis](ChartSeries& s) { s.line->attachAxis(axis); });
    marks_.attachY(axis);
}

void TrainingChart::setSeriesVisible(int seriesId, bool visible) {
    ChartSeries* s = p_->find(seriesId);
    if (!s || s->line->isVisible() == visible)
        return;
    s->line->setVisible(visible); // also hides its legend marker...
    for (QLegendMarker* marker : p_->chart_->legend()->markers(s->line))
        p_->styleMarker(marker, visible); // ...which comes back, dimmed
    if (visible && s->dirty)
        p_->rebuild(*s); // hidden series are not rebuilt by refresh()
    p_->fitAxes();
    Q_EMIT seriesVisibilityChanged(seriesId, visible);
}

bool TrainingChart::seriesVisible(int seriesId) const {
    const ChartSeries* s = p_->find(seriesId);
    return s && s->line->isVisible();
}

int TrainingChart::Parts::wantedBuckets() const {
    return std::max(kMinBuckets, int(std::lround(chart_->plotArea().width())));
}

bool TrainingChart::Parts::bucketsOutOfDate(int wanted) const {
    // Axis labels change width as the data grows and move the plot area by a
    // few pixels; rebuilding every series for that would make each refresh a
    // full one, and could chain refreshes through plotAreaChanged.
    return std::abs(wanted - buckets_) * 10 > buckets_;
}

void TrainingChart::Parts::onPlotAreaChanged() {
    const int wanted = wantedBuckets();
    const QRectF area = chart_->plotArea();
    // The y ticks are chosen again when the height moves by a label's worth.
    const double labelHeight = QFontMetricsF(yAxisItem_->labelsFont()).height();
    const QPoint ticks(xTicks(xAxisItem_->min(), xAxisItem_->max()),
                       int(area.height() / std::max(1.0, labelHeight)));
    fitTexts();
    const bool retick = ticks != ticks_;
    ticks_ = ticks;
    if (refreshQueued_ || (!bucketsOutOfDate(wanted) && !retick))
        return;
    refreshQueued_ = true;
    QMetaObject::invokeMethod(
        &q,
        [this] {
            refreshQueued_ = false;
            q.refresh();
        },
        Qt::QueuedConnection);
}

void TrainingChart::refresh() {
    const int wanted = p_->wantedBuckets();
    if (p_->bucketsOutOfDate(wanted)) {
        p_->buckets_ = wanted;
        p_->markAllDirty();
    }
    p_->forEachSeries([this](ChartSeries& s) {
        if (s.dirty && s.line->isVisible())
            p_->rebuild(s);
    });
    // A dot per evaluation while they can be told apart; past that a thin,
    // translucent solid line, so that thousands of evaluations that move by
    // a tenth of a percent read as a band, not a solid black block of
    // dashes (the lost-updates preset's 3000).
    if (p_->test_ &&
        p_->test_->line->pointsVisible() != (p_->test_->raw.size() <= kMaxDottedEvaluations)) {
        const bool dotted = p_->test_->raw.size() <= kMaxDottedEvaluations;
        p_->test_->line->setPointsVisible(dotted);
        QPen pen = p_->test_->line->pen();
        QColor color = p_->testColor_;
        color.setAlpha(dotted ? 255 : 110);
        pen.setColor(color);
        pen.setWidthF(p_->lineWidth(dotted ? 2.5 : 1.0));
        pen.setStyle(dotted ? Qt::DashLine : Qt::SolidLine);
        p_->test_->line->setPen(pen);
    }
    bool workersChanged = false;
    for (const ChartSeries& s : p_->workers_)
        workersChanged = workersChanged || s.dirty;
    if (p_->bandView_ && workersChanged)
        p_->rebuildBand();
    p_->rebuildMarkers();
    p_->fitAxes();
}

void TrainingChart::Parts::rebuild(ChartSeries& s) {
    const QList<QPointF> shown =
        s.displayPoints(xFieldOf(xMode_), weightOf(s), logScale_, buckets_, scratch_);
    // Replacing makes Qt Charts recompute the series' geometry: not for nothing.
    if (shown != s.line->points())
        s.line->replace(shown);
    // One point makes no line: it is drawn as a dot (a short paced run's
    // throughput, issue 49, was a blank chart); the test curve keeps its own.
    if (const bool isTest = test_ && &s == &*test_; !isTest)
        s.line->setPointsVisible(shown.size() == 1);
    s.dirty = false;
}

QString TrainingChart::describePoint(int seriesId, double x) const {
    const ChartSeries* s = p_->find(seriesId);
    if (!s || s->raw.isEmpty())
        return {};
    // The nearest raw sample in x.
    const qsizetype best = s->nearest(Parts::xFieldOf(p_->xMode_), x);
    const ChartSample& c = s->raw[best];
    QString text = QStringLiteral("%1\nstep %2 · samples %3 · %4 s\nvalue %5")
                       .arg(s->line->name(), formatCount(std::int64_t(std::llround(c.step))),
                            formatCount(std::int64_t(std::llround(c.samples))),
                            formatDecimal(c.time, 2), formatSignificant(c.value));
    if (p_->weightOf(*s) > 0 && s->sorted && best < s->processed)
        text += QStringLiteral(", smoothed %1")
                    .arg(formatSignificant(fromAxisY(s->decimated.value(best), p_->logScale_)));
    return text;
}

QList<QPointF> TrainingChart::displayedPoints(int seriesId) const {
    const ChartSeries* s = p_->find(seriesId);
    if (!s)
        return {};
    QList<QPointF> points = s->line->points();
    if (p_->logScale_) // as the values are, not as the axis holds them
        for (QPointF& p : points)
            p.setY(fromAxisY(p.y(), p_->logScale_));
    return points;
}

const QList<ChartSample>& TrainingChart::rawPoints(int seriesId) const {
    static const QList<ChartSample> kEmpty;
    const ChartSeries* s = p_->find(seriesId);
    return s ? s->raw : kEmpty;
}

} // namespace hwl::ui

namespace hwl::ui {

int TrainingChart::workerCount() const {
    return int(p_->workers_.size());
}
bool TrainingChart::hasTestSeries() const {
    return p_->test_.has_value();
}
int TrainingChart::overlayCount() const {
    return int(p_->overlays_.size());
}
void TrainingChart::setOverlayColorPeers(int workers) {
    p_->colorPeers_ = workers;
}
bool TrainingChart::overlaysFitAxes() const {
    return p_->overlaysFitAxes_;
}
bool TrainingChart::bandView() const {
    return p_->bandView_;
}
bool TrainingChart::zoomed() const {
    return p_->zoomed_;
}
ChartView* TrainingChart::view() const {
    return p_->view_;
}
double TrainingChart::smoothing() const {
    return p_->smoothing_;
}
TrainingChart::XAxis TrainingChart::xAxis() const {
    return p_->xMode_;
}
bool TrainingChart::logScale() const {
    return p_->logScale_;
}
qsizetype TrainingChart::rawPointLimit() const {
    return p_->rawLimit_;
}
int TrainingChart::bucketCount() const {
    return p_->buckets_;
}
QChart* TrainingChart::chart() const {
    return p_->chart_;
}
const QString& TrainingChart::title() const {
    return p_->title_;
}
bool TrainingChart::darkTheme() const {
    return p_->dark_;
}
bool TrainingChart::presentation() const {
    return p_->presentation_;
}

} // namespace hwl::ui
