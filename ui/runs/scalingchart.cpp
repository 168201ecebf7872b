#include "runs/scalingchart.h"

#include "io/runfolders.h"
#include "io/runscompare.h"
#include "widgets/chartaxes.h"
#include "widgets/chartview.h"
#include "widgets/numbers.h"

#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QCursor>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace hwl::ui {

namespace {

/// Whether every value the runs hold of `key` is a number (and one is there).
bool numericField(const QList<ScalingChart::Row>& rows, const QString& key) {
    bool any = false;
    for (const ScalingChart::Row& r : rows) {
        const QString v = r.fields.value(key);
        if (v.isEmpty())
            continue;
        bool ok = false;
        v.toDouble(&ok);
        if (!ok)
            return false;
        any = true;
    }
    return any;
}

/// Refills `box` with `items`, keeping its choice when still there (else `fallback`).
void refill(QComboBox* box, const QStringList& items, int fallback) {
    const QString chosen = box->currentText();
    box->clear();
    box->addItems(items);
    const int at = int(items.indexOf(chosen));
    box->setCurrentIndex(at >= 0 ? at : std::min(fallback, int(items.size()) - 1));
}

/// Whether every value of `key` the runs hold is a whole number.
bool wholeField(const QList<ScalingChart::Row>& rows, const QString& key) {
    for (const ScalingChart::Row& r : rows)
        if (const QString v = r.fields.value(key); !v.isEmpty())
            if (const double x = v.toDouble(); x != std::round(x))
                return false;
    return true;
}

/// A run that made no figure to draw: it failed, or never started.
bool madeNothing(const ScalingChart::Row& r) {
    return r.result == QLatin1String("failed") || r.result == QLatin1String("refused");
}

/// What a run's line is: every field but the one along x and the seed.
QString lineKey(const ScalingChart::Row& r, const QString& against) {
    QStringList parts;
    for (auto it = r.fields.begin(); it != r.fields.end(); ++it)
        if (it.key() != against && it.key() != QLatin1String("seed"))
            parts << it.key() + '=' + it.value();
    return parts.join(QChar(0x1f)); // a separator no value holds
}

/// What names the lines: the fields whose values differ between them
/// (io/runfolders.h's varyingKeys), the field along x and the seed aside.
/// `fieldsOf`: each line's fields.
QStringList fieldsThatDiffer(const std::map<QString, QMap<QString, QString>>& fieldsOf,
                             const QString& against) {
    std::vector<std::map<std::string, std::string>> lines;
    for (const auto& [key, fields] : fieldsOf) {
        auto& line = lines.emplace_back();
        for (auto it = fields.begin(); it != fields.end(); ++it)
            if (it.key() != against && it.key() != QLatin1String("seed"))
                line.emplace(it.key().toStdString(), it.value().toStdString());
    }
    QStringList differ;
    for (const std::string& key : varyingKeys(lines))
        differ << QString::fromStdString(key);
    return differ;
}
} // namespace

ScalingChart::ScalingChart(QWidget* parent) : QWidget(parent) {
    figure_ = new QComboBox;
    figure_->setObjectName("scalingFigure");
    figure_->setToolTip(tr("The final figure drawn up the chart"));
    against_ = new QComboBox;
    against_->setObjectName("scalingAgainst");
    against_->setToolTip(tr("The experiment field along x: one that varies between the runs"));
    auto* choices = new QHBoxLayout;
    choices->addWidget(figure_, 1);
    choices->addWidget(new QLabel(tr("against")));
    choices->addWidget(against_, 1);
    choices->addStretch(1);

    chart_ = ChartView::makeChart();
    view_ = new ChartView(chart_, this); // takes ownership of chart_
    view_->setObjectName("scalingChart");
    view_->setRenderHint(QPainter::Antialiasing);
    // Short enough to give way to the legend under it in a short tab: below
    // its minimum, a layout lays the legend over the chart's axis.
    view_->setMinimumSize(240, 80);
    connect(view_, &ChartView::resetRequested, this, &ScalingChart::redraw);
    empty_ = new QLabel(tr("Nothing to draw: the runs the table shows (filter it to choose "
                           "them) draw here once a field varies between them and they have "
                           "the figure chosen"));
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    chart_->legend()->hide(); // the legend is words under the chart: they wrap, never elided
    legend_ = new QLabel;
    legend_->setObjectName("scalingLegend");
    legend_->setWordWrap(true);
    legend_->setTextFormat(Qt::RichText);
    leftOut_ = new QLabel;
    leftOut_->setObjectName("scalingLeftOut");
    leftOut_->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(choices);
    layout->addWidget(view_, 1);
    layout->addWidget(legend_);
    layout->addWidget(leftOut_);
    layout->addWidget(empty_, 1);
    for (QComboBox* box : {figure_, against_})
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            if (!filling_)
                redraw();
        });
    redraw();
}

void ScalingChart::setData(const QStringList& figures, const QStringList& fields,
                           const QList<Row>& rows) {
    figures_ = figures;
    rows_ = rows;
    QStringList numeric, other; // numeric fields first along x
    for (const QString& key : fields)
        (numericField(rows, key) ? numeric : other).append(key);
    filling_ = true;
    refill(figure_, figures, 0);
    // Along x: workers when they vary (what the chart is for), else the
    // first numeric field.
    QStringList xs = numeric + other;
    xs.removeAll(QStringLiteral("seed")); // repeats' seeds: the spread, never an axis
    refill(against_, xs, std::max(0, int(xs.indexOf(QStringLiteral("workers")))));
    filling_ = false;
    redraw();
}

QList<QLineSeries*> ScalingChart::series() const {
    QList<QLineSeries*> out;
    for (const Line& line : lines_)
        out.append(line.series);
    return out;
}

QList<ScalingChart::Point> ScalingChart::points(int line) const {
    return line >= 0 && line < lines_.size() ? lines_[line].points : QList<Point>();
}

QLineSeries* ScalingChart::errorBar(int line, int point) const {
    if (line < 0 || line >= lines_.size() || point < 0 || point >= lines_[line].bars.size())
        return nullptr;
    return lines_[line].bars[point];
}

QString ScalingChart::pointText(int line, int point) const {
    if (line < 0 || line >= lines_.size() || point < 0 || point >= lines_[line].points.size())
        return {};
    const Point& p = lines_[line].points[point];
    const QString x = categories_.isEmpty() ? QString::number(p.x) : categories_.value(int(p.x));
    QString text =
        lines_.size() > 1 ? lines_[line].series->name() + QStringLiteral(", ") : QString();
    text += QStringLiteral("%1 %2: %3 ").arg(drawnAgainst_, x, figure_->currentText());
    if (p.n < 2)
        return text + tr("%1 (one run)").arg(formatSignificant(p.mean, 4));
    return text + tr("%1 ± %2, the mean ± sample standard deviation (n − 1) over %3 runs")
                      .arg(formatSignificant(p.mean, 4), formatSignificant(p.sd, 4))
                      .arg(p.n);
}

void ScalingChart::hover(int line, int point) {
    const QString text = pointText(line, point);
    view_->setHoverText(text); // kept while the pointer stays, as the training charts do
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(QCursor::pos(), text, view_);
}

void ScalingChart::addErrorBars(int index, double cap) {
    Line& line = lines_[index];
    QPen pen(line.series->color()); // after addSeries: the theme's colour of the line
    pen.setWidthF(1.5);
    for (int i = 0; i < line.points.size(); ++i) {
        const Point& p = line.points[i];
        line.bars.append(nullptr);
        if (p.n < 2 || !std::isfinite(p.sd))
            continue; // one run: no spread to draw
        auto* bar = new QLineSeries;
        // The figures are never below 0: nor is a bar (4.5M ± 5.1M samples/s
        // drew the axis down to -5M).
        const double low = std::max(0.0, p.mean - p.sd), high = p.mean + p.sd;
        // One path: the lower cap, the stem, the upper cap.
        bar->append(QList<QPointF>{{p.x - cap, low},
                                   {p.x + cap, low},
                                   {p.x, low},
                                   {p.x, high},
                                   {p.x - cap, high},
                                   {p.x + cap, high}});
        chart_->addSeries(bar);
        bar->setPen(pen);
        for (QLegendMarker* marker : chart_->legend()->markers(bar))
            marker->setVisible(false);
        connect(bar, &QLineSeries::hovered, this,
                [this, index, i](const QPointF&, bool on) { hover(on ? index : -1, i); });
        line.bars.back() = bar;
    }
}

void ScalingChart::addDots(Line& line, int index) {
    auto* dots = new QScatterSeries;
    dots->setName(line.series->name());
    dots->setMarkerSize(10);
    for (const Point& p : line.points)
        dots->append(p.x, p.mean);
    chart_->addSeries(dots);
    dots->setColor(line.series->color()); // after addSeries: the theme's colour of the line
    dots->setBorderColor(line.series->color());
    line.series->setVisible(false); // kept: its points, name and colour are the line's
    connect(dots, &QScatterSeries::hovered, this,
            [this, index](const QPointF& at, bool on) { hoverNear(index, at, on); });
}

void ScalingChart::hoverNear(int line, const QPointF& at, bool on) {
    const QList<Point>& points = lines_[line].points; // the one nearest in x
    const auto nearest =
        std::min_element(points.begin(), points.end(), [&](const Point& a, const Point& b) {
            return std::abs(a.x - at.x()) < std::abs(b.x - at.x());
        });
    hover(on ? line : -1, int(nearest - points.begin()));
}

void ScalingChart::setUpAxes(const QString& field, bool numeric, const QStringList& categories) {
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    auto* x = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    if (!numeric) {
        for (int i = 0; i < categories.size(); ++i)
            x->append(categories[i], i);
        x->setRange(-0.5, std::max(0.5, categories.size() - 0.5));
    }
    x->setTitleText(field);
    auto* y = new QCategoryAxis;
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart_->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    xAxis_ = numeric ? x : nullptr;
    yAxis_ = y;
    // Every point and both ends of every error bar inside the ranges.
    xLow_ = yLow_ = INFINITY;
    xHigh_ = yHigh_ = -INFINITY;
    for (const Line& line : lines_)
        for (const Point& p : line.points) {
            const double sd = p.n > 1 && std::isfinite(p.sd) ? p.sd : 0;
            yLow_ = std::min(yLow_, std::max(0.0, p.mean - sd));
            yHigh_ = std::max(yHigh_, p.mean + sd);
            xLow_ = std::min(xLow_, p.x);
            xHigh_ = std::max(xHigh_, p.x);
        }
    wholeX_ = numeric && wholeField(rows_, field);
    fitTicks();
}

void ScalingChart::fitTicks() {
    if (!yAxis_ || !(yLow_ <= yHigh_))
        return; // nothing drawn: no range
    const QFontMetricsF metrics(yAxis_->labelsFont());
    // The plot's height: the view's less the rows of x labels, x title,
    // legend and margins.
    const double plot = std::max(40.0, view_->height() - 5 * metrics.height() - 24);
    // Counts, rates, shares and times: from zero, so that a difference of
    // 163 samples/s in 819k is not drawn as a cliff (issue 49).
    double lo = yLow_, hi = yHigh_;
    widenRange(lo, hi, false);
    if (yLow_ >= 0)
        lo = 0;
    const AxisTicks yTicks = niceTicks(lo, hi, ticksFor(plot, 2.5 * metrics.height()));
    applyTicks(yAxis_, yTicks);
    // Room for the labels that sit on the axes' ends (half a label past
    // the plot's top and right edge), which the chart would cut.
    const double lastCategory =
        categories_.isEmpty() ? 0 : metrics.horizontalAdvance(categories_.back());
    chart_->setMargins(QMargins(4, int(std::ceil(metrics.height() / 2 + 4)),
                                int(std::ceil(lastCategory / 2 + 6)), 4));
    const QString title = figure_->currentText();
    const QFontMetricsF titleMetrics(yAxis_->titleFont());
    yAxis_->setTitleText(titleMetrics.horizontalAdvance(title) + 8 <= plot ? title : QString());
    if (!xAxis_)
        return;
    lo = xLow_;
    hi = xHigh_;
    widenRange(lo, hi, false);
    if (xLow_ >= 0)
        lo = std::max(0.0, lo);
    const double width = std::max(60.0, view_->width() - 8 * metrics.height());
    // Whole numbers (workers) tick at whole numbers: no 1.5 workers.
    const AxisTicks ticks =
        niceTicks(lo, hi, ticksFor(width, 6 * metrics.height()), true, wholeX_ ? 1 : 0);
    applyTicks(xAxis_, ticks);
    // The last x label sits on the axis' end: its half past it needs room.
    double widest = 0;
    for (const QString& label : xAxis_->categoriesLabels())
        widest = std::max(widest, metrics.horizontalAdvance(label));
    QMargins m = chart_->margins();
    m.setRight(std::max(m.right(), int(std::ceil(widest / 2 + 6))));
    chart_->setMargins(m);
}

void ScalingChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitTicks();
}

void ScalingChart::redraw() {
    chart_->removeAllSeries();
    lines_.clear();
    const int figure = figure_->currentIndex();
    drawnAgainst_ = against_->currentText();
    const bool numeric = numericField(rows_, drawnAgainst_);
    categories_.clear();
    if (!numeric) {
        for (const Row& r : rows_)
            if (const QString v = r.fields.value(drawnAgainst_);
                !v.isEmpty() && !categories_.contains(v))
                categories_.append(v);
        categories_.sort();
    }
    // line (every other field) -> x -> the figure of each run there
    std::map<QString, std::map<double, std::vector<double>>> runs;
    std::map<QString, QMap<QString, QString>> fieldsOf; // a line's fields
    int failed = 0;
    for (const Row& r : rows_) {
        if (madeNothing(r)) {
            ++failed;
            continue;
        }
        const double y = figure >= 0 && figure < r.figures.size() ? r.figures[figure] : NAN;
        const QString xText = r.fields.value(drawnAgainst_);
        if (!std::isfinite(y) || xText.isEmpty())
            continue;
        const QString key = lineKey(r, drawnAgainst_);
        fieldsOf[key] = r.fields;
        runs[key][numeric ? xText.toDouble() : double(categories_.indexOf(xText))].push_back(y);
    }
    const QStringList differ = fieldsThatDiffer(fieldsOf, drawnAgainst_);
    double xMin = INFINITY, xMax = -INFINITY;
    for (const auto& [key, byX] : runs) {
        Line line;
        line.series = new QLineSeries;
        QStringList name;
        for (const QString& field : differ)
            name << field + '=' + fieldsOf[key].value(field);
        line.series->setName(name.isEmpty() ? figure_->currentText()
                                            : name.join(QStringLiteral(", ")));
        line.series->setPointsVisible(true);
        for (const auto& [x, ys] : byX) { // std::map: x sorted
            const Spread s = spreadOf(ys);
            line.points.append({x, s.mean, s.sd, int(s.n)});
            line.series->append(x, s.mean);
            xMin = std::min(xMin, x);
            xMax = std::max(xMax, x);
        }
        chart_->addSeries(line.series);
        const int index = int(lines_.size());
        if (!numeric) // categories have no order to join: their points alone
            addDots(line, index);
        connect(line.series, &QLineSeries::hovered, this,
                [this, index](const QPointF& at, bool on) { hoverNear(index, at, on); });
        lines_.append(line);
    }
    // Caps a little wide in x: a share of the span of x, or of a category.
    const double span = numeric ? (xMax > xMin ? xMax - xMin : std::max(1.0, std::abs(xMax))) : 4;
    for (int i = 0; i < lines_.size(); ++i)
        addErrorBars(i, 0.015 * span);
    setUpAxes(drawnAgainst_, numeric, categories_);
    fillLegend();
    leftOut_->setText(failed == 1  ? tr("1 run that failed or never started left out: no "
                                         "figure of its is a measurement")
                      : failed > 1 ? tr("%1 runs that failed or never started left out: no "
                                        "figure of theirs is a measurement")
                                         .arg(failed)
                                   : QString());
    leftOut_->setVisible(failed > 0);
    const bool drawn = !runs.empty();
    view_->setVisible(drawn);
    legend_->setVisible(drawn && lines_.size() > 1);
    empty_->setVisible(!drawn);
}

void ScalingChart::fillLegend() {
    QStringList items;
    for (const Line& line : lines_)
        items << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2")
                     .arg(line.series->color().name(), line.series->name().toHtmlEscaped());
    legend_->setText(items.join(QStringLiteral(" &nbsp; ")));
}

} // namespace hwl::ui
