#include "teaching/explanationpane.h"

#include "config/fields.h"
#include "strategy/catalog.h"

namespace hwl::ui {

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
    changed_.clear();
    render();
}

void ExplanationPane::showExperiment(const ExperimentConfig& config, const QString& origin) {
    preset_ = hwl::Preset{};
    origin_ = origin;
    shown_ = config;
    changed_.clear();
    render();
}

void ExplanationPane::formChanged(const ExperimentConfig& config) {
    if (preset_.id.empty()) {
        shown_ = config;
    } else {
        const QStringList changed = differingFields(preset_.config, config);
        if (changed == changed_)
            return; // nothing new to say (and the reader's scroll position stays)
        changed_ = changed;
    }
    render();
}

void ExplanationPane::render() {
    if (!preset_.id.empty()) {
        QString status = tr("<p><i>Preset <tt>%1</tt>, as it was loaded.</i></p>")
                             .arg(QString::fromStdString(preset_.id));
        if (!changed_.isEmpty())
            status = tr("<p><i><b>Modified:</b> the form differs from the preset in %1, so the "
                        "run may not show what this text says. Choose the preset again to go "
                        "back to it.</i></p>")
                         .arg(changed_.join(QStringLiteral(", ")).toHtmlEscaped());
        setHtml(QStringLiteral("<h3>%1%2</h3>%3%4")
                    .arg(QString::fromStdString(preset_.name).toHtmlEscaped(),
                         changed_.isEmpty() ? QString() : tr(" (modified)"), status,
                         QString::fromStdString(preset_.explanation)));
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
