#include "runs/scalingchart.h"

#include "widgets/chartview.h"

#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>
#include <map>

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

} // namespace

QString ScalingChart::noLines() {
    return tr("(none)");
}

ScalingChart::ScalingChart(QWidget* parent) : QWidget(parent) {
    figure_ = new QComboBox;
    figure_->setObjectName("scalingFigure");
    figure_->setToolTip(tr("The final figure drawn up the chart"));
    against_ = new QComboBox;
    against_->setObjectName("scalingAgainst");
    against_->setToolTip(tr("The experiment field along x: one that varies between the runs"));
    line_ = new QComboBox;
    line_->setObjectName("scalingLines");
    line_->setToolTip(tr("One line per value of this field"));
    auto* choices = new QHBoxLayout;
    choices->addWidget(figure_, 1);
    choices->addWidget(new QLabel(tr("against")));
    choices->addWidget(against_, 1);
    choices->addWidget(new QLabel(tr("one line per")));
    choices->addWidget(line_, 1);

    chart_ = ChartView::makeChart();
    view_ = new ChartView(chart_, this); // takes ownership of chart_
    view_->setObjectName("scalingChart");
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumSize(240, 160);
    connect(view_, &ChartView::resetRequested, this, &ScalingChart::redraw);
    empty_ = new QLabel(tr("Nothing to draw: the runs the table shows (filter it to choose "
                           "them) draw here once a field varies between them and they have "
                           "the figure chosen"));
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(choices);
    layout->addWidget(view_, 1);
    layout->addWidget(empty_, 1);
    for (QComboBox* box : {figure_, against_, line_})
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
    refill(against_, numeric + other, 0);
    // Lines: by default the first field that is no number (mode), else none.
    const QStringList lines = QStringList{noLines()} + other + numeric;
    const QString against = against_->currentText();
    int fallback = 0;
    for (int i = 1; i < lines.size() && i <= other.size() && fallback == 0; ++i)
        if (lines[i] != against)
            fallback = i;
    refill(line_, lines, fallback);
    filling_ = false;
    redraw();
}

QList<QLineSeries*> ScalingChart::series() const {
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : chart_->series())
        if (auto* line = qobject_cast<QLineSeries*>(s))
            out.append(line);
    return out;
}

void ScalingChart::setUpAxes(const QString& field, bool numeric, const QStringList& categories) {
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    QAbstractAxis* x = nullptr;
    if (numeric) {
        auto* values = new QValueAxis;
        values->setLabelFormat(QStringLiteral("%g"));
        x = values;
    } else {
        auto* names = new QCategoryAxis;
        names->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        for (int i = 0; i < categories.size(); ++i)
            names->append(categories[i], i);
        names->setRange(-0.5, std::max(0.5, categories.size() - 0.5));
        x = names;
    }
    x->setTitleText(field);
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%g"));
    y->setTitleText(figure_->currentText());
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart_->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    if (numeric)
        static_cast<QValueAxis*>(x)->applyNiceNumbers();
    y->applyNiceNumbers();
}

void ScalingChart::redraw() {
    chart_->removeAllSeries();
    const int figure = figure_->currentIndex();
    const QString against = against_->currentText();
    const QString lines = line_->currentIndex() > 0 ? line_->currentText() : QString();
    const bool numeric = numericField(rows_, against);
    QStringList categories;
    if (!numeric) {
        for (const Row& r : rows_)
            if (const QString v = r.fields.value(against); !v.isEmpty() && !categories.contains(v))
                categories.append(v);
        categories.sort();
    }
    // line value -> x -> (sum, count)
    std::map<QString, std::map<double, std::pair<double, int>>> points;
    for (const Row& r : rows_) {
        const double y = figure >= 0 && figure < r.figures.size() ? r.figures[figure] : NAN;
        const QString xText = r.fields.value(against);
        const QString line = lines.isEmpty() ? QString() : r.fields.value(lines);
        if (!std::isfinite(y) || xText.isEmpty() || (!lines.isEmpty() && line.isEmpty()))
            continue;
        const double x = numeric ? xText.toDouble() : double(categories.indexOf(xText));
        auto& point = points[line][x];
        point.first += y;
        point.second += 1;
    }
    for (const auto& [line, byX] : points) {
        auto* series = new QLineSeries;
        series->setName(lines.isEmpty() ? figure_->currentText()
                                        : QStringLiteral("%1=%2").arg(lines, line));
        series->setPointsVisible(true);
        for (const auto& [x, sum] : byX) // std::map: x sorted
            series->append(x, sum.first / sum.second);
        chart_->addSeries(series);
    }
    setUpAxes(against, numeric, categories);
    const bool drawn = !points.empty();
    view_->setVisible(drawn);
    empty_->setVisible(!drawn);
}

} // namespace hwl::ui
