// hwl-docgen: writes the manual page (with the window's options, from
// ui/window/windowoptions.h), the bash completion and the
// command-line reference of docs/ from what --help prints (helpText(), made
// from the field table) and from the table itself (each choice's names, the
// presets), so that none is a second description of the flags. The build
// runs it (app/CMakeLists.txt, packaging/CMakeLists.txt); it is not installed.
//   hwl-docgen man FILE        the roff page hogwild-lab(1)
//   hwl-docgen bash FILE       the completion for hogwild-lab and hogwild-lab-engine
//   hwl-docgen markdown FILE   rewrites the part of FILE (docs/command-line.md)
//                              between the markers kBegin and kEnd below
//   hwl-docgen environment FILE  rewrites the part of FILE (docs/command-line.md)
//                              after kEnvironmentBegin: the environment and files
//   hwl-docgen fields FILE     the field table's JSON keys, one a line, which
//                              tests/docs/check-docs holds the manual's lists to
#include "cli/commandline.h"
#include "cli/environment.h"
#include "config/fields.h"
#include "preset/presets.h"
#include "strategy/catalog.h"
#include "window/windowoptions.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// One entry of --help: "--workers N" and its text, unwrapped.
struct Entry {
    std::string term, text;
    std::vector<std::string> more; ///< its continuation lines, as --help breaks them
};

/// A block of --help: a paragraph (no entries) or a heading with entries.
struct Block {
    std::string heading; ///< "Other" (without the colon); empty for a paragraph
    std::string text;    ///< the paragraph, or the words under the heading
    std::vector<Entry> entries;
};

std::string trim(const std::string& s) {
    const std::size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void append(std::string& to, const std::string& words) {
    if (!words.empty())
        to += (to.empty() ? "" : " ") + words;
}

/// --help cut into blocks: a line at column 0 ending in ':' opens a heading,
/// "  TERM  text" an entry (helpEntry's layout: text at column 25, a long
/// term alone on its line), deeper lines continue it, a blank line ends a
/// paragraph.
std::vector<Block> parseHelp(const std::string& help) {
    std::vector<Block> blocks(1);
    std::size_t start = 0;
    while (start < help.size()) {
        std::size_t end = help.find('\n', start);
        if (end == std::string::npos)
            end = help.size();
        const std::string line = help.substr(start, end - start);
        start = end + 1;
        Block& last = blocks.back();
        if (line.empty()) {
            if (last.entries.empty() && !last.text.empty())
                blocks.emplace_back();
        } else if (line.rfind("    ", 0) == 0 && !last.entries.empty()) {
            last.entries.back().more.push_back(trim(line));
        } else if (line.rfind("  ", 0) == 0) {
            const std::size_t gap = line.find("  ", 2);
            last.entries.push_back({trim(line.substr(0, gap)),
                                    gap == std::string::npos ? "" : trim(line.substr(gap)),
                                    {}});
        } else if (line.back() == ':' && line.find(". ") == std::string::npos) {
            if (!last.heading.empty() || !last.text.empty() || !last.entries.empty())
                blocks.emplace_back();
            blocks.back().heading = line.substr(0, line.size() - 1);
        } else {
            if (!last.entries.empty())
                blocks.emplace_back();
            append(blocks.back().text, line);
        }
    }
    return blocks;
}

/// Text for roff: backslashes and minus signs escaped, no line starting
/// with a control character.
std::string roff(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\''))
        out = "\\&" + out;
    return out;
}

/// "--workers N" as roff: the flag in bold, its value's name in italics.
std::string roffTerm(const std::string& term) {
    const std::size_t space = term.find(' ');
    if (space == std::string::npos)
        return "\\fB" + roff(term) + "\\fR";
    return "\\fB" + roff(term.substr(0, space)) + "\\fR \\fI" + roff(term.substr(space + 1)) +
           "\\fR";
}

/// The first line ("Hogwild Lab: what it is (headless mode)") without the
/// product name and the parenthesis.
std::string summaryOf(const std::string& first) {
    std::string s = first.substr(first.find(':') + 1);
    s = trim(s.substr(0, s.find(" (")));
    return s;
}

/// The blocks from the first heading on: the options, then the exit status.
void writeOptions(std::string& out, const std::vector<Block>& blocks) {
    bool options = false;
    for (const Block& b : blocks) {
        options = options || !b.heading.empty();
        if (!options)
            continue;
        if (b.text.rfind("Exit status:", 0) == 0) {
            out += ".SH \"EXIT STATUS\"\n" + roff(trim(b.text.substr(12))) + "\n";
            continue;
        }
        if (!b.heading.empty()) {
            const std::size_t paren = b.heading.find(" (");
            out += ".SS \"" + roff(b.heading.substr(0, paren)) + "\"\n";
            if (paren != std::string::npos)
                out += roff(b.heading.substr(paren + 2, b.heading.size() - paren - 3)) + ".\n";
        } else if (!b.text.empty()) {
            out += ".PP\n" + roff(b.text) + "\n";
        }
        for (const Entry& e : b.entries) {
            // --help's line breaks stay: some separate the items of a list.
            out += ".TP\n" + roffTerm(e.term) + "\n" + roff(e.text) + "\n";
            for (std::size_t i = 0; i < e.more.size(); ++i)
                out += (i == 0 && e.text.empty() ? "" : ".br\n") + roff(e.more[i]) + "\n";
        }
    }
}

/// The window's options (hogwild-lab without --headless), from its table.
std::string windowOptions() {
    std::string out = ".SS \"The window\"\nWithout \\fB\\-\\-headless\\fR.\n";
    for (const hwl::ui::WindowOption& o : hwl::ui::kWindowOptions) {
        const std::string flag = std::string("--") + o.name;
        out += ".TP\n" + roffTerm(o.valueName ? flag + " " + o.valueName : flag) + "\n" +
               roff(o.help) + "\n";
    }
    return out + ".TP\n\\fIFILE\\fR...\n" + roff(hwl::ui::kWindowFilesHelp) + "\n";
}

std::string manPage() {
    const std::vector<Block> blocks = parseHelp(hwl::helpText());
    std::string out = ".\\\" Generated by hwl-docgen (app/docgen.cpp) from hogwild-lab --help.\n"
                      ".TH HOGWILD\\-LAB 1 \"\" \"Hogwild Lab " HWL_VERSION "\" \"User Commands\"\n"
                      ".ad l\n"
                      ".SH NAME\n"
                      "hogwild-lab, hogwild-lab-engine \\- " +
                      roff(summaryOf(blocks[0].text)) +
                      "\n"
                      ".SH SYNOPSIS\n"
                      "\\fBhogwild\\-lab\\fR [\\fIFILE\\fR...]\n.br\n"
                      "\\fBhogwild\\-lab \\-\\-headless\\fR [\\fIoptions\\fR]\n.br\n"
                      "\\fBhogwild\\-lab\\-engine\\fR [\\fIoptions\\fR]\n"
                      ".SH DESCRIPTION\n"
                      "Without \\fB\\-\\-headless\\fR, \\fBhogwild\\-lab\\fR opens the window; "
                      "the files named open in it (an experiment .json, a metrics.csv or a "
                      "run's output folder, a .safetensors file of initial weights).\n"
                      ".PP\n"
                      "With \\fB\\-\\-headless\\fR it trains on the command line, through "
                      "\\fBhogwild\\-lab\\-engine\\fR, the same engine without Qt (which takes the "
                      "same options, with or without \\fB\\-\\-headless\\fR).\n";
    for (std::size_t i = 1; i < blocks.size() && blocks[i].heading.empty(); ++i)
        if (blocks[i].text.rfind("Usage:", 0) != 0)
            out += ".PP\n" + roff(blocks[i].text) + "\n";
    out += ".SH OPTIONS\n" + windowOptions();
    writeOptions(out, blocks);
    out += ".SH ENVIRONMENT\n";
    for (const hwl::EnvironmentVariable& v : hwl::environmentVariables())
        out += ".TP\n\\fB" + roff(v.name) + "\\fR=\\fI" + roff(v.value) + "\\fR\n" +
               roff(v.meaning) + "\n";
    out += ".SH FILES\n";
    for (const hwl::ProgramFile& f : hwl::programFiles())
        out += ".TP\n\\fI" + roff(f.path) + "\\fR\n" + roff(f.meaning) + "\n";
    out += ".SH SEE ALSO\n"
           "\\fBmpirun\\fR(1)\n";
    return out;
}

/// Each flag of --help (a switch's negation is an entry of its own) with
/// whether it takes a value and, for a value, how bash completes it.
struct FlagInfo {
    std::string flag, value;
};

std::vector<FlagInfo> flags() {
    std::vector<FlagInfo> out{{"--headless", ""}};
    for (const Block& b : parseHelp(hwl::helpText()))
        for (const Entry& e : b.entries)
            if (e.term.rfind("--", 0) == 0) {
                const std::size_t space = e.term.find(' ');
                out.push_back({e.term.substr(0, space),
                               space == std::string::npos ? "" : e.term.substr(space + 1)});
            }
    return out;
}

std::string words(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : " ") + n;
    return out;
}

std::string arm(const std::string& flag, const std::string& action) {
    return "        " + flag + ")\n            " + action +
           "\n            return\n            ;;\n";
}

/// The case arm that completes one flag's value: a choice's names, the
/// presets, files (FILE...), folders (DIR), or nothing (numbers, specs).
std::string valueArm(const FlagInfo& f) {
    if (f.flag == "--preset") {
        std::vector<std::string> ids;
        for (const hwl::Preset& p : hwl::builtinPresets()) // not the builder's own
            ids.push_back(p.id);
        return arm(f.flag, "COMPREPLY=($(compgen -W '" + words(ids) + "' -- \"$cur\"))");
    }
    if (f.flag == "--mode") // the registered modes, which the catalog lists
        return arm(f.flag,
                   "COMPREPLY=($(compgen -W '" + words(hwl::modeNames()) + "' -- \"$cur\"))");
    if (const hwl::Field* field = hwl::findFlag(f.flag);
        field && field->type == hwl::FieldType::Choice)
        return arm(f.flag,
                   "COMPREPLY=($(compgen -W '" + words(field->choices()) + "' -- \"$cur\"))");
    if (f.value.rfind("FILE", 0) == 0)
        return arm(f.flag,
                   f.value.find(".json") != std::string::npos ? "_filedir json" : "_filedir");
    if (f.value == "DIR")
        return arm(f.flag, "_filedir -d");
    return arm(f.flag, ":"); // a number or a spec (N, X, SPEC): nothing to offer
}

/// Every key of the field table, one a line: what an experiment file may hold.
std::string fieldKeys() {
    std::string out;
    for (const hwl::Field& f : hwl::experimentFields())
        out.append(f.key).append("\n");
    return out;
}

std::string bashCompletion() {
    std::string out = "# bash completion for hogwild-lab and hogwild-lab-engine\n"
                      "# shellcheck shell=bash disable=SC2034,SC2207 # bash-completion's idiom\n"
                      "# Generated by hwl-docgen (app/docgen.cpp) from --help and the field "
                      "table.\n"
                      "_hogwild_lab() {\n"
                      "    local cur prev words cword split\n"
                      "    _init_completion -s || return\n"
                      "    case $prev in\n";
    std::vector<std::string> all;
    for (const FlagInfo& f : flags()) {
        all.push_back(f.flag);
        if (!f.value.empty())
            out += valueArm(f);
    }
    out += "    esac\n"
           "    $split && return\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W '" +
           words(all) +
           "' -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    # The window opens experiments, metrics, run folders and weights.\n"
           "    _filedir '@(json|csv|safetensors)'\n"
           "} &&\n"
           "    complete -F _hogwild_lab hogwild-lab hogwild-lab-engine\n";
    return out;
}

// The generated part of docs/command-line.md lies between these two lines;
// tests/docs/check-docs compares it with what this program writes.
constexpr const char* kBegin = "<!-- BEGIN generated by hwl-docgen from --help: do not edit; "
                               "regenerate with cmake --build build --target docs -->";
constexpr const char* kEnd = "<!-- END generated by hwl-docgen -->";
// ... and the environment's tables (app/cli/environment.h), further on.
constexpr const char* kEnvironmentBegin =
    "<!-- BEGIN generated by hwl-docgen from app/cli/environment.cpp: do not edit; "
    "regenerate with cmake --build build --target docs -->";

/// Text for a Markdown table cell: the characters that would start code,
/// emphasis, HTML or a new cell are escaped.
std::string markdown(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\\' || c == '`' || c == '*' || c == '|' || c == '<')
            out += '\\';
        out += c;
    }
    return out;
}

/// helpEntry wraps at 79 columns with the text at column 25 (the Other
/// section is wrapped by hand at 78): a line that broke before a next word
/// that would have fitted broke on purpose, and so does one before a spec
/// or a "label:" in a text that starts with one (the items of a list): the
/// cell keeps those breaks and joins the others.
bool listItem(const std::string& word) {
    const std::size_t colon = word.find(':');
    return colon != std::string::npos && colon > 0 &&
           word.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == colon;
}

std::string cellText(const Entry& e) {
    constexpr std::size_t kColumn = 25, kWidth = 78;
    std::string out = markdown(e.text), last = e.text;
    const bool list = listItem(e.text.substr(0, e.text.find(' ')));
    for (const std::string& line : e.more) {
        const std::string firstWord = line.substr(0, line.find(' '));
        const bool wrapped = last.empty() || kColumn + last.size() + 1 + firstWord.size() > kWidth;
        out += (out.empty()                                 ? ""
                : wrapped && !(list && listItem(firstWord)) ? " "
                                                            : "<br>") +
               markdown(line);
        last = line;
    }
    return out;
}

/// One table row: the term as code, its text, and the default that --help
/// puts last in brackets ("[25]") in a column of its own.
std::string markdownRow(const Entry& e) {
    std::string text = cellText(e), value;
    const std::size_t open = text.rfind(" [");
    if (!text.empty() && text.back() == ']' && open != std::string::npos) {
        value = "`" + text.substr(open + 2, text.size() - open - 3) + "`";
        text = text.substr(0, open);
    }
    return "| `" + e.term + "` | " + text + " | " + value + " |\n";
}

/// A heading of --help and its entries as a table. "Experiment (each flag
/// is ...)": the parenthesis becomes a sentence under the heading; a
/// one-word one ("Modes (--mode)") stays in it.
std::string markdownTable(const Block& b) {
    const std::size_t paren = b.heading.find(" (");
    std::string note = paren == std::string::npos
                           ? std::string()
                           : b.heading.substr(paren + 2, b.heading.size() - paren - 3);
    std::string out;
    if (note.find(' ') == std::string::npos) {
        out.append("### ").append(markdown(b.heading)).append("\n\n");
    } else {
        note[0] = char(std::toupper(static_cast<unsigned char>(note[0])));
        out.append("### ").append(b.heading.substr(0, paren)).append("\n\n");
        out.append(markdown(note)).append(".\n\n");
    }
    const bool flags = !b.entries.empty() && b.entries[0].term.rfind("--", 0) == 0;
    out.append(flags ? "| option" : "| value").append(" | meaning | default |\n");
    out += "| --- | --- | --- |\n";
    for (const Entry& e : b.entries)
        out += markdownRow(e);
    return out + "\n";
}

/// --help as Markdown: the usage, the paragraphs, one table per heading,
/// the exit status.
std::string markdownReference() {
    const std::vector<Block> blocks = parseHelp(hwl::helpText());
    std::string out = std::string(kBegin) + "\n\n";
    for (std::size_t i = 1; i < blocks.size(); ++i) {
        const Block& b = blocks[i];
        if (b.heading.empty() && b.text.rfind("Usage:", 0) == 0) {
            out += "```\n" + trim(b.text.substr(6)) + "\nhogwild-lab-engine [options]\n```\n\n";
        } else if (b.heading.empty() && b.text.rfind("Exit status:", 0) == 0) {
            out += "### Exit status\n\n" + markdown(trim(b.text.substr(12))) + "\n\n";
        } else if (b.heading.empty()) {
            out += markdown(b.text) + "\n\n";
        } else {
            out += markdownTable(b);
        }
    }
    return out + kEnd;
}

/// A Markdown table of the environment variables, then one of the files.
std::string environmentReference() {
    std::string out = std::string(kEnvironmentBegin) + "\n\n| variable | value | meaning |\n" +
                      "| --- | --- | --- |\n";
    for (const hwl::EnvironmentVariable& v : hwl::environmentVariables())
        out += "| `" + std::string(v.name) + "` | " + markdown(v.value) + " | " +
               markdown(v.meaning) + " |\n";
    out += "\n| file | what |\n| --- | --- |\n";
    for (const hwl::ProgramFile& f : hwl::programFiles())
        out += "| `" + f.path + "` | " + markdown(f.meaning) + " |\n";
    return out + "\n" + kEnd;
}

/// FILE with the part from `begin` to the next kEnd replaced by `part`
/// (which starts with `begin` and ends with kEnd); false (and why) when FILE
/// cannot be read or lacks a marker.
bool rewriteMarkdown(const std::string& path, const char* begin, const std::string& part,
                     std::string& out, std::string& why) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
        why = "cannot read " + path;
        return false;
    }
    const std::string old = text.str();
    const std::size_t from = old.find(begin), end = old.find(kEnd, from);
    if (from == std::string::npos || end == std::string::npos) {
        why = path + " lacks the markers " + begin + " and " + kEnd;
        return false;
    }
    out = old.substr(0, from) + part + old.substr(end + std::string(kEnd).size());
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const std::string what = argc == 3 ? argv[1] : "";
    if (what != "man" && what != "bash" && what != "markdown" && what != "environment" &&
        what != "fields") {
        std::fprintf(stderr, "usage: hwl-docgen man|bash|markdown|environment|fields FILE\n");
        return 2;
    }
    std::string text, why;
    const bool markdownFile = what == "markdown" || what == "environment";
    if (markdownFile &&
        !(what == "markdown"
              ? rewriteMarkdown(argv[2], kBegin, markdownReference(), text, why)
              : rewriteMarkdown(argv[2], kEnvironmentBegin, environmentReference(), text, why))) {
        std::fprintf(stderr, "hwl-docgen: %s\n", why.c_str());
        return 1;
    }
    if (what == "fields")
        text = fieldKeys();
    else if (!markdownFile)
        text = what == "man" ? manPage() : bashCompletion();
    std::ofstream file(argv[2], std::ios::binary);
    file << text;
    file.close();
    if (!file) {
        std::fprintf(stderr, "hwl-docgen: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
