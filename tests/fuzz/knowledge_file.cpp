// Fuzz target: one knowledge file (docs/knowledge.md) through the parser
// (knowledge/parse.cpp, toml++) and, with the entries it accepts, the
// matcher (knowledge/matcher.cpp, RE2) and the decoders (decode.cpp): an
// overlay in /etc/rdnafix/knowledge.d is read by every `rdnactl explain`,
// and --check-knowledge reads any file.  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "fuzz.hpp"
#include "knowledge/decode.hpp"
#include "knowledge/matcher.hpp"
#include "knowledge/model.hpp"

#include <string>
#include <string_view>
#include <vector>

using namespace rdnafix;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const std::string name = "fuzz.toml";
	knowledge::Base base;
	std::vector<knowledge::Problem> problems;
	knowledge::parse({{name, std::string(fuzz::text(data, size))}}, &base, &problems);
	for (const auto &p : problems) {
		fuzz::check(p.file == name, "a problem names the file it is in");
		fuzz::check(!p.what.empty(), "a problem says what is wrong");
		(void)knowledge::to_text(p);
	}
	for (const auto &e : base.entries) {
		fuzz::check(base.find(e.id) == &e, "an entry is found by its id");
		fuzz::check(!e.patterns.empty(), "an accepted entry has a pattern");
	}
	if (base.entries.empty())
		return 0;
	// It parsed: the entries it kept compile and run as rdnactl runs them.
	const knowledge::Matcher km(base, {"error", "fault"});
	fuzz::check(km.problems().empty(), "a pattern the parser accepted compiles in the matcher");
	for (std::size_t i = 0; i < base.entries.size(); ++i) {
		const auto &e = base.entries[i];
		std::string_view ex = e.example;
		while (!ex.empty()) {
			const auto nl = ex.find('\n');
			const std::string_view line = ex.substr(0, nl);
			ex = nl == std::string_view::npos ? std::string_view() : ex.substr(nl + 1);
			const auto hits = km.match(line);
			if (!hits.empty())
				fuzz::check(km.candidate(line), "the prefilter keeps every line a pattern matches");
			for (const auto &hit : hits) {
				fuzz::check(hit.entry < base.entries.size(), "a hit names an entry of the base");
				knowledge::Captured caps = hit.captures;
				(void)km.follows(hit.entry, line, &caps);
				const auto &he = base.entries[hit.entry];
				const auto facts = knowledge::decode(he, base.tables, caps);
				(void)knowledge::substitute(he.title, facts);
				(void)knowledge::substitute(he.meaning, facts);
				(void)knowledge::substitute(he.fix, facts);
				for (const auto &c : he.causes)
					(void)knowledge::substitute(c.text, facts);
			}
		}
	}
	return 0;
}
