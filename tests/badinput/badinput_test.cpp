// The bad-input corpus: every file in tests/badinput/corpus (plus a few generated ones too large
// or too odd to keep: 100,000-deep nesting, 300 nested spans, a 4 MiB string, a directory, an
// unreadable file) is
// given to every subcommand, and expectations.txt says, per file and subcommand, the exit code
// and a fragment of the one-line message. Each run has a deadline: a hang fails, as does a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(RINGPROF_TEST_SOURCE_DIR) + "/badinput/corpus";

struct Expectation {
    std::string file, command;
    int exit_code = 0;
    std::string fragment;
    int line = 0;
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<Expectation> read_expectations() {
    std::ifstream in(std::string(RINGPROF_TEST_SOURCE_DIR) + "/badinput/expectations.txt");
    std::vector<Expectation> all;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> parts;
        std::stringstream ss(line);
        std::string part;
        while (std::getline(ss, part, '|')) parts.push_back(trim(part));
        if (parts.size() != 4) {
            ADD_FAILURE() << "expectations.txt:" << number << ": want 'file | command | exit | fragment'";
            continue;
        }
        all.push_back({parts[0], parts[1], std::stoi(parts[2]), parts[3], number});
    }
    return all;
}

struct ToolRun {
    int exit_code = -1;  // -1: killed by a signal or the deadline
    std::string err;
    bool timed_out = false;
};

// Runs argv with stdout to `out_path` and stderr captured, as `as_nobody` an unprivileged user.
ToolRun run_tool(std::vector<std::string> args, const std::string& err_path, bool as_nobody,
                 const std::string& out_path = "/dev/null") {
    if (as_nobody) {
        args.insert(args.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
    }
    const pid_t pid = fork();
    if (pid == 0) {
        const int null_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
        const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
        dup2(null_fd, 1);
        dup2(err_fd, 2);
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    ToolRun r;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    for (;;) {
        if (waitpid(pid, &status, WNOHANG) == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    std::ifstream in(err_path);
    r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// Files too large or too odd to keep in the repository, made in `dir`.
void make_generated(const std::string& dir) {
    const int n = 100000;
    std::string s;
    s.append(n, '[');
    s.append(n, ']');
    write_file(dir + "/deep_array_100000.json", s);
    std::string t;
    for (int i = 0; i < n; ++i) t += "{\"name\": \"n\", \"total\": 1, \"count\": 1, \"children\": [";
    for (int i = 0; i < n; ++i) t += "]}";
    write_file(dir + "/deep_timers_100000.json", t);
    std::string e = "[{\"name\": \"a\", \"ph\": \"X\", \"pid\": 1, \"ts\": 1, \"dur\": 1, \"args\": ";
    for (int i = 0; i < n; ++i) e += "{\"a\": ";
    e += "1";
    e.append(n, '}');
    e += "}]";
    write_file(dir + "/deep_event_args_100000.json", e);
    write_file(dir + "/long_name_4MiB.json",
               "{\"name\": \"root\", \"total\": 1.0, \"count\": 1, \"children\": [{\"name\": \"" +
                   std::string(4 << 20, 'x') + "\", \"total\": 0.5, \"count\": 1}]}");
    // One event past the readers' limit on a single event (64 MiB), in a trace object and in a bare
    // array: the message names the limit, whichever form the file has.
    const std::string big_event = "{\"name\": \"x\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, "
                                  "\"args\": {\"blob\": \"" + std::string(65 << 20, 'a') + "\"}}";
    write_file(dir + "/event_65MiB_in_trace_object.json", "{\"traceEvents\": [" + big_event + "]}");
    write_file(dir + "/event_65MiB_in_array.json", "[" + big_event + "]");
    std::string spans = "[";  // 300 spans, each inside the one before, on one thread
    for (int i = 0; i < 300; ++i) {
        spans += std::string(i ? ",\n" : "") +
                 "{\"name\": \"s\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i) +
                 ", \"dur\": " + std::to_string(1000 - 2 * i) + "}";
    }
    write_file(dir + "/nested_spans_300.json", spans + "]");
    fs::create_directories(dir + "/a_directory.json");
    std::ifstream valid(kCorpus + "/valid_timers.json", std::ios::binary);
    write_file(dir + "/unreadable.json", std::string(std::istreambuf_iterator<char>(valid), {}));
    chmod((dir + "/unreadable.json").c_str(), 0);
}

// `ringprof merge` reads a folder: the input goes where a pythontimeline file (or, gzip-compressed,
// ringprof's own trace) is found.
std::string merge_folder_for(const std::string& work, const std::string& input, std::string& placed) {
    const std::string root = work + "/merge_root";
    fs::remove_all(root);
    const bool gz = input.size() > 3 && input.compare(input.size() - 3, 3, ".gz") == 0;
    const std::string dir = root + "/framework/pevents/2020071317";
    fs::create_directories(dir);
    placed = gz ? root + "/corpus_trace.json.gz" : dir + "/1594662614815222_1-corpus_pythontimeline.json";
    if (fs::is_directory(input)) {
        fs::create_directories(placed);
    } else {
        fs::copy_file(input, placed);
        struct stat st {};
        stat(input.c_str(), &st);
        chmod(placed.c_str(), st.st_mode & 07777);
    }
    fs::create_directories(root + "/out");
    chmod(root.c_str(), 0777);
    chmod((root + "/out").c_str(), 0777);
    return root;
}

TEST(BadInputCorpus, EverySubcommandAnswersEveryFileWithItsDocumentedExitCodeAndMessage) {
    ringprof::testing::TempDir tmp;
    const std::string work = tmp.str();
    chmod(work.c_str(), 0777);  // the unprivileged runs write their stderr and outputs here
    make_generated(work);
    const std::vector<Expectation> all = read_expectations();
    ASSERT_FALSE(all.empty());
    std::map<std::string, int> covered;  // file -> subcommands run
    for (const Expectation& x : all) {
        SCOPED_TRACE("expectations.txt:" + std::to_string(x.line) + ": " + x.file + " | " + x.command);
        std::string input = kCorpus + "/" + x.file;
        if (!fs::exists(input) && !fs::is_directory(input)) input = work + "/" + x.file;
        ASSERT_TRUE(fs::exists(input)) << "no such corpus file";
        const bool as_nobody = x.file == "unreadable.json";
        std::vector<std::string> args{RINGPROF_TOOL, x.command};
        std::string named = input;
        if (x.command == "merge") {
            const std::string root = merge_folder_for(work, input, named);
            args.insert(args.end(), {root, "-o", root + "/out"});
        } else if (x.command == "flame") {
            args.insert(args.end(), {input, "-o", work + "/flame_out.html"});
        } else if (x.command == "merge-timers") {
            args.insert(args.end(), {"-o", work + "/merged_timers.json", input});
        } else {
            args.push_back(input);
        }
        const ToolRun r = run_tool(args, work + "/stderr.txt", as_nobody);
        ++covered[x.file];
        ASSERT_FALSE(r.timed_out) << "did not finish within 60 s";
        EXPECT_EQ(r.exit_code, x.exit_code) << r.err;
        EXPECT_NE(r.err.find(x.fragment), std::string::npos) << "message: " << r.err;
        if (x.exit_code != 0) {
            EXPECT_NE(r.err.find(named), std::string::npos) << "the message must name the file: " << r.err;
            EXPECT_EQ(r.err.find("usage:"), std::string::npos) << "bad input is not a usage error: " << r.err;
        }
    }
    // Every corpus file is tried with every subcommand.
    for (const auto& entry : fs::directory_iterator(kCorpus)) {
        EXPECT_EQ(covered[entry.path().filename().string()], 4) << entry.path().filename() << " lacks expectations";
    }
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(CliConsistency, VersionAndHelpAnswerOnStandardOutput) {
    ringprof::testing::TempDir tmp;
    const std::string out = tmp.str() + "/out.txt", err = tmp.str() + "/err.txt";
    ToolRun r = run_tool({RINGPROF_TOOL, "--version"}, err, false, out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::ifstream version(out);
    std::string line;
    std::getline(version, line);
    EXPECT_EQ(line.rfind("ringprof ", 0), 0u) << line;
    EXPECT_NE(line.find_first_of("0123456789"), std::string::npos) << line;
    for (const char* help : {"help", "--help"}) {
        r = run_tool({RINGPROF_TOOL, help}, err, false, out);
        EXPECT_EQ(r.exit_code, 0) << help;
        std::ifstream text(out);
        const std::string all((std::istreambuf_iterator<char>(text)), {});
        for (const char* command : {"merge", "merge-timers", "stats", "flame"}) {
            EXPECT_NE(all.find(std::string("  ") + command + " "), std::string::npos) << help << " lists " << command;
        }
    }
}

// One line saying what is wrong, then the command's one-line usage (and where the long help is).
TEST(CliConsistency, EverySubcommandAnswersABadCommandLineWithOneLineThenItsUsage) {
    ringprof::testing::TempDir tmp;
    const std::string err = tmp.str() + "/err.txt";
    for (const char* command : {"merge", "merge-timers", "stats", "flame"}) {
        for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--no-such-option"}}) {
            std::vector<std::string> args{RINGPROF_TOOL, command};
            args.insert(args.end(), extra.begin(), extra.end());
            const ToolRun r = run_tool(args, err, false);
            SCOPED_TRACE(std::string(command) + (extra.empty() ? " (no arguments)" : " --no-such-option"));
            EXPECT_EQ(r.exit_code, 2) << r.err;
            ASSERT_EQ(count_lines(r.err), 3) << r.err;
            const std::string prefix = std::string("ringprof ") + command + ": ";
            EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
            const std::string second = r.err.substr(r.err.find('\n') + 1);
            EXPECT_EQ(second.rfind(std::string("usage: ringprof ") + command + " ", 0), 0u) << r.err;
        }
    }
    const ToolRun unknown = run_tool({RINGPROF_TOOL, "frobnicate"}, err, false);
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err.rfind("ringprof: unknown command 'frobnicate'\n", 0), 0u) << unknown.err;
}

// `> /dev/full`: the bytes never arrive, so the command says so and fails.
TEST(CliConsistency, AWriteErrorOnStandardOutputIsReportedWithANonZeroExit) {
    ringprof::testing::TempDir tmp;
    const std::string err = tmp.str() + "/err.txt";
    const std::string timers = kCorpus + "/valid_timers.json", stats = kCorpus + "/valid_stats.json";
    const std::string root = tmp.str() + "/merge_root";
    fs::create_directories(root + "/framework/pevents/2020071317");
    fs::copy_file(kCorpus + "/valid_trace.json",
                  root + "/framework/pevents/2020071317/1594662614815222_1-corpus_pythontimeline.json");
    const std::vector<std::vector<std::string>> cases = {
        {RINGPROF_TOOL, "merge-timers", timers},
        {RINGPROF_TOOL, "stats", stats},
        {RINGPROF_TOOL, "flame", timers, "-o", "-"},
        {RINGPROF_TOOL, "merge", root, "-o", tmp.str()},
        {RINGPROF_TOOL, "--version"},
        {RINGPROF_TOOL, "help"},
        {RINGPROF_TOOL, "stats", "--help"},
    };
    for (const auto& args : cases) {
        SCOPED_TRACE(args[1]);
        const ToolRun r = run_tool(args, err, false, "/dev/full");
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("cannot write to standard output"), std::string::npos) << r.err;
    }
}

// Whatever ringprof writes, ringprof reads: a session recursing far deeper than any tree keeps
// (kMaxTreeDepth) writes every output, and every subcommand reads them back. Timer trees keep
// kMaxTreeDepth levels with the rest folded into the deepest one (exact total and count, the
// number of folded nodes in the metadata); traces keep every span, and a flame graph folds them.
void recurse(int n) {
    PROF_SCOPE("level");
    if (n > 1) recurse(n - 1);
}

TEST(DeepestOutput, EveryCommandReadsWhatTheDeepestSessionWrote) {
    ringprof::testing::TempDir tmp;
    const int depth = 1000;  // the session's own walks handle 1,000 levels under sanitizers too
    ringprof::Config c;
    c.output_dir = tmp.str();
    c.run_id = "deep";
    c.backends = {"timers", "stats", "trace", "pythontimeline"};
    {
        ringprof::Session session(c);
        recurse(depth);
    }
    const std::string timers = tmp.str() + "/deep_timers.json";
    const ringprof::TimerTree tree = ringprof::load_timers_json(timers);
    int levels = 0;
    for (const ringprof::TimerNode* n = &tree.root; !n->children.empty(); n = &n->children[0]) ++levels;
    EXPECT_EQ(levels, static_cast<int>(ringprof::kMaxTreeDepth));
    const std::string* folded = tree.find_metadata("folded_deep_nodes");
    ASSERT_NE(folded, nullptr);
    EXPECT_EQ(*folded, std::to_string(depth - static_cast<int>(ringprof::kMaxTreeDepth)));

    const std::string err = tmp.str() + "/err.txt";
    std::string trace;
    for (const auto& e : fs::recursive_directory_iterator(tmp.str()))
        if (e.path().string().size() > 12 && e.path().string().find("_trace.json.gz") != std::string::npos)
            trace = e.path().string();
    ASSERT_FALSE(trace.empty()) << "no Chrome trace written";
    const std::vector<std::vector<std::string>> cases = {
        {RINGPROF_TOOL, "merge-timers", timers, "-o", tmp.str() + "/merged_timers.json"},
        {RINGPROF_TOOL, "merge-timers", "--graft", "a/b/c", timers, "-o", tmp.str() + "/grafted_timers.json"},
        {RINGPROF_TOOL, "flame", timers, "-o", tmp.str() + "/from_timers.html"},
        {RINGPROF_TOOL, "flame", trace, "-o", tmp.str() + "/from_trace.svg", "--format", "svg"},
        {RINGPROF_TOOL, "stats", tmp.str() + "/deep_stats.json"},
        {RINGPROF_TOOL, "merge", tmp.str(), "-o", tmp.str() + "/merged"},
    };
    for (const auto& args : cases) {
        SCOPED_TRACE(args[1] + " " + args[2]);
        const ToolRun r = run_tool(args, err, false);
        EXPECT_FALSE(r.timed_out);
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    // Read back again: the merged and the grafted trees are files ringprof wrote, too.
    for (const char* name : {"/merged_timers.json", "/grafted_timers.json"}) {
        SCOPED_TRACE(name);
        const ringprof::TimerTree back = ringprof::load_timers_json(tmp.str() + name);
        int back_levels = 0;
        for (const ringprof::TimerNode* n = &back.root; !n->children.empty(); n = &n->children[0]) ++back_levels;
        EXPECT_EQ(back_levels, static_cast<int>(ringprof::kMaxTreeDepth));
    }
}

}  // namespace
