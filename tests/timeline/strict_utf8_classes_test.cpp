// Every class of ill-formed UTF-8 (RFC 3629) at the start, middle and end of a scope name, through
// every writer: each output must decode strictly. Checked twice, by a validator written here
// from the RFC's table (independent of the project's own) and by Python's strict decoder, and
// every name must still be there (repaired, not dropped).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

struct IllFormed {
    const char* what;
    std::string bytes;
};

const std::vector<IllFormed>& ill_formed_classes() {
    static const std::vector<IllFormed> classes = {
        {"overlong 2-byte /", std::string("\xC0\xAF")},
        {"overlong 2-byte C1", std::string("\xC1\xBF")},
        {"overlong 3-byte /", std::string("\xE0\x80\xAF")},
        {"overlong 3-byte U+07FF", std::string("\xE0\x9F\xBF")},
        {"overlong 4-byte /", std::string("\xF0\x80\x80\xAF")},
        {"overlong 4-byte U+FFFF", std::string("\xF0\x8F\xBF\xBF")},
        {"surrogate U+D800", std::string("\xED\xA0\x80")},
        {"surrogate U+DBFF", std::string("\xED\xAF\xBF")},
        {"surrogate U+DC00", std::string("\xED\xB0\x80")},
        {"surrogate U+DFFF", std::string("\xED\xBF\xBF")},
        {"above U+10FFFF (F4 90)", std::string("\xF4\x90\x80\x80")},
        {"above U+10FFFF (F4 BF)", std::string("\xF4\xBF\xBF\xBF")},
        {"lead F5", std::string("\xF5\x80\x80\x80")},
        {"lead F7", std::string("\xF7\xBF\xBF\xBF")},
        {"lead F8 (5 bytes)", std::string("\xF8\x88\x80\x80\x80")},
        {"lead FC (6 bytes)", std::string("\xFC\x84\x80\x80\x80\x80")},
        {"lead FE", std::string("\xFE")},
        {"lead FF", std::string("\xFF")},
        {"truncated 2-byte", std::string("\xC3")},
        {"truncated 3-byte", std::string("\xE2\x82")},
        {"truncated 4-byte", std::string("\xF0\x9F\x98")},
        {"truncated then ASCII", std::string("\xF0\x9F"
                                             "A")},
        {"continuation 80", std::string("\x80")},
        {"continuation BF", std::string("\xBF")},
        {"continuations after valid", std::string("\xC3\xA9\x80\x80")},
    };
    return classes;
}

// RFC 3629's well-formed sequences, nothing else: the offset of the first ill-formed byte, or
// npos. Deliberately written apart from the project's own rule.
std::size_t first_ill_formed(const std::string& s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    const auto in = [&](std::size_t k, unsigned lo, unsigned hi) { return k < n && p[k] >= lo && p[k] <= hi; };
    for (std::size_t i = 0; i < n;) {
        const unsigned c = p[i];
        std::size_t len = 0;
        if (c <= 0x7F)
            len = 1;
        else if (c >= 0xC2 && c <= 0xDF)
            len = in(i + 1, 0x80, 0xBF) ? 2 : 0;
        else if (c == 0xE0)
            len = in(i + 1, 0xA0, 0xBF) && in(i + 2, 0x80, 0xBF) ? 3 : 0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
            len = in(i + 1, 0x80, 0xBF) && in(i + 2, 0x80, 0xBF) ? 3 : 0;
        else if (c == 0xED)
            len = in(i + 1, 0x80, 0x9F) && in(i + 2, 0x80, 0xBF) ? 3 : 0;
        else if (c == 0xF0)
            len = in(i + 1, 0x90, 0xBF) && in(i + 2, 0x80, 0xBF) && in(i + 3, 0x80, 0xBF) ? 4 : 0;
        else if (c >= 0xF1 && c <= 0xF3)
            len = in(i + 1, 0x80, 0xBF) && in(i + 2, 0x80, 0xBF) && in(i + 3, 0x80, 0xBF) ? 4 : 0;
        else if (c == 0xF4)
            len = in(i + 1, 0x80, 0x8F) && in(i + 2, 0x80, 0xBF) && in(i + 3, 0x80, 0xBF) ? 4 : 0;
        if (len == 0) return i;
        i += len;
    }
    return std::string::npos;
}

// A tag of plain letters around the ill-formed bytes, so that each name can be found afterwards
// whatever the writer turned the bytes into. "q" + class + "p" + position.
std::string tag(std::size_t cls, int pos) { return "q" + std::to_string(cls) + "p" + std::to_string(pos) + "z"; }

struct Name {
    std::string text, tag;
};

std::vector<Name> hostile_names() {
    std::vector<Name> names;
    for (std::size_t c = 0; c < ill_formed_classes().size(); ++c) {
        const std::string& bad = ill_formed_classes()[c].bytes;
        names.push_back({bad + tag(c, 0), tag(c, 0)});          // at the start
        names.push_back({tag(c, 1) + bad + "mid", tag(c, 1)});  // in the middle
        names.push_back({tag(c, 2) + bad, tag(c, 2)});          // at the end
    }
    return names;
}

// Markers take literal names; these sites give each hostile name one for the session's life.
void record_hostile_scopes(const std::vector<Name>& names) {
    static std::deque<std::string> texts;
    static std::deque<Site> sites;
    for (const Name& n : names) {
        texts.push_back(n.text);
        sites.push_back(Site{texts.back().c_str(), __func__, __FILE__, static_cast<std::uint32_t>(sites.size() + 1)});
    }
    for (const Site& site : sites) {
        detail::Scope outer(&site);
        detail::Scope inner(&site);  // nested too: folded stacks and flame frames join names
        // Folded stacks leave out stacks of no whole microsecond of self time.
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(5);
        while (std::chrono::steady_clock::now() < until) {
        }
    }
}

void expect_strict_utf8(const std::string& text, const std::string& what) {
    const std::size_t at = first_ill_formed(text);
    EXPECT_EQ(at, std::string::npos) << what << ": ill-formed UTF-8 at byte " << at << ": "
                                     << ::testing::PrintToString(
                                            text.substr(at == std::string::npos ? 0 : (at < 20 ? 0 : at - 20), 40));
}

void expect_every_tag(const std::string& text, const std::vector<Name>& names, const std::string& what) {
    for (const Name& n : names)
        EXPECT_NE(text.find(n.tag), std::string::npos) << what << " lost the name tagged " << n.tag;
}

TEST(StrictUtf8, EveryIllFormedClassAtEveryPositionLeavesEveryWriterStrictUtf8) {
    const std::vector<Name> names = hostile_names();
    // The validator itself refuses every class at every position, and accepts the tags.
    for (const Name& n : names) EXPECT_NE(first_ill_formed(n.text), std::string::npos) << n.tag;
    EXPECT_EQ(first_ill_formed("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xED\x9F\xBF"), std::string::npos);

    TempDir dir;
    {
        Session session(timeline_config(dir.str(), {}));  // every built-in output
        record_hostile_scopes(names);
    }
    const auto p = dir.path();
    std::vector<std::pair<std::filesystem::path, std::string>> outputs;  // file, its decoded text
    for (const char* f :
         {"t_timers.json", "t_stats.json", "t_stats.txt", "t_flame.html", "t_flame.svg", "t_folded.txt"}) {
        outputs.emplace_back(p / f, read_text(p / f));
    }
    outputs.emplace_back(p / "t_trace.json.gz", gunzip(read_text(p / "t_trace.json.gz")));
    for (const auto& f : pevents_files(p)) outputs.emplace_back(f, read_text(f));

#ifdef RINGPROF_TOOL
    // The saved profile in Python's pstats form, and the merged timeline of the pythontimeline files.
    const auto pstats = p / "t.pstats";
    const auto merged = p / "merged";
    const std::string tool = RINGPROF_TOOL;
    // EXPECT, not ASSERT: a refused input must not hide what the other outputs hold.
    EXPECT_EQ(std::system(("timeout 60 '" + tool + "' stats '" + (p / "t_stats.json").string() + "' --pstats '" +
                           pstats.string() + "' >/dev/null")
                              .c_str()),
              0);
    EXPECT_EQ(
        std::system(
            ("timeout 60 '" + tool + "' merge '" + p.string() + "' -o '" + merged.string() + "' >/dev/null").c_str()),
        0);
    std::size_t merged_files = 0;
    std::error_code ignored;  // no folder: counted as no merged file
    for (const auto& e :
         std::filesystem::directory_iterator(merged, std::filesystem::directory_options::none, ignored)) {
        if (e.path().string().find("_merged_timeline.json") == std::string::npos) continue;
        outputs.emplace_back(e.path(), read_text(e.path()));
        ++merged_files;
    }
    EXPECT_EQ(merged_files, 1u);
    // marshal's strings are UTF-8 too: Python refuses to load the file otherwise.
    const std::string load =
        "timeout 60 python3 -c \"import pstats, sys\n"
        "s = pstats.Stats(sys.argv[1])\n"
        "names = ' '.join(k[2] for k in s.stats)\n"
        "missing = [t for t in sys.argv[2:] if t not in names]\n"
        "sys.exit(1 if missing else 0)\" '" +
        pstats.string() + "'";
    std::string with_tags = load;
    for (const Name& n : names) with_tags += " " + n.tag;
    EXPECT_EQ(std::system(with_tags.c_str()), 0) << "pstats could not load the saved profile, or lost a name";
#endif

    ASSERT_FALSE(outputs.empty());
    std::string python =
        "timeout 60 python3 -c \"import sys\n"
        "for f in sys.argv[1:]:\n"
        "    data = open(f, 'rb').read()\n"
        "    if f.endswith('.gz'):\n"
        "        import gzip; data = gzip.decompress(data)\n"
        "    data.decode('utf-8', 'strict')\"";
    for (const auto& [file, text] : outputs) {
        SCOPED_TRACE(file.string());
        EXPECT_FALSE(text.empty());
        expect_strict_utf8(text, file.filename().string());
        python += " '" + file.string() + "'";
        // Names are all there (the SVG shortens names to fit their frames, so it is left out).
        if (file.extension() != ".svg") expect_every_tag(text, names, file.filename().string());
    }
    EXPECT_EQ(std::system(python.c_str()), 0) << "Python's strict decoder refused an output";
}

}  // namespace
}  // namespace ringprof
