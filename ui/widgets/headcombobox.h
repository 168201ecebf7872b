#pragma once
// A combo box narrower than its longest item ("GPU data-parallel (no GPU
// found)") that shows its current item whole when it fits, else without its
// parenthesised tail ("GPU data-parallel": the reason stays in the item's
// tooltip and the note under the field), else elided with "…": never a
// fragment such as "(no G". The popup lists every item whole.
#include <QComboBox>
#include <QFontMetrics>
#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace hwl::ui {

class HeadComboBox : public QComboBox {
public:
    using QComboBox::QComboBox;

    /// What a field `width` pixels wide shows of `text`.
    static QString shownText(const QString& text, const QFontMetrics& metrics, int width) {
        if (metrics.horizontalAdvance(text) <= width)
            return text;
        QString head = text;
        if (const qsizetype cut = head.indexOf(QLatin1String(" (")); cut > 0)
            head.truncate(cut);
        if (metrics.horizontalAdvance(head) <= width)
            return head;
        return metrics.elidedText(head, Qt::ElideRight, width);
    }

    /// What the field shows of the current item now.
    QString shownText() const {
        QStyleOptionComboBox option;
        initStyleOption(&option);
        return shownText(option);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QStylePainter painter(this);
        QStyleOptionComboBox option;
        initStyleOption(&option);
        painter.drawComplexControl(QStyle::CC_ComboBox, option);
        option.currentText = shownText(option);
        painter.drawControl(QStyle::CE_ComboBoxLabel, option);
    }

private:
    /// What the field of the combo box `option` describes shows of its text.
    QString shownText(const QStyleOptionComboBox& option) const {
        const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                    QStyle::SC_ComboBoxEditField, this);
        return shownText(option.currentText, fontMetrics(), field.width());
    }
};

} // namespace hwl::ui
