#pragma once
// Error types that cross the engine's boundary. The CLI maps InputError to
// exit status 2 and RunError to 1; the GUI shows what() as one message.
#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace hwl {

/// Bad input from the user: a config field, a data or weights file, a path, a
/// flag. what() is the whole message: it names the field or file and says
/// what is wrong and how to fix it. Nothing on disk has been changed.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A failure while training (a worker died, a write failed mid-run, ...).
class RunError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Long work (loading the data) stopped because the user asked (the
/// window's Stop or quit, a signal to the command line): nothing was started
/// and nothing written. what() says so in plain words.
class Cancelled : public RunError {
public:
    using RunError::RunError;
};

/// The system's text for errno value `err`.
inline std::string errnoText(int err) {
    return std::error_code(err, std::generic_category()).message();
}

/// What to do when a process or thread cannot be created for lack of the
/// resource `err` names (EAGAIN: the limit on processes and threads; ENOMEM:
/// memory); empty for any other cause.
inline std::string startFailureHint(int err) {
    if (err == EAGAIN)
        return "the limit on processes and threads for this user is reached (ulimit -u; "
               "threads count too): raise it, or run fewer workers";
    if (err == ENOMEM)
        return "the system is out of memory: free some, or run fewer workers";
    return {};
}

/// errnoText(err) for a failed fork() or thread creation, with
/// startFailureHint(err) appended when there is one.
inline std::string startFailureText(int err) {
    std::string text = errnoText(err);
    if (const std::string hint = startFailureHint(err); !hint.empty()) {
        text += "; ";
        text += hint;
    }
    return text;
}

} // namespace hwl
