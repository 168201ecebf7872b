#pragma once
// The engine's messages in the form's words, the one place that maps them:
// a field's key first and any flag become the labels of their rows in the
// form ("--momentum 0" -> "Momentum 0", "--no-share" -> "\"Share
// parameters\" unticked"), a mode's name first its label in the mode list,
// and the first letter a capital.
#include <QString>

#include <functional>

namespace hwl::ui {

class FormWords {
public:
    /// What the form calls a field (JSON name); the name itself for a field
    /// the form does not show.
    using LabelOf = std::function<QString(const QString& field)>;

    explicit FormWords(LabelOf labelOf) : labelOf_(std::move(labelOf)) {}

    /// `message`, an engine message about `field`, as the form says it.
    QString say(const QString& field, QString message) const;
    /// The mode list's label of a mode name ("GPU Hogwild (CUDA blocks)"),
    /// or empty.
    static QString modeLabel(const std::string& name);

private:
    LabelOf labelOf_;
};

} // namespace hwl::ui
