#pragma once
// A Qt-free test harness for the tests the GPU device bundle carries (the GPU
// machine has no Qt): cases are functions, CHECK/CHECK2 fail one, SKIP skips
// one with the reason. It prints Qt Test's line format (PASS, FAIL!, SKIP,
// Totals), so CTest's skip rule and a reader treat it like the other units,
// and exits with the number of failed cases.
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace hwl::plaintest {

struct Failure {
    std::string what;
};
struct Skipped {
    std::string why;
};

struct Case {
    std::string name;
    std::function<void()> body;
};

/// Runs `init` (a skip there skips every case, as Qt Test's initTestCase
/// does), then each case whose name contains argv[1] when given. The Totals
/// count the cases only, not initTestCase: "1 passed" must never mean that
/// the set-up passed and every case skipped (the device check reads a test
/// with no case passed as skipped).
inline int run(const char* suite, const std::function<void()>& init, const std::vector<Case>& cases,
               int argc, char** argv) {
    int passed = 0, failed = 0, skipped = 0;
    std::printf("********* Start testing of %s *********\n", suite);
    auto attempt = [&](const std::string& name, const std::function<void()>& body) {
        const bool counted = name != "initTestCase";
        try {
            body();
            std::printf("PASS   : %s::%s()\n", suite, name.c_str());
            passed += counted ? 1 : 0;
            return true;
        } catch (const Skipped& s) {
            std::printf("SKIP   : %s::%s() %s\n", suite, name.c_str(), s.why.c_str());
            ++skipped; // a skipped set-up counts once: every case was skipped with it
        } catch (const Failure& f) {
            std::printf("FAIL!  : %s::%s() %s\n", suite, name.c_str(), f.what.c_str());
            ++failed;
        } catch (const std::exception& e) {
            std::printf("FAIL!  : %s::%s() threw: %s\n", suite, name.c_str(), e.what());
            ++failed;
        }
        return false;
    };
    if (attempt("initTestCase", init))
        for (const Case& c : cases)
            if (argc < 2 || c.name.find(argv[1]) != std::string::npos)
                attempt(c.name, c.body);
    std::printf("Totals: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    std::printf("********* Finished testing of %s *********\n", suite);
    std::fflush(stdout);
    return failed;
}

template <class... Parts>
std::string text(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

} // namespace hwl::plaintest

#define PT_CHECK2(cond, message)                                                                   \
    do {                                                                                           \
        if (!(cond))                                                                               \
            throw ::hwl::plaintest::Failure{::hwl::plaintest::text(                                \
                "'" #cond "' failed: ", message, " (" __FILE__ ":", __LINE__, ")")};               \
    } while (0)
#define PT_CHECK(cond) PT_CHECK2(cond, "")
#define PT_SKIP(why)                                                                               \
    throw ::hwl::plaintest::Skipped {                                                              \
        why                                                                                        \
    }
