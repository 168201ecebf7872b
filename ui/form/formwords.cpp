#include "form/formwords.h"

#include "config/fields.h"
#include "strategy/catalog.h"

#include <QObject>
#include <QRegularExpression>

#include <algorithm>

namespace hwl::ui {

QString FormWords::modeLabel(const std::string& name) {
    const StrategyTraits* t = findStrategy(name, true);
    if (!t)
        t = findStrategy(name, false);
    return t ? QString::fromStdString(t->label) : QString();
}

QString FormWords::say(const QString& field, QString message) const {
    // "start-method: start-method fork refused: ...": a message about a
    // field, named by it twice; said once, in the form's words.
    if (field.isEmpty()) {
        const QString key = message.section(QLatin1Char(':'), 0, 0);
        if (!key.isEmpty() && !key.contains(QLatin1Char(' ')) && findField(key.toStdString()) &&
            message.startsWith(key + QStringLiteral(": ") + key + QLatin1Char(' ')))
            return say(key, message.mid(key.size() + 2));
    }
    // A mode's name first ("gpu-hogwild takes ..."): as the mode list says it.
    for (const std::string& name : modeNames()) {
        const QString n = QString::fromStdString(name);
        if (message.startsWith(n + ' ') || message.startsWith(n + ':')) {
            message.replace(0, n.size(), modeLabel(name));
            break;
        }
    }
    // The field's key first ("lr must be ...", "share false ..."): its label.
    const Field* own = findField(field.toStdString());
    if (own && own->type == FieldType::Switch) {
        for (const bool on : {false, true}) {
            const QString prefix = field + (on ? QLatin1String(" true") : QLatin1String(" false"));
            if (message.startsWith(prefix + ' '))
                message.replace(0, prefix.size(),
                                labelOf_(field) +
                                    (on ? QObject::tr(" ticked") : QObject::tr(" unticked")));
        }
    }
    if (message.startsWith(field + ' '))
        message.replace(0, field.size(), labelOf_(field));
    // Flags anywhere ("(--momentum 0)", "--no-share"): the label of the
    // field they set, for the fields the form shows.
    static const QRegularExpression flag(QStringLiteral("--[a-z][a-z0-9-]*"));
    QString out;
    qsizetype at = 0;
    for (auto it = flag.globalMatch(message); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += message.mid(at, m.capturedStart() - at);
        at = m.capturedEnd();
        const Field* f = findFlag(m.captured().toStdString());
        const QString key = f ? QString::fromLatin1(f->key) : QString();
        const QString label = f ? labelOf_(key) : QString();
        if (!f || label == key) {
            out += m.captured();
        } else if (f->type == FieldType::Switch) {
            const bool off = f->negation && m.captured() == QLatin1String("--") + f->negation;
            if (!off && out.endsWith(QLatin1String("drop "))) { // "drop --flag": untick it
                out.chop(5);
                out += QObject::tr("untick %1").arg(label);
            } else {
                out += label + (off ? QObject::tr(" unticked") : QObject::tr(" ticked"));
            }
        } else if (m.capturedStart() > 0 && message.at(m.capturedStart() - 1) == QLatin1Char('(') &&
                   message.mid(m.capturedEnd(), 1) == QLatin1String(")")) {
            out += QObject::tr("the %1 field").arg(label); // "(--lr)": where to change it
        } else {
            out += label;
        }
    }
    out += message.mid(at);
    // A sentence starts with a capital; a value quoted first ("net:20:fc4
    // ...", "mlp:784-x-10") is left as it was typed.
    const qsizetype word = out.indexOf(QLatin1Char(' '));
    QString first = out.left(word < 0 ? out.size() : word);
    while (first.endsWith(QLatin1Char(':')) || first.endsWith(QLatin1Char(',')))
        first.chop(1); // "fix:": a word before its colon
    const bool plainWord = std::all_of(first.begin(), first.end(), [](QChar c) {
        return c.isLetter() || c == QLatin1Char('\'') || c == QLatin1Char(',');
    });
    if (!out.isEmpty() && out.at(0).isLower() && plainWord)
        out[0] = out.at(0).toUpper();
    return out;
}

} // namespace hwl::ui
