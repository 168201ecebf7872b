#include "charts/timelineview.h"

#include "run/run.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {
constexpr int kGap = 8; ///< between the labels, the plot and the shares

/// "compute 84% · wait 16%": each kind's share of the time the worker
/// accounted for in view, the kinds it spent none in left out; the shares
/// add up to 100 give or take the rounding.
QString sharesText(const KindNs& t) {
    double sum = 0;
    for (const double ns : t)
        sum += ns;
    if (sum <= 0)
        return TimelineView::tr("nothing in view");
    QStringList parts;
    for (std::size_t k = 0; k < kTraceKinds; ++k)
        if (t[k] > 0)
            parts << QStringLiteral("%1 %2%")
                         .arg(QString::fromLatin1(traceKindName(TraceKind(k))))
                         .arg(std::lround(100.0 * t[k] / sum));
    return parts.join(QStringLiteral(" · "));
}

/// A tick step in seconds that puts about `wanted` ticks over `seconds`.
double tickStep(double seconds, int wanted) {
    const double raw = seconds / std::max(1, wanted);
    for (const double step : {0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0})
        if (step >= raw)
            return step;
    return 10.0;
}
} // namespace

struct TimelineView::Geometry {
    int line = 0;            ///< a text line's height
    int labelWidth = 0;      ///< "worker N"
    int sharesWidth = 0;     ///< the shares' column
    QRect plot;              ///< the rows' drawing area, evaluations' row included
    int evaluationRow = 0;   ///< its height, over the workers' rows
    int row = 0;             ///< a worker row's height
    std::int64_t fromNs = 0; ///< the left edge, bin-aligned
    std::int64_t binNs = 1;
    int bins = 0;
    double xPerNs = 0;
    int x(std::int64_t ns) const {
        return plot.left() + int(std::lround(double(ns - fromNs) * xPerNs));
    }
};

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timeline"));
    setEmptyText(tr("No time slices yet: start a run, and each worker's compute, wait and "
                    "communicate shows here as it goes."));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void TimelineView::reset(int workers, std::int64_t sliceNs) {
    data_.reset(workers, sliceNs);
    setEmptyText(tr("No time slices from the workers yet."));
    updateGeometry(); // a row per worker
}

void TimelineView::add(const QList<QPair<std::uint32_t, TraceSlice>>& slices,
                       const QList<TraceSpan>& spans, std::int64_t startNs) {
    for (const auto& [worker, slice] : slices)
        data_.addSlice(worker, slice);
    for (const TraceSpan& span : spans)
        data_.addSpan(span, startNs);
    changed();
}

void TimelineView::setWindowSeconds(double seconds) {
    windowNs_ = std::max<std::int64_t>(100'000'000, std::int64_t(seconds * 1e9));
    update();
}

void TimelineView::setEmptyText(const QString& text) {
    emptyText_ = text;
    update();
}

void TimelineView::changed() {
    if (pending_)
        return;
    pending_ = true;
    QTimer::singleShot(100, this, [this] {
        pending_ = false;
        update();
    });
}

QColor TimelineView::kindColor(TraceKind kind) {
    // Okabe and Ito's palette, told apart with any colour vision, and apart
    // from the charts' worker colours (blue, orange) above the tab.
    switch (kind) {
    case TraceKind::Compute:
        return QColor(0x00, 0x9E, 0x73); // bluish green
    case TraceKind::Wait:
        return QColor(0xD5, 0x5E, 0x00); // vermillion
    case TraceKind::Communicate:
        return QColor(0xCC, 0x79, 0xA7); // reddish purple
    case TraceKind::Gate:
        return QColor(0xB4, 0xB4, 0xB4); // light grey, as the evaluation that holds it
    case TraceKind::Paced:
        return QColor(0xF0, 0xE4, 0x42); // yellow
    }
    return Qt::gray;
}

QColor TimelineView::evaluationColor() {
    return QColor(0x70, 0x70, 0x70);
}

QSize TimelineView::sizeHint() const {
    const int line = fontMetrics().height();
    return {640, line * (3 + 2 * std::max(2, data_.workers()))};
}

QSize TimelineView::minimumSizeHint() const {
    const int line = fontMetrics().height();
    return {320, line * (3 + std::max(1, data_.workers()))};
}

TimelineView::Geometry TimelineView::geometry(int sharesWidth) const {
    Geometry g;
    const QFontMetrics fm = fontMetrics();
    g.line = fm.height();
    const int workers = std::max(1, data_.workers());
    g.labelWidth = fm.horizontalAdvance(tr("worker %1").arg(workers - 1));
    g.labelWidth = std::max(g.labelWidth, fm.horizontalAdvance(tr("evaluation")));
    g.labelWidth = std::max(g.labelWidth, fm.horizontalAdvance(tr("s since start")));
    g.sharesWidth = sharesWidth;
    const int left = g.labelWidth + 2 * kGap;
    const int right = width() - g.sharesWidth - 2 * kGap;
    g.evaluationRow = std::max(6, g.line / 2);
    const int rowsHeight = height() - g.line - 6 - g.evaluationRow - 2;
    g.row = std::max(g.line + 2, std::min(3 * g.line, rowsHeight / workers));
    g.plot = QRect(left, 2, std::max(10, right - left), g.evaluationRow + g.row * workers);
    g.binNs = data_.binNs(windowNs_, g.plot.width());
    g.bins = int((windowNs_ + g.binNs - 1) / g.binNs);
    // Until the run is as long as the view, it fills the view from the left.
    const std::int64_t from =
        std::max<std::int64_t>(0, data_.endNs() - std::int64_t(g.bins) * g.binNs);
    g.fromNs = from / g.binNs * g.binNs;
    // One bin more on the left when aligning moved the edge: the right edge
    // stays the latest slice's.
    if (g.fromNs + std::int64_t(g.bins) * g.binNs < data_.endNs())
        ++g.bins;
    g.xPerNs = double(g.plot.width()) / double(std::int64_t(g.bins) * g.binNs);
    return g;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    texts_.clear();
    totals_.clear();
    if (data_.empty()) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(rect().adjusted(kGap, kGap, -kGap, -kGap), Qt::AlignCenter | Qt::TextWordWrap,
                   emptyText_);
        texts_ << emptyText_;
        return;
    }
    // The shares' column as wide as its widest text: the texts depend on
    // the bins, the bins on the plot's width, so a second pass when the
    // first guess was short.
    const QFontMetrics fm = fontMetrics();
    Geometry g = geometry(fm.horizontalAdvance(QStringLiteral("compute 100% · wait 100%")));
    std::vector<std::vector<KindNs>> rows;
    QStringList shares;
    for (int pass = 0; pass < 2; ++pass) {
        rows.clear();
        shares.clear();
        int widest = 0;
        for (int w = 0; w < data_.workers(); ++w) {
            rows.push_back(data_.bins(w, g.fromNs, g.binNs, g.bins));
            shares << sharesText(sumOf(rows.back()));
            widest = std::max(widest, fm.horizontalAdvance(shares.back()));
        }
        if (widest <= g.sharesWidth)
            break;
        g = geometry(widest);
    }
    p.fillRect(g.plot, palette().base());
    paintEvaluations(p, g, g.plot.top());
    for (int w = 0; w < data_.workers(); ++w)
        paintRow(p, g, w, g.plot.top() + g.evaluationRow + w * g.row, rows[std::size_t(w)],
                 shares[w]);
    paintAxis(p, g, g.plot.bottom() + 1);
}

void TimelineView::paintEvaluations(QPainter& p, const Geometry& g, int top) {
    const QRect row(g.plot.left(), top, g.plot.width(), g.evaluationRow);
    const std::int64_t to = g.fromNs + std::int64_t(g.bins) * g.binNs;
    for (const auto& [begin, end] : data_.evaluations(g.fromNs, to)) {
        const int x0 = std::max(row.left(), g.x(begin));
        const int x1 = std::min(row.right() + 1, std::max(g.x(end), x0 + 1));
        p.fillRect(QRect(x0, row.top() + 1, x1 - x0, row.height() - 2), evaluationColor());
    }
    p.setPen(palette().color(QPalette::WindowText));
    const QRect label(0, top + (row.height() - g.line) / 2, g.labelWidth + kGap, g.line);
    p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, tr("evaluation"));
    texts_ << tr("evaluation");
}

void TimelineView::paintRow(QPainter& p, const Geometry& g, int worker, int top,
                            const std::vector<KindNs>& bins, const QString& shares) {
    const int height = g.row - 2; // a line between rows
    const int base = top + g.row - 1;
    // Stacked from the bottom in TraceKind's order, each bin's share
    // of its own length (a worker that had not started, or had left, leaves
    // its part blank).
    std::vector<double> below(bins.size(), 0.0);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (std::size_t k = 0; k < kTraceKinds; ++k) {
        QPainterPath path;
        QPolygonF upper, lower;
        for (std::size_t i = 0; i < bins.size(); ++i) {
            const double x0 = g.x(g.fromNs + std::int64_t(i) * g.binNs);
            const double x1 = g.x(g.fromNs + std::int64_t(i + 1) * g.binNs);
            const double share = std::clamp(bins[i][k] / double(g.binNs), 0.0, 1.0 - below[i]);
            const double yLow = base - below[i] * height;
            below[i] += share;
            const double yHigh = base - below[i] * height;
            upper << QPointF(x0, yHigh) << QPointF(x1, yHigh);
            lower << QPointF(x0, yLow) << QPointF(x1, yLow);
        }
        std::reverse(lower.begin(), lower.end());
        path.addPolygon(upper + lower);
        p.fillPath(path, kindColor(TraceKind(k)));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(g.plot.left(), top, g.plot.right(), top);
    p.setPen(palette().color(QPalette::WindowText));
    const QString label = tr("worker %1").arg(worker);
    const KindNs totals = sumOf(bins);
    p.drawText(QRect(0, top, g.labelWidth + kGap, g.row), Qt::AlignRight | Qt::AlignVCenter, label);
    p.drawText(QRect(g.plot.right() + kGap, top, g.sharesWidth + kGap, g.row),
               Qt::AlignLeft | Qt::AlignVCenter, shares);
    texts_ << label << shares;
    totals_.push_back(totals);
}

void TimelineView::paintAxis(QPainter& p, const Geometry& g, int top) {
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, top + 4, g.labelWidth + kGap, g.line), Qt::AlignRight | Qt::AlignVCenter,
               tr("s since start"));
    texts_ << tr("s since start");
    const double from = double(g.fromNs) / 1e9;
    const double to = double(g.fromNs + std::int64_t(g.bins) * g.binNs) / 1e9;
    const QString widest = QString::number(to, 'f', 2);
    const int wanted = g.plot.width() / std::max(1, 3 * p.fontMetrics().horizontalAdvance(widest));
    const double step = tickStep(to - from, std::max(2, wanted));
    for (double t = std::ceil(std::max(0.0, from) / step) * step; t <= to + 1e-9; t += step) {
        const int x = g.x(std::int64_t(std::llround(t * 1e9)));
        p.drawLine(x, top, x, top + 3);
        const QString text = QString::number(t, 'f', step < 1 ? (step < 0.5 ? 2 : 1) : 0);
        const int w = p.fontMetrics().horizontalAdvance(text);
        // Centred under its tick, but within the plot's width (clear of
        // the axis' title on the left).
        const int left = std::clamp(x - w / 2, g.plot.left(), std::max(g.plot.left(), width() - w));
        p.drawText(QRect(left, top + 4, w, g.line), Qt::AlignCenter, text);
        texts_ << text;
    }
}

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent) {
    view_ = new TimelineView;
    view_->setObjectName(QStringLiteral("timelineView"));
    before_ = new TimelineView;
    before_->setObjectName(QStringLiteral("timelineBefore"));
    stack_ = new QStackedWidget;
    stack_->addWidget(view_);
    stack_->addWidget(before_);
    which_ = new QComboBox;
    which_->setObjectName(QStringLiteral("timelineWhich"));
    which_->addItem(tr("this run"));
    which_->addItem(tr("the run before"));
    which_->setToolTip(tr("The run going, or the run before it as it ended (a comparison's "
                          "earlier run)"));
    which_->setVisible(false); // until there is a run before
    connect(which_, &QComboBox::currentIndexChanged, this, [this](int i) { showCurrent(i == 0); });
    window_ = new QComboBox;
    window_->setObjectName(QStringLiteral("timelineWindow"));
    for (const int s : {1, 3, 10})
        window_->addItem(tr("last %1 s").arg(s), s);
    window_->setCurrentIndex(1);
    window_->setToolTip(tr("How many seconds of the run the timeline shows, up to its latest "
                           "slice"));
    connect(window_, &QComboBox::currentIndexChanged, this, [this](int) {
        for (TimelineView* v : {view_, before_})
            v->setWindowSeconds(window_->currentData().toDouble());
    });
    auto swatch = [](const QColor& c, const QString& name) {
        return QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2")
            .arg(c.name(), name.toHtmlEscaped());
    };
    QStringList legend;
    for (std::size_t k = 0; k < kTraceKinds; ++k)
        legend << swatch(TimelineView::kindColor(TraceKind(k)),
                         QString::fromLatin1(traceKindName(TraceKind(k))));
    legend << swatch(TimelineView::evaluationColor(), tr("evaluation (test set)"));
    auto* key = new QLabel(legend.join(QStringLiteral("&nbsp;&nbsp; ")));
    key->setWordWrap(true);
    key->setToolTip(
        tr("Each worker's time in %1 ms slices: a column's height is the share of its time that "
           "went to computing (forward, backward, update), waiting (for the lock, or for the "
           "slowest replica at the allreduce's barriers), communicating (reducing and copying "
           "in a collective), the epoch gate (at an epoch's end, for the other workers and "
           "while the test set is evaluated) and the pace (held to the Pace box's steps per "
           "second, or paused). The Workers tab's Comm column is the collective's waiting and "
           "communicating together")
            .arg(Run::kTraceSliceNs / 1'000'000));
    run_ = new QLabel;
    run_->setObjectName(QStringLiteral("timelineRun"));
    QFont bold = run_->font();
    bold.setBold(true);
    run_->setFont(bold);
    auto* top = new QHBoxLayout;
    top->setContentsMargins(4, 2, 4, 0);
    top->addWidget(run_, 1);
    top->addWidget(which_);
    top->addWidget(window_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    key->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(key);
    layout->addWidget(stack_, 1);
}

void TimelinePanel::startRun(const QString& name, int workers, std::int64_t sliceNs) {
    if (!view_->data().empty()) {
        before_->data() = view_->data();
        before_->changed();
        beforeName_ = name_;
    }
    name_ = name;
    view_->reset(workers, sliceNs);
    which_->setVisible(!beforeName_.isEmpty());
    showCurrent(true);
}

void TimelinePanel::showCurrent(bool current) {
    if (beforeName_.isEmpty())
        current = true;
    {
        const QSignalBlocker quiet(which_);
        which_->setCurrentIndex(current ? 0 : 1);
    }
    stack_->setCurrentWidget(current ? view_ : before_);
    run_->setText(current ? tr("This run: %1").arg(name_)
                          : tr("The run before: %1, its last seconds").arg(beforeName_));
}

QString TimelinePanel::run() const {
    return run_->text();
}

} // namespace hwl::ui
