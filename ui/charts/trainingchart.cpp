#include "charts/trainingchart.h"

#include "charts/chartaxes.h"
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

const double ChartSample::*TrainingChart::xFieldOf(XAxis axis) {
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
    : QWidget(parent), title_(title), yTitle_(yTitle) {
    chart_ = ChartView::makeChart();
    chart_->setTitle(title);

    view_ = new ChartView(chart_, this); // takes ownership of chart_
    view_->setRenderHint(QPainter::Antialiasing);
    connect(view_, &ChartView::zoomed, this, [this] {
        zoomed_ = true; // said after the zoom: both axes have their new range
        relabelAxis(xAxisItem_);
        relabelAxis(yAxisItem_);
    });
    connect(view_, &ChartView::resetRequested, this, &TrainingChart::resetZoom);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);

    xAxisItem_ = new QCategoryAxis;
    xAxisItem_->setTitleText(xTitle(xMode_));
    xAxisItem_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // The ticks are chosen so that their labels fit (chartaxes.h); Qt
    // Charts could still cut them to "..." at the room of earlier, shorter
    // labels until a later layout, so it may not cut them at all.
    xAxisItem_->setTruncateLabels(false);
    chart_->addAxis(xAxisItem_, Qt::AlignBottom);
    readThemeFonts(); // as the theme gave them to the chart and the new axis
    replaceYAxis();
    // A zoom moves the range: ticks at round values inside it, told apart.
    connect(xAxisItem_, &QCategoryAxis::rangeChanged, this, [this] {
        if (zoomed_)
            relabelAxis(xAxisItem_);
    });

    // The plot area follows the widget size: more pixel columns want more
    // downsampling buckets.
    connect(chart_, &QChart::plotAreaChanged, this, [this] { onPlotAreaChanged(); });
    // The legend elides its labels as it is laid out: fit them to its width.
    connect(chart_->legend(), &QGraphicsWidget::geometryChanged, this, [this] { queueFitTexts(); });
}

TrainingChart::~TrainingChart() = default;

TrainingChart::Series* TrainingChart::find(int seriesId) {
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

const TrainingChart::Series* TrainingChart::find(int seriesId) const {
    return const_cast<TrainingChart*>(this)->find(seriesId);
}

TrainingChart::Series* TrainingChart::find(const QLineSeries* line) {
    Series* found = nullptr;
    forEachSeries([&](Series& s) {
        if (s.line == line)
            found = &s;
    });
    return found;
}

QLineSeries* TrainingChart::series(int seriesId) const {
    const Series* s = find(seriesId);
    return s ? s->line : nullptr;
}

QLineSeries* TrainingChart::addLineSeries(const QString& name, const QColor& color, bool isTest) {
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
    connect(line, &QLineSeries::hovered, this, [this, line](const QPointF& p, bool entered) {
        const Series* s = find(line);
        // The view keeps the text, so that its own tooltip ("Drag a
        // rectangle...") does not replace it while the pointer stays.
        const QString text = entered && s ? describePoint(s->id, p.x()) : QString();
        view_->setHoverText(text);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(QCursor::pos(), text, view_);
    });

    const QList<QLegendMarker*> markers = chart_->legend()->markers(line);
    for (QLegendMarker* marker : markers) {
        connect(marker, &QLegendMarker::clicked, this, [this, line] {
            if (Series* s = find(line))
                setSeriesVisible(s->id, !line->isVisible());
        });
    }
    return line;
}

void TrainingChart::setWorkerCount(int n, bool withTestSeries) {
    workers_.clear();
    test_.reset();
    marks_.clear();
    n = std::max(n, 0);
    workers_.resize(std::size_t(n));
    for (int rank = 0; rank < n; ++rank) {
        workers_[std::size_t(rank)].id = rank;
        workers_[std::size_t(rank)].resetDerived(smoothing_); // the current smoothing weight
    }
    if (withTestSeries) {
        test_ = Series(); // not emplace(): clang 14 deems Series not yet default-constructible here
        test_->id = kTestSeries;
        test_->resetDerived(smoothing_);
    }
    recreateLines();
    fitAxes();
}

void TrainingChart::appendPoints(int seriesId, const QList<ChartSample>& points) {
    Series* s = find(seriesId);
    if (!s || points.isEmpty())
        return;
    s->append(points, rawLimit_, smoothing_);
}

void TrainingChart::setRawPointLimit(qsizetype limit) {
    rawLimit_ = std::max<qsizetype>(16, limit);
    forEachSeries([this](Series& s) { s.enforceLimit(rawLimit_, smoothing_); });
}

void TrainingChart::clear() {
    forEachSeries([this](Series& s) {
        s.raw = QList<ChartSample>(); // frees the memory, unlike QList::clear()
        s.resetDerived(smoothing_);
        s.dirty = true;
    });
    marks_.clear();
    refresh();
}

void TrainingChart::markAllDirty() {
    forEachSeries([](Series& s) { s.dirty = true; });
    marks_.markDirty();
}

void TrainingChart::resetAllDerived() {
    forEachSeries([this](Series& s) {
        s.resetDerived(smoothing_);
        s.dirty = true;
    });
    marks_.markDirty();
}

void TrainingChart::setSmoothing(double weight) {
    const double w = clampSmoothingWeight(weight);
    if (w == smoothing_)
        return;
    smoothing_ = w;
    resetAllDerived();
    refresh();
}

void TrainingChart::setXAxis(XAxis axis) {
    if (axis == xMode_)
        return;
    xMode_ = axis;
    xAxisItem_->setTitleText(xTitle(axis));
    resetAllDerived();
    refresh();
}

void TrainingChart::setXTitleVisible(bool visible) {
    xTitleWanted_ = visible;
    fitTexts();
}

void TrainingChart::setLogScale(bool on) {
    if (on == logScale_)
        return;
    logScale_ = on;
    replaceYAxis();
    resetAllDerived();
    refresh();
}

void TrainingChart::replaceYAxis() {
    // A log scale is a linear axis over log10(y), labelled with the values:
    // Qt's QLogValueAxis labels powers of ten only ("1e+05", one label over
    // less than a decade) and warns about every zero it is shown.
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setTruncateLabels(false); // as the x axis: the ticks fit by choice
    axis->setTitleText(yTitle_);
    connect(axis, &QCategoryAxis::rangeChanged, this, [this, axis] {
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
    forEachSeries([axis](Series& s) { s.line->attachAxis(axis); });
    marks_.attachY(axis);
}

void TrainingChart::setSeriesVisible(int seriesId, bool visible) {
    Series* s = find(seriesId);
    if (!s || s->line->isVisible() == visible)
        return;
    s->line->setVisible(visible); // also hides its legend marker...
    for (QLegendMarker* marker : chart_->legend()->markers(s->line))
        styleMarker(marker, visible); // ...which comes back, dimmed
    if (visible && s->dirty)
        rebuild(*s); // hidden series are not rebuilt by refresh()
    fitAxes();
    Q_EMIT seriesVisibilityChanged(seriesId, visible);
}

bool TrainingChart::seriesVisible(int seriesId) const {
    const Series* s = find(seriesId);
    return s && s->line->isVisible();
}

int TrainingChart::wantedBuckets() const {
    return std::max(kMinBuckets, int(std::lround(chart_->plotArea().width())));
}

bool TrainingChart::bucketsOutOfDate(int wanted) const {
    // Axis labels change width as the data grows and move the plot area by a
    // few pixels; rebuilding every series for that would make each refresh a
    // full one, and could chain refreshes through plotAreaChanged.
    return std::abs(wanted - buckets_) * 10 > buckets_;
}

void TrainingChart::onPlotAreaChanged() {
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
        this,
        [this] {
            refreshQueued_ = false;
            refresh();
        },
        Qt::QueuedConnection);
}

void TrainingChart::refresh() {
    const int wanted = wantedBuckets();
    if (bucketsOutOfDate(wanted)) {
        buckets_ = wanted;
        markAllDirty();
    }
    forEachSeries([this](Series& s) {
        if (s.dirty && s.line->isVisible())
            rebuild(s);
    });
    // A dot per evaluation while they can be told apart; a line past that.
    if (test_ && test_->line->pointsVisible() != (test_->raw.size() <= kMaxDottedEvaluations))
        test_->line->setPointsVisible(test_->raw.size() <= kMaxDottedEvaluations);
    bool workersChanged = false;
    for (const Series& s : workers_)
        workersChanged = workersChanged || s.dirty;
    if (bandView_ && workersChanged)
        rebuildBand();
    rebuildMarkers();
    fitAxes();
}

void TrainingChart::rebuild(Series& s) {
    const QList<QPointF> shown =
        s.displayPoints(xFieldOf(xMode_), smoothing_, logScale_, buckets_, scratch_);
    // Replacing makes Qt Charts recompute the series' geometry: not for nothing.
    if (shown != s.line->points())
        s.line->replace(shown);
    s.dirty = false;
}

QString TrainingChart::describePoint(int seriesId, double x) const {
    const Series* s = find(seriesId);
    if (!s || s->raw.isEmpty())
        return {};
    // The nearest raw sample in x.
    const qsizetype best = s->nearest(xFieldOf(xMode_), x);
    const ChartSample& c = s->raw[best];
    QString text = QStringLiteral("%1\nstep %2 · samples %3 · %4 s\nvalue %5")
                       .arg(s->line->name(), formatCount(std::int64_t(std::llround(c.step))),
                            formatCount(std::int64_t(std::llround(c.samples))),
                            formatDecimal(c.time, 2), formatSignificant(c.value));
    if (smoothing_ > 0 && s->sorted && best < s->processed)
        text += QStringLiteral(", smoothed %1")
                    .arg(formatSignificant(fromAxisY(s->decimated.value(best), logScale_)));
    return text;
}

QList<QPointF> TrainingChart::displayedPoints(int seriesId) const {
    const Series* s = find(seriesId);
    if (!s)
        return {};
    QList<QPointF> points = s->line->points();
    if (logScale_) // as the values are, not as the axis holds them
        for (QPointF& p : points)
            p.setY(fromAxisY(p.y(), logScale_));
    return points;
}

const QList<ChartSample>& TrainingChart::rawPoints(int seriesId) const {
    static const QList<ChartSample> kEmpty;
    const Series* s = find(seriesId);
    return s ? s->raw : kEmpty;
}

} // namespace hwl::ui
