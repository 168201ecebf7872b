#pragma once
// Small helpers shared by the experiment form's parts (ExperimentForm,
// ModelFields, DatasetFields): the inline error / warning labels under a
// field and the red frame on an invalid editor. GUI thread only.
//
// An invalid editor carries the dynamic property "hwlError" = true; the
// style sheet formStyleSheet() (set on the form) draws it with a red frame.
// Labels carry "hwlRole" = "error" or "warning".
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QStyle>
#include <QWidget>

namespace hwl::ui {

inline constexpr const char* kErrorProperty = "hwlError";

/// The form's style sheet: red frames and error labels, amber warnings, in
/// shades that read on a light or a dark window.
inline QString formStyleSheet(bool dark) {
    const char* error = dark ? "#ef6b6b" : "#d32f2f";
    const char* warning = dark ? "#f0b35a" : "#a15c00";
    return QStringLiteral(
               "QLineEdit[hwlError=\"true\"], QAbstractSpinBox[hwlError=\"true\"],"
               " QComboBox[hwlError=\"true\"] { border: 1px solid %1; border-radius: 2px; }"
               " QCheckBox[hwlError=\"true\"] { color: %1; }"
               " QLabel[hwlRole=\"error\"] { color: %1; }"
               " QLabel[hwlRole=\"warning\"] { color: %2; }")
        .arg(QLatin1String(error), QLatin1String(warning));
}

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

/// A small word-wrapped label under a field, hidden until it has text.
/// `role` is "error" or "warning" (the colour).
inline QLabel* makeNoteLabel(const char* role, QWidget* parent = nullptr) {
    auto* label = new QLabel(parent);
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

} // namespace hwl::ui
