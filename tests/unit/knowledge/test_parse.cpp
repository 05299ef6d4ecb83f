// knowledge: a knowledge file's problems at file:line, overlay replacement,
// the matcher's prefilter and set (several entries on one line, `not`).
#include "knowledge/matcher.hpp"
#include "knowledge/model.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::knowledge;
using Catch::Matchers::ContainsSubstring;

namespace {

const char *kEntry = R"([[signature]]
id = "RDNA-LOG-900"
kind = "application"
severity = "error"
title = "frobnicator {part}"
patterns = ['frobnicator (?P<part>widget|gadget) failed']
not = ['^Search for']
meaning = "The frobnicator failed on {part}."
fix = "Replace the {part}."
sources = ["https://example.org/frobnicator/issues/1"]
example = '''
frobnicator widget failed
'''
[signature.decode]
part = "text"
[[signature.cause]]
when = "always"
text = "A worn {part}."
[[signature.remedy]]
when = "apu"
kind = "set_env"
name = "FROB"
value = "1"
)";

std::vector<Problem> problems_of(const std::string &text)
{
	Base b;
	std::vector<Problem> p;
	parse({{"t.toml", text}}, &b, &p);
	return p;
}

std::string replace(std::string s, const std::string &from, const std::string &to)
{
	const auto at = s.find(from);
	REQUIRE(at != std::string::npos);
	return s.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("a valid entry parses with its captures, conditions and a conditional remedy", "[knowledge]")
{
	Base b;
	std::vector<Problem> p;
	parse({{"t.toml", kEntry}}, &b, &p);
	REQUIRE(p.empty());
	REQUIRE(b.entries.size() == 1);
	const auto &e = b.entries[0];
	REQUIRE(e.id == "RDNA-LOG-900");
	REQUIRE(e.kind == Kind::application);
	REQUIRE(e.capture("part"));
	REQUIRE(e.remedies.size() == 1);
	REQUIRE(e.remedies[0].when == Condition::apu);
	REQUIRE(e.origin.file == "t.toml");
	REQUIRE(e.origin.line == 1);
}

TEST_CASE("every kind of bad entry is named with its file and line", "[knowledge]")
{
	struct Case {
		std::string from, to, says;
		std::size_t line;
	};
	const Case cases[] = {
		{"kind = \"application\"", "kind = \"app\"", "kind `app` is not one of", 3},
		{"part = \"text\"", "part = \"hexx\"", "decoder of `part` must be one of", 15},
		{"part = \"text\"", "other = \"text\"", "decode.other: no pattern has a group", 15},
		{"patterns = ['frobnicator (?P<part>widget|gadget) failed']", "patterns = ['(?P<part>a|b)']",
		 "has no literal of 4 or more characters", 6},
		{"patterns = ['frobnicator (?P<part>widget|gadget) failed']", "patterns = ['frobnicator (?P<part>x']",
		 "RE2 refuses pattern", 6},
		{"when = \"always\"", "when = \"sometimes\"", "when `sometimes` is not one of", 17},
		{"title = \"frobnicator {part}\"", "title = \"frobnicator {nothing}\"",
		 "names {nothing}, which is no capture", 1},
		{"sources = [\"https://example.org/frobnicator/issues/1\"]", "sources = [\"docs/explain.md\"]",
		 "is a file of this repository", 10},
		{"id = \"RDNA-LOG-900\"", "id = \"LOG-900\"", "is not of the form RDNA-LOG-NNN", 2},
		{"kind = \"set_env\"", "kind = \"reboot\"", "remedy kind `reboot` is not one of", 21},
		{"severity = \"error\"", "severity = \"error\"\nfollow_lines = 100000",
		 "`follow_lines` must be an integer 1..256", 5},
		{"example = '''", "exampel = '''", "unknown field `exampel`", 11},
	};
	for (const auto &c : cases) {
		INFO(c.says);
		const auto p = problems_of(replace(kEntry, c.from, c.to));
		REQUIRE_FALSE(p.empty());
		bool found = false;
		for (const auto &x : p)
			found = found || (x.what.find(c.says) != std::string::npos && x.file == "t.toml");
		REQUIRE(found);
		bool at_line = false;
		for (const auto &x : p)
			at_line = at_line || (x.what.find(c.says) != std::string::npos && x.line == c.line);
		CAPTURE(to_text(p[0]));
		REQUIRE(at_line);
	}
	// TOML syntax: the parser's own message, at its line
	const auto p = problems_of("[[signature]]\nid = \"RDNA-LOG-900\nkind = 3\n");
	REQUIRE(p.size() == 1);
	REQUIRE(p[0].line == 2);
}

TEST_CASE("an overlay entry replaces the one of its id; a broken one leaves the old one in place", "[knowledge]")
{
	Base b;
	std::vector<Problem> p;
	parse({{"builtin.toml", kEntry}}, &b, &p);
	parse({{"/etc/rdnafix/knowledge.d/x.toml", replace(kEntry, "frobnicator {part}", "local words")}}, &b, &p);
	REQUIRE(p.empty());
	REQUIRE(b.entries.size() == 1);
	REQUIRE(b.entries[0].title == "local words");
	REQUIRE(b.entries[0].origin.file == "/etc/rdnafix/knowledge.d/x.toml");
	parse({{"/etc/rdnafix/knowledge.d/y.toml", replace(kEntry, "part = \"text\"", "part = \"nope\"")}}, &b, &p);
	REQUIRE(p.size() == 1);
	REQUIRE(b.entries[0].title == "local words");
}

TEST_CASE("the matcher: prefilter, several entries on one line, `not`, follow lines", "[knowledge]")
{
	Base b;
	std::vector<Problem> p;
	const std::string second =
		replace(replace(replace(kEntry, "RDNA-LOG-900", "RDNA-LOG-901"),
				"frobnicator (?P<part>widget|gadget) failed", "(?P<part>gadget) failed"),
			"frobnicator widget failed", "gadget failed");
	parse({{"t.toml", std::string(kEntry) + "\n" + second}}, &b, &p);
	REQUIRE(p.empty());
	const Matcher m(b, {"extra-word"});
	REQUIRE(m.problems().empty());
	REQUIRE(m.candidate("x FROBNICATOR WIDGET FAILED y"));    // case-insensitive literals
	REQUIRE_FALSE(m.candidate("frobnicator spanner failed")); // RE2 expands the alternation into its literals
	REQUIRE(m.candidate("has an extra-word in it"));
	REQUIRE_FALSE(m.candidate("usb 3-2: new high-speed USB device number 4 using xhci_hcd"));
	const auto hits = m.match("frobnicator gadget failed");
	REQUIRE(hits.size() == 2); // both entries, in entry order
	REQUIRE(b.entries[hits[0].entry].id == "RDNA-LOG-900");
	REQUIRE(hits[0].captures == Captured{{"part", "gadget"}});
	REQUIRE(b.entries[hits[1].entry].id == "RDNA-LOG-901");
	REQUIRE(m.match("Search for frobnicator widget failed").empty());
	REQUIRE(m.match("nothing here").empty());
}

TEST_CASE("required literals: what the prefilter looks for", "[knowledge]")
{
	std::string err;
	const auto lits = required_literals("HSA_STATUS_ERROR_(?P<s>[A-Z_]+)", &err);
	REQUIRE(err.empty());
	REQUIRE(lits == std::vector<std::string>{"hsa_status_error_"});
	REQUIRE(required_literals("(?P<x>.*)", &err).empty());
	required_literals("(unclosed", &err);
	REQUIRE_THAT(err, ContainsSubstring("missing )"));
}
