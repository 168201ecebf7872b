// hwl-docgen: writes the manual page and the bash completion of
// hogwild-lab from what --help prints (helpText(), made from the field
// table) and from the table itself (each choice's names, the presets), so
// that neither is a second description of the flags. The build runs it
// (app/CMakeLists.txt); it is not installed.
//   hwl-docgen man FILE    the roff page hogwild-lab(1)
//   hwl-docgen bash FILE   the completion for hogwild-lab and hogwild-lab-engine
#include "cli/commandline.h"
#include "config/fields.h"
#include "config/presets.h"

#include <cstdio>
#include <fstream>
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
    out += ".SH OPTIONS\n";
    writeOptions(out, blocks);
    out += ".SH FILES\n"
           ".TP\n\\fI/usr/share/hogwild\\-lab/experiments/\\fR\n"
           "Example experiment files for \\fB\\-\\-config\\fR.\n"
           ".SH SEE ALSO\n"
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
        for (const hwl::Preset& p : hwl::presets())
            ids.push_back(p.id);
        return arm(f.flag, "COMPREPLY=($(compgen -W '" + words(ids) + "' -- \"$cur\"))");
    }
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

} // namespace

int main(int argc, char** argv) {
    const std::string what = argc == 3 ? argv[1] : "";
    if (what != "man" && what != "bash") {
        std::fprintf(stderr, "usage: hwl-docgen man|bash FILE\n");
        return 2;
    }
    std::ofstream file(argv[2], std::ios::binary);
    file << (what == "man" ? manPage() : bashCompletion());
    file.close();
    if (!file) {
        std::fprintf(stderr, "hwl-docgen: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
