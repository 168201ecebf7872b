// TrainingChart's texts, fitted to its size so that Qt Charts never cuts one
// with "...": the title and the y title lose words (a parenthesis first), the
// legend names workers by rank, then by colour alone. And the chart saved as
// an image or SVG at a chosen size, laid out for that size.
#include "charts/trainingchartparts.h"

#include "widgets/chartview.h"

#include <QCategoryAxis>
#include <QChart>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QImageWriter>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>

#include <algorithm>
#include <vector>

namespace hwl::ui {

namespace {

/// A word that leads to the next one: a shortened name does not end on it.
bool dangles(const QString& word) {
    for (const char* w : {"a", "an", "and", "at", "by", "each", "for", "from", "in", "of", "on",
                          "or", "per", "the", "to", "vs", "vs.", "with"})
        if (word.compare(QLatin1String(w), Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

/// `text` if it fits `width` pixels; else without its parentheses; else its
/// head, the words before " · " ("#4 locked · Hogwild vs locked"), a colon
/// or a comma ("Divergence per worker: ...", "Lost updates, % of ..."),
/// whole rather than a fragment of what follows;
/// else without its last words, as long as something fits; else empty.
QString fitWords(const QString& text, const QFontMetricsF& metrics, double width) {
    if (metrics.horizontalAdvance(text) <= width)
        return text;
    static const QRegularExpression parens(QStringLiteral("\\s*\\([^)]*\\)"));
    QString shorter = text;
    shorter.remove(parens);
    if (metrics.horizontalAdvance(shorter) <= width)
        return shorter;
    // A run's name: what sets it apart, " · ", what it belongs to.
    if (const qsizetype cut = shorter.indexOf(QStringLiteral(" · ")); cut > 0) {
        shorter.truncate(cut);
        if (metrics.horizontalAdvance(shorter) <= width)
            return shorter;
    }
    if (const qsizetype cut = shorter.indexOf(QRegularExpression(QStringLiteral("[:,]"))); cut > 0)
        shorter.truncate(cut);
    QStringList words = shorter.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    while (!words.isEmpty()) {
        QString candidate = words.join(QLatin1Char(' '));
        while (candidate.endsWith(QLatin1Char(':')) || candidate.endsWith(QLatin1Char(',')))
            candidate.chop(1);
        // Not ending on a word that leads to the next ("DDP vs", "Hogwild on").
        const bool dangling = words.size() > 1 && dangles(words.last());
        if (!dangling && metrics.horizontalAdvance(candidate) <= width)
            return candidate;
        words.removeLast();
    }
    return {};
}

/// The most each of some labels may take so that all fit `room`, those
/// that want less than an equal share of what is left taking what they
/// want: the width the longer ones are cut to.
double shareOut(double room, std::vector<double> wants) {
    std::sort(wants.begin(), wants.end());
    std::size_t left = wants.size();
    for (const double want : wants) {
        if (want > room / double(left))
            break;
        room -= want;
        --left;
    }
    return left > 0 ? room / double(left) : room + wants.back(); // all fit: the longest and more
}

bool isWorker(const QString& name) {
    return name.startsWith(QLatin1String("worker ")); // as recreateLines() names them
}

/// A worker's label at a legend's `level` (TrainingChart::Parts::fitLegend):
/// whole, by rank, or by colour alone; worker 0 carries the live run's name
/// `live` (if any) below level 3.
QString workerLabel(const QString& name, int level, const QString& live) {
    const QString label = level == 0 ? name : level == 1 || level == 3 ? name.mid(7) : QString();
    if (live.isEmpty() || name != QLatin1String("worker 0") || level >= 3)
        return label;
    return label.isEmpty() ? live : live + QLatin1Char(' ') + label;
}

} // namespace

void TrainingChart::setTitle(const QString& title) {
    p_->title_ = title;
    p_->shownTitle_ = p_->chart_->title(); // not a title set on chart() directly
    p_->fitTexts();
}

void TrainingChart::Parts::fitTexts() {
    // The title: across the chart, less its margins (and the room Qt Charts
    // keeps beside a title).
    if (chart_->title() != shownTitle_) // set on chart() directly
        title_ = chart_->title();
    const QFontMetricsF titleMetrics(chart_->titleFont());
    shownTitle_ = fitWords(title_, titleMetrics, chart_->size().width() - 48);
    if (chart_->title() != shownTitle_)
        chart_->setTitle(shownTitle_);
    // Rows over and under the plot: title, legend, x labels, x title. A
    // short chart drops the x title, then the legend (hovering names the
    // curves), rather than squeeze the labels Qt Charts would then elide.
    const double row = QFontMetricsF(xAxisItem_->labelsFont()).height() + 10;
    const double plotNeeds = 3 * row; // two y labels and the room between them
    const double height = chart_->size().height();
    const bool xTitle = xTitleWanted_ && height >= plotNeeds + 4 * row;
    const bool legend = height >= plotNeeds + (xTitle ? 4 : 3) * row;
    if (xAxisItem_->isTitleVisible() != xTitle)
        xAxisItem_->setTitleVisible(xTitle);
    if (chart_->legend()->isVisible() != legend)
        chart_->legend()->setVisible(legend);
    // The y title runs up the plot area's height.
    const QFontMetricsF yMetrics(yAxisItem_->titleFont());
    const QString yTitle = fitWords(yTitle_, yMetrics, chart_->plotArea().height() - 8);
    if (yAxisItem_->titleText() != yTitle)
        yAxisItem_->setTitleText(yTitle);
    yAxisItem_->setTitleVisible(!yTitle.isEmpty());
    if (legend)
        fitLegend();
}

void TrainingChart::Parts::queueFitTexts() {
    // New legend markers are laid out (and their labels reset to the series'
    // names) once the chart has handled their series: fit them after that.
    if (textsQueued_)
        return;
    textsQueued_ = true;
    QMetaObject::invokeMethod(
        &q,
        [this] {
            textsQueued_ = false;
            fitTexts();
        },
        Qt::QueuedConnection);
}

bool TrainingChart::Parts::legendElided() const {
    // Cut short, or laid past the legend's ends (a row too long for it).
    const QRectF legend = chart_->legend()->sceneBoundingRect();
    QList<QGraphicsItem*> items = chart_->legend()->childItems();
    while (!items.isEmpty()) {
        QGraphicsItem* item = items.takeLast();
        items << item->childItems();
        const auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
        if (!text || !text->isVisible())
            continue;
        const QRectF at = text->sceneBoundingRect();
        if (text->toPlainText().contains(QLatin1String("...")) ||
            text->toPlainText().contains(QChar(0x2026)) || at.left() < legend.left() - 1 ||
            at.right() > legend.right() + 1)
            return true;
    }
    return false;
}

namespace {
/// What sets a run apart, in `width`: whole, else each field's value alone
/// ("threads-locked" of "mode=threads-locked"), else the head of its words.
QString fitApart(const QString& apart, const QFontMetricsF& metrics, double width) {
    if (metrics.horizontalAdvance(apart) <= width)
        return apart;
    QStringList values;
    for (const QString& part : apart.split(QStringLiteral(", ")))
        values << part.section(QLatin1Char('='), -1);
    const QString bare = values.join(QStringLiteral(", "));
    if (metrics.horizontalAdvance(bare) <= width)
        return bare;
    return fitWords(apart, metrics, width);
}
} // namespace

QString TrainingChart::Parts::overlayShortName(const QAbstractSeries* series) const {
    for (std::size_t i = 0; i < overlays_.size() && qsizetype(i) < overlayDefs_.size(); ++i)
        if (overlays_[i].line == series)
            return overlayDefs_[qsizetype(i)].shortName;
    return {};
}

void TrainingChart::Parts::fitLegend() {
    // Full names when they fit; then workers by rank ("0 1 2 3", in the
    // colours the loss chart names in full) and the others shortened; then
    // workers by colour alone; then every entry by colour alone. Each tried
    // as the legend lays it out, until it elides nothing and leaves no
    // earlier run without a word of its name.
    QList<QLegendMarker*> shown;
    for (QLegendMarker* m : chart_->legend()->markers())
        if (m->isVisible())
            shown << m;
    if (shown.isEmpty() || !chart_->legend()->layout())
        return;
    const QFontMetricsF metrics(chart_->legend()->font());
    const double perMarker =
        metrics.height() + 8; // the colour square and padding (Qt lays 20 px at 15 px type)
    const double room = chart_->legend()->size().width() - 16;
    // Beside overlays the first worker carries the live run's name.
    bool overlaid = false;
    for (const ChartSeries& s : overlays_)
        overlaid = overlaid || (s.line && s.line->isVisible());
    const QString live = overlaid ? liveName_ : QString();
    // Levels: 0 every name whole; 1 workers by rank; 2 workers by colour;
    // 3 workers by rank without the live run's name (an earlier run's name
    // matters more: the big loss chart names the live workers); 4 by colour
    // without it; 5 colour alone.
    constexpr int kColourAlone = 5;
    for (int level = 0; level <= kColourAlone; ++level) {
        double width = 0;
        std::vector<double> wants; // the others' labels, as they would like to read
        for (QLegendMarker* m : shown) {
            const QString name = m->series()->name(), apart = overlayShortName(m->series());
            const bool worker = isWorker(name);
            width += perMarker +
                     (worker ? metrics.horizontalAdvance(workerLabel(name, level, live)) : 0);
            if (!worker)
                wants.push_back(metrics.horizontalAdvance(apart.isEmpty() ? name : apart));
        }
        // The others share what the workers leave ("mean of 16 workers"
        // becomes "mean", an earlier run's name loses its last words):
        // evenly while the live run is named; past that the short ones
        // ("test") take what they need and the earlier runs the rest, so
        // they keep their names beside the workers' ranks.
        const double budget = wants.empty() ? 0
                              : level < 3   ? (room - width) / double(wants.size())
                                            : shareOut(room - width, std::move(wants));
        bool unnamed = false; // an earlier run left without a word of its name
        for (QLegendMarker* m : shown) {
            const QString name = m->series()->name();
            // The live run's test curve beside earlier runs: whose test it is.
            const QString full = name == QLatin1String("test") && !live.isEmpty() && level < 3
                                     ? live + QLatin1String(" test")
                                     : name;
            // Short of room, an earlier run goes by what sets it apart
            // ("lr=0.1"), not the head of its name ("#3").
            const QString apart = overlayShortName(m->series());
            QString label;
            if (isWorker(name))
                label = workerLabel(name, level, live);
            else if (level == 0)
                label = full;
            else if (level == kColourAlone)
                label = QString();
            else if (full != name && metrics.horizontalAdvance(full) > budget)
                label = name; // "test": never the live run's name alone
            else
                label = fitApart(apart.isEmpty() ? full : apart, metrics, budget);
            unnamed = unnamed || (label.isEmpty() && !isWorker(name) && level < kColourAlone);
            if (label.isEmpty()) // an empty label is the series' name again
                label = QStringLiteral(" ");
            if (m->label() != label)
                m->setLabel(label);
        }
        // A marker elides its label when the legend lays it out: lay it out
        // now (new markers may not have been yet).
        chart_->legend()->layout()->invalidate();
        chart_->legend()->layout()->activate();
        if (!unnamed && !legendElided())
            return;
    }
}

QStringList TrainingChart::imageSuffixes() {
    QStringList suffixes{QStringLiteral("png"), QStringLiteral("svg")};
    for (const QByteArray& format : QImageWriter::supportedImageFormats())
        if (!suffixes.contains(QString::fromLatin1(format).toLower()))
            suffixes << QString::fromLatin1(format).toLower();
    return suffixes;
}

bool TrainingChart::saveImage(const QString& path) {
    return saveImage(path, QSize());
}

bool TrainingChart::saveImage(const QString& path, QSize size, QString* error) {
    const auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!imageSuffixes().contains(suffix))
        return fail(tr("Cannot save a chart as .%1: name the file .png or .svg (or .%2).")
                        .arg(suffix, imageSuffixes().mid(2).join(QStringLiteral(", ."))));
    if (size.isEmpty())
        size = this->size();
    if (size.width() < 100 || size.height() < 60 || size.width() > 16000 || size.height() > 16000)
        return fail(tr("A chart is saved from 100 x 60 to 16000 x 16000 pixels, not %1 x %2.")
                        .arg(size.width())
                        .arg(size.height()));
    // Laid out for that size (ticks, titles, legend, the curves' buckets),
    // rendered, and put back as it was on screen.
    const QSizeF onScreen = p_->chart_->size();
    const auto layOut = [this](QSizeF s) {
        p_->chart_->resize(s);
        p_->chart_->layout()->invalidate();
        p_->chart_->layout()->activate();
        p_->fitTexts();
        refresh();
        p_->chart_->layout()->activate();
    };
    layOut(size);
    const QRectF source(p_->chart_->scenePos(), QSizeF(size));
    const QRectF target(QPointF(0, 0), QSizeF(size));
    bool ok = false;
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(p_->title_);
        svg.setResolution(96); // its width in mm is then as many CSS pixels as `size`
        QPainter painter;
        if (painter.begin(&svg)) {
            painter.setRenderHint(QPainter::Antialiasing);
            p_->chart_->scene()->render(&painter, target, source);
            ok = painter.end();
        }
        ok = ok && QFileInfo(path).size() > 0;
    } else {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(p_->dark_ ? Qt::black : Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        p_->chart_->scene()->render(&painter, target, source);
        painter.end();
        ok = image.save(path);
    }
    layOut(onScreen);
    if (!ok)
        return fail(tr("Cannot write %1: check that its folder exists and is writable.").arg(path));
    return true;
}

} // namespace hwl::ui
