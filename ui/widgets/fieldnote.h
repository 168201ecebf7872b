#pragma once
// FieldNote: the message of a typed field, hung under its editor over the
// rows below rather than as a row of its own, so that no field moves while
// the user types (issue 49: the rate's message pushed the form down 19 px,
// the widths' 32 px, and the Source box moved from under the pointer). It
// shows while its editor has the focus or the pointer; the editor's red
// frame and tooltip, and the form's one-line summary of the first problem,
// say it the rest of the time. The mouse goes through it. GUI thread only.
#include <QLabel>
#include <QPointer>

namespace hwl::ui {

class FieldNote : public QLabel {
    Q_OBJECT

public:
    /// A note in `overlay` (the form: a widget holding the editor and the
    /// rows under it), hidden until it has a message and an editor.
    explicit FieldNote(QWidget* overlay = nullptr);

    /// The editor the note hangs under; follows it as it moves. It shows
    /// while the focus is in `scope` (the editor itself by default; a
    /// group's box: any of its fields) or the pointer over the editor.
    void setAnchor(QWidget* editor, QWidget* scope = nullptr);
    QWidget* anchor() const { return anchor_; }
    /// The message (empty: none).
    void setMessage(const QString& message);
    QString message() const { return text(); }
    /// Whether it is to show now: a message, its editor on screen, the
    /// focus in its scope or the pointer over the editor.
    bool wanted() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Placed under the editor, as wide as the room to the overlay's right
    /// edge allows, and shown or hidden as wanted().
    void follow();

    QPointer<QWidget> anchor_;
    QPointer<QWidget> scope_;
};

} // namespace hwl::ui
