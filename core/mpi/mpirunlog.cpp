// Reading mpirun's log: what it said, on one line, and which rank it saw
// end first.
#include "mpi/mpirunlog.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace hwl {

namespace {

bool isRule(const std::string& line) {
    return line.size() >= 10 && line.find_first_not_of('-') == std::string::npos;
}

} // namespace

std::string mpirunWords(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    std::string words;
    auto add = [&](const std::string& line) {
        const std::size_t from = line.find_first_not_of(" \t*");
        if (from != std::string::npos)
            words.append(words.empty() ? "" : " ").append(line, from, std::string::npos);
    };
    std::size_t i = 0;
    for (; i < lines.size() && !isRule(lines[i]); ++i)
        if (lines[i].rfind('[', 0) != 0) // not mpirun's own "[host:pid] ..." log lines
            add(lines[i]);
    if (i < lines.size()) {
        int paragraphs = 0;
        for (++i; i < lines.size() && !isRule(lines[i]) && paragraphs < 2; ++i) {
            if (lines[i].find_first_not_of(" \t") == std::string::npos)
                paragraphs += words.empty() ? 0 : 1;
            else
                add(lines[i]);
        }
    } else { // no box: its last three lines
        words.clear();
        std::vector<std::string> tail;
        for (std::size_t k = lines.size(); k-- > 0 && tail.size() < 3;)
            if (lines[k].find_first_not_of(" \t") != std::string::npos)
                tail.insert(tail.begin(), lines[k]);
        for (const auto& line : tail)
            add(line);
    }
    if (words.size() > 320) // the whole report fits WorkerStatus::failure
        words = words.substr(0, words.rfind(' ', 320)) + " ...";
    return words;
}

std::pair<int, int> firstRankDown(const std::string& text) {
    int rank = -1, value = 0;
    const std::size_t noticed = text.find("mpirun noticed that process rank ");
    if (noticed != std::string::npos) {
        const char* at = text.c_str() + noticed;
        if (std::sscanf(at,
                        "mpirun noticed that process rank %d with PID %*d on node %*s "
                        "exited on signal %d",
                        &rank, &value) == 2 &&
            rank >= 0 && value > 0 && value < 128)
            return {rank, value}; // a wait status for "killed by signal value"
    }
    const std::size_t name = text.find("Process name: [[");
    const std::size_t code = text.find("Exit code:", name == std::string::npos ? 0 : name);
    if (name != std::string::npos && code != std::string::npos &&
        std::sscanf(text.c_str() + name, "Process name: [[%*d,%*d],%d]", &rank) == 1 &&
        std::sscanf(text.c_str() + code, "Exit code: %d", &value) == 1 && rank >= 0 && value > 0 &&
        value < 256)
        return {rank, (value & 0xff) << 8}; // a wait status for "exited with code value"
    return {-1, 0};
}

} // namespace hwl
