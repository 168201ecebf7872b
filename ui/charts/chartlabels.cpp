#include "charts/chartlabels.h"

#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>

namespace hwl::ui {

QStringList chartTexts(const QChart* chart) {
    QStringList texts;
    if (!chart || !chart->scene())
        return texts;
    for (const QGraphicsItem* item : chart->scene()->items(Qt::AscendingOrder)) {
        if (!item->isVisible())
            continue;
        if (const auto* text = qgraphicsitem_cast<const QGraphicsTextItem*>(item))
            texts << text->toPlainText();
        else if (const auto* simple = qgraphicsitem_cast<const QGraphicsSimpleTextItem*>(item))
            texts << simple->text();
    }
    texts.removeAll(QString());
    return texts;
}

QStringList elidedTexts(const QChart* chart) {
    QStringList elided;
    for (const QString& t : chartTexts(chart))
        if (t.contains(QChar(0x2026)) || t.contains(QLatin1String("...")))
            elided << t;
    return elided;
}

} // namespace hwl::ui
