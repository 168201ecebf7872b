#include "teaching/explanationpane.h"

#include "config/fields.h"
#include "strategy/catalog.h"

#include <QScrollBar>

#include <algorithm>
#include <string_view>

namespace hwl::ui {

namespace {

/// What the form calls a field a preset's text invites changing.
QString formLabel(const std::string& key) {
    static const std::pair<const char*, const char*> labels[] = {
        {"share", QT_TR_NOOP("Share parameters")},
        {"start-method", QT_TR_NOOP("Start method")},
        {"mode", QT_TR_NOOP("Mode")},
        {"spawn-before-share", QT_TR_NOOP("Spawn before share")},
        {"loader-workers", QT_TR_NOOP("Loader workers")},
        {"lost-updates", QT_TR_NOOP("Count lost updates")}};
    for (const auto& [k, label] : labels)
        if (key == k)
            return QObject::tr(label);
    return QString::fromStdString(key);
}

/// An invited change in the form's words: "Share parameters ticked",
/// "Start method set to spawn".
QString followedChange(const Field& f, const ExperimentConfig& config) {
    const QString label = formLabel(f.key);
    if (f.type == FieldType::Switch)
        return std::get<bool>(f.get(config)) ? QObject::tr("%1 ticked").arg(label)
                                             : QObject::tr("%1 unticked").arg(label);
    QString value = QString::fromStdString(f.valueText(config));
    if (f.key == std::string_view("mode"))
        if (const StrategyTraits* t = findStrategy(config))
            value = QString::fromStdString(t->label);
    return QObject::tr("%1 set to %2").arg(label, value);
}

} // namespace

QStringList differingFields(const ExperimentConfig& a, const ExperimentConfig& b) {
    QStringList fields;
    for (const Field& f : experimentFields())
        if (f.get(a) != f.get(b))
            fields << QString::fromLatin1(f.key);
    return fields;
}

ExplanationPane::ExplanationPane(QWidget* parent) : QTextBrowser(parent) {
    setObjectName("explanation");
    setOpenExternalLinks(false);
    setOpenLinks(false); // hwl: links open the window's instruments
    setMinimumWidth(220);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("hwl"))
            emit instrumentRequested(url.path());
    });
}

void ExplanationPane::showPreset(const hwl::Preset& preset) {
    preset_ = preset;
    measured_.clear(); // its figures are of the runs it makes from now on
    changed_.clear();
    followed_.clear();
    render();
}

void ExplanationPane::showExperiment(const ExperimentConfig& config, const QString& origin,
                                     const QString& name) {
    preset_ = hwl::Preset{};
    origin_ = origin;
    name_ = name;
    shown_ = config;
    changed_.clear();
    followed_.clear();
    render();
}

void ExplanationPane::formChanged(const ExperimentConfig& config) {
    if (preset_.id.empty()) {
        shown_ = config;
    } else {
        QStringList changed, followed;
        for (const QString& key : differingFields(preset_.config, config)) {
            const std::string k = key.toStdString();
            const Field* f = findField(k);
            if (f && invitesChange(preset_, k, f->valueText(config)))
                followed << followedChange(*f, config);
            else
                changed << key;
        }
        if (changed == changed_ && followed == followed_)
            return; // nothing new to say (and the reader's scroll position stays)
        changed_ = changed;
        followed_ = followed;
    }
    render();
}

void ExplanationPane::setMeasured(const std::vector<hwl::MeasuredRun>& runs) {
    measured_ = runs;
    if (preset_.id.empty() || preset_.explanation.find("{{") == std::string::npos)
        return;
    const int place = verticalScrollBar()->value();
    render();
    verticalScrollBar()->setValue(place);
}

void ExplanationPane::render() {
    if (!preset_.id.empty()) {
        QString status = tr("<p><i>Preset <tt>%1</tt>, as it was loaded.</i></p>")
                             .arg(QString::fromStdString(preset_.id));
        if (!followed_.isEmpty())
            status = tr("<p><i>Preset <tt>%1</tt>: %2, as the text suggests.</i></p>")
                         .arg(QString::fromStdString(preset_.id), followed().toHtmlEscaped());
        if (!changed_.isEmpty())
            status = tr("<p><i><b>Modified:</b> the form differs from the preset in %1, so the "
                        "run may not show what this text says. Choose the preset again to go "
                        "back to it.</i></p>")
                         .arg(changed_.join(QStringLiteral(", ")).toHtmlEscaped()) +
                     (followed_.isEmpty() ? QString()
                                          : tr("<p><i>%1, as the text suggests.</i></p>")
                                                .arg(followed().toHtmlEscaped()));
        if (!followed_.isEmpty())
            status += tr("<p><i>The figures this text quotes are of the runs made before that "
                         "change: the run with it shows its fix, not what the text "
                         "describes.</i></p>");
        setHtml(QStringLiteral("<h3>%1%2</h3>%3%4")
                    .arg(QString::fromStdString(preset_.name).toHtmlEscaped(),
                         changed_.isEmpty() ? QString() : tr(" (modified)"), status,
                         QString::fromStdString(
                             fillFigures(preset_.explanation, measured_, "<b>", "</b>",
                                         tr("<i>(not measured yet)</i>").toStdString()))));
        return;
    }
    const StrategyTraits* t = findStrategy(shown_);
    QString mode =
        t ? QString::fromStdString(t->label + ": " + t->help) : QString::fromStdString(shown_.mode);
    QString html = tr("<h3>Your experiment</h3><p><i>%1. No preset: this describes the "
                      "experiment in the form.</i></p>")
                       .arg(origin_.toHtmlEscaped());
    html += tr("<p><b>Mode</b>: %1.</p>").arg(mode.toHtmlEscaped());
    if (t && t->divergence != DivergenceKind::None)
        html += tr("<p><b>The divergence chart</b> shows the %1.</p>")
                    .arg(QString::fromLatin1(divergenceMeaning(t->divergence)).toHtmlEscaped());
    if (shown_.lostUpdates)
        html += tr("<p><b>Lost updates are counted</b>: the lost-updates chart and the worker "
                   "table show, per worker, the share of its block writes that overlapped "
                   "another worker's write of the same parameters.</p>");
    html += tr("<p>%1 on %2, %3 worker(s), %4 epoch(s).</p>")
                .arg(QString::fromStdString(shown_.model).toHtmlEscaped(),
                     QString::fromStdString(shown_.dataset).toHtmlEscaped())
                .arg(shown_.workers)
                .arg(shown_.epochs);
    setHtml(html);
}

} // namespace hwl::ui
