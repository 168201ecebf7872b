#pragma once
// The experiment form's typed editors, shared by its groups: a number
// field's line edit, and its text judged as the field's flag judges it.
// GUI thread only.
#include "config/fields.h"
#include "util/errors.h"

#include <QLineEdit>
#include <QString>

#include <optional>
#include <variant>

namespace hwl::ui {

/// The editor's text judged as field `key`'s flag judges it (the field
/// table's parser: one judgement per value, whichever road), surrounding
/// spaces aside; nothing when it refuses.
template <class T>
std::optional<T> judged(const char* key, const QLineEdit* edit) {
    try {
        return std::get<T>(
            hwl::parseFieldText(*hwl::findField(key), edit->text().trimmed().toStdString(), key));
    } catch (const hwl::InputError&) {
        return std::nullopt;
    }
}

inline QLineEdit* makeNumberEdit(const char* name, const QString& tip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(QString::fromLatin1(name));
    edit->setToolTip(tip);
    return edit;
}

/// A number field's tooltip: what it is and its interval from the field table.
inline QString numberTip(const char* key, const QString& what) {
    return QStringLiteral("%1, in %2")
        .arg(what, QString::fromStdString(findField(key)->rangeText()));
}

} // namespace hwl::ui
