#pragma once
// Error types that cross the engine's boundary. The CLI maps InputError to
// exit status 2 and RunError to 1; the GUI shows what() as one message.
#include <stdexcept>
#include <string>

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

} // namespace hwl
