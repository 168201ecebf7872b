#pragma once
// What the programs read from their environment and the files they keep, in
// one table each: hwl-docgen writes the manual page's ENVIRONMENT and FILES
// sections and docs/command-line.md's "Environment and files" from them, and
// the ctest doctables fails when the sources read a variable (getenv,
// qEnvironmentVariable) that is not in the first.
#include <string>
#include <vector>

namespace hwl {

/// A variable a user may set: its name, its value's form ("DIR", "1 to 4")
/// and what it does.
struct EnvironmentVariable {
    const char* name;
    const char* value;
    const char* meaning;
};

/// Every variable the programs read, in the order the manual lists them.
const std::vector<EnvironmentVariable>& environmentVariables();

/// A file or folder the programs read or write, and what it holds.
struct ProgramFile {
    std::string path; ///< "~/.config/HogwildLab/Hogwild Lab.conf", "DIR/ (--out DIR)"
    std::string meaning;
};

/// The files and folders a user meets, in the order the manual lists them.
const std::vector<ProgramFile>& programFiles();

} // namespace hwl
