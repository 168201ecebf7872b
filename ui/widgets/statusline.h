#pragma once
// StatusLine: the status bar's one text. It holds the window's state
// ("Running — 1.2M samples/s", "Run finished after ...") and, for a while,
// a note in its place ("Cannot open ...", "Small window: ..."), after which
// the state, as it is by then, comes back. One label for both, so that a
// note and the state are never drawn over each other, as QStatusBar's own
// message and a label beside it were.
#include <QLabel>
#include <QString>

class QTimer;

namespace hwl::ui {

class StatusLine : public QLabel {
    Q_OBJECT

public:
    explicit StatusLine(const QString& status, QWidget* parent = nullptr);

    /// The state; shown at once unless a note is up, then when it ends.
    void setStatus(const QString& status);
    const QString& status() const { return status_; }
    /// Shows `note` instead of the state for `ms` milliseconds.
    void showNote(const QString& note, int ms);
    /// The note up now; empty when the state is shown.
    QString note() const;

private:
    QString status_;
    QTimer* noteTimer_ = nullptr;
};

} // namespace hwl::ui
