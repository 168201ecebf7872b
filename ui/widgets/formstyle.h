#pragma once
// Small helpers shared by the experiment form's parts (ExperimentForm,
// ModelFields, DatasetFields): the inline error / warning labels under a
// field and the red frame on an invalid editor. GUI thread only.
//
// An invalid editor carries the dynamic property "hwlError" = true; the
// style sheet formStyleSheet() (set on the form) draws it with a red frame
// (a spin box: an ErrorFrame child, so that its arrows stay). Labels carry
// "hwlRole" = "error" or "warning" and are NoteLabels.
#include "widgets/fieldnote.h"

#include <QAbstractSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QResizeEvent>
#include <QSpinBox>
#include <QStyle>
#include <QWidget>

namespace hwl::ui {

inline constexpr const char* kErrorProperty = "hwlError";

/// The form's error red and warning amber, in shades that read on a light
/// or a dark window.
inline const char* errorColour(bool dark) {
    return dark ? "#ef6b6b" : "#d32f2f";
}

/// The form's style sheet: red frames (line edits, lists, tables) and error
/// labels, amber warnings.
/// Spin boxes are not in it: a spin box given a border by a style sheet is
/// drawn by the sheet, and Fusion's arrows vanish (issue 26); markEditor()
/// frames them with an ErrorFrame instead.
inline QString formStyleSheet(bool dark) {
    const char* warning = dark ? "#f0b35a" : "#a15c00";
    return QStringLiteral("QLineEdit[hwlError=\"true\"], QComboBox[hwlError=\"true\"],"
                          " QTableView[hwlError=\"true\"] {"
                          " border: 1px solid %1; border-radius: 2px; }"
                          " QCheckBox[hwlError=\"true\"] { color: %1; }"
                          " QLabel[hwlRole=\"error\"] { color: %1; }"
                          " QLabel[hwlRole=\"warning\"] { color: %2; }"
                          " QLabel[hwlBalloon=\"true\"] { background: palette(base);"
                          " border: 1px solid %1; border-radius: 3px; padding: 2px 4px; }")
        .arg(QLatin1String(errorColour(dark)), QLatin1String(warning));
}

/// The red frame over an invalid spin box: drawn on top of the native box,
/// which keeps its arrows; it follows the box's size and lets the mouse
/// through.
class ErrorFrame : public QWidget {
public:
    explicit ErrorFrame(QWidget* box) : QWidget(box) {
        setObjectName("hwlErrorFrame");
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setFocusPolicy(Qt::NoFocus);
        box->installEventFilter(this);
        setGeometry(box->rect());
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == parent() && event->type() == QEvent::Resize)
            setGeometry(parentWidget()->rect());
        return false;
    }
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        const bool dark = palette().color(QPalette::Window).lightness() < 128;
        painter.setPen(QPen(QColor(QLatin1String(errorColour(dark))), 1));
        painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 2, 2);
    }
};

/// The form layout every group of the experiment form uses.
inline QFormLayout* makeForm(QWidget* box) {
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    return form;
}

/// A named integer spin box with digit grouping, for the form's count fields.
inline QSpinBox* makeCountSpin(const char* name, int lo, int hi, const QString& tip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(QString::fromLatin1(name));
    spin->setRange(lo, hi);
    spin->setGroupSeparatorShown(true);
    spin->setToolTip(tip);
    return spin;
}

/// A word-wrapped note that gives its layout the height it needs at its
/// row's width as its size hint (and minimum), instead of through
/// heightForWidth(): Qt 6.4's QFormLayout loses the height of a wrapped row
/// when a neighbouring wrapped row hides in the same pass (the mode list's
/// error got 0 px; issue 26 saw the Momentum box squashed under the
/// learning rate's error). Without height-for-width rows the form layout
/// sums plain size hints, which it gets right.
class NoteLabel : public QLabel {
public:
    using QLabel::QLabel;
    bool hasHeightForWidth() const override { return false; }
    QSize sizeHint() const override {
        return {QLabel::minimumSizeHint().width(), QLabel::heightForWidth(rowWidth())};
    }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void resizeEvent(QResizeEvent* event) override {
        QLabel::resizeEvent(event);
        if (event->size().width() != event->oldSize().width())
            updateGeometry(); // a new width: another height
    }

private:
    /// The width the label gets: its layout's (a spanning row takes it
    /// all), or its own before the layout has one.
    int rowWidth() const {
        const QWidget* box = parentWidget();
        const int row = box && box->layout() ? box->layout()->contentsRect().width() : 0;
        return row > 0 ? row : width();
    }
};

/// A small word-wrapped label under a field, hidden until it has text.
/// `role` is "error" or "warning" (the colour).
inline QLabel* makeNoteLabel(const char* role, QWidget* parent = nullptr) {
    auto* label = new NoteLabel(parent);
    label->setProperty("hwlRole", QString::fromLatin1(role));
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont font = label->font();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    label->setFont(font);
    label->hide();
    return label;
}

/// Shows `text` in `label`, or hides it when `text` is empty.
inline void setNote(QLabel* label, const QString& text) {
    if (auto* note = qobject_cast<FieldNote*>(label)) {
        note->setMessage(text); // shown under its field while that is in use
        return;
    }
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

/// Marks `editor` invalid with `message` (red frame, message first in the
/// tooltip), or clears the mark when `message` is empty. The editor's own
/// tooltip is remembered the first time and restored when the mark goes.
inline void markEditor(QWidget* editor, const QString& message) {
    if (!editor)
        return;
    if (!editor->property("hwlBaseToolTip").isValid())
        editor->setProperty("hwlBaseToolTip", editor->toolTip());
    const QString base = editor->property("hwlBaseToolTip").toString();
    const bool error = !message.isEmpty();
    editor->setToolTip(error ? (base.isEmpty() ? message : message + QStringLiteral("\n\n") + base)
                             : base);
    if (editor->property(kErrorProperty).toBool() == error)
        return;
    editor->setProperty(kErrorProperty, error);
    if (qobject_cast<QAbstractSpinBox*>(editor)) {
        // By name: ErrorFrame has no meta-object of its own to find it by.
        QWidget* frame = editor->findChild<QWidget*>(QStringLiteral("hwlErrorFrame"),
                                                     Qt::FindDirectChildrenOnly);
        if (error && !frame)
            frame = new ErrorFrame(editor);
        if (frame) {
            frame->setVisible(error);
            frame->raise();
        }
        return;
    }
    editor->style()->unpolish(editor);
    editor->style()->polish(editor);
    editor->update();
}

/// Sets an editor's tooltip (the one markEditor restores).
inline void setBaseToolTip(QWidget* editor, const QString& tip) {
    editor->setProperty("hwlBaseToolTip", tip);
    if (!editor->property(kErrorProperty).toBool())
        editor->setToolTip(tip);
}

/// The shortest text that reads back as exactly `value` ("0.01", "1e-07").
inline QString shortestNumber(double value) {
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

/// Lets a spin box or a combo box take the mouse wheel only once it has the
/// focus: over an unfocused one the wheel goes on to the scroll area (issue
/// 26: scrolling the form changed Blocks from 1,024 to 1,018 and marked the
/// preset modified). The ignored event travels on to the parents.
class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel)
            return false;
        const auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->hasFocus())
            return false;
        event->ignore();
        return true;
    }
};

} // namespace hwl::ui
