#pragma once
// The knowledge base compiled for matching (ripgrep's plan on RE2):
//   1. a prefilter: one case-insensitive RE2 of the literals every pattern
//      requires (RE2's FilteredRE2 computes them); a line without any of
//      them is not looked at again;
//   2. RE2::Set of every entry's patterns: which patterns match the line,
//      in one pass;
//   3. per entry that matches, the captures of its first matching pattern,
//      by that pattern's own RE2 (a line can show two entries: "HIP API
//      error = 0100 \"no ROCm-capable device is detected\"" is a HIP error
//      number and no device).
// RE2 runs in time linear in the line, whatever the pattern (no
// backtracking): a hostile log cannot make it slow.  Pure.
#include "knowledge/model.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdnafix::knowledge {

using Captured = std::vector<std::pair<std::string, std::string>>; // name, text as in the line

struct Hit {
	std::size_t entry = 0; // index in Base::entries
	Captured captures;
};

class Matcher {
public:
	// `extra_literals`: words that make a line a candidate although no
	// pattern needs them (the built-in block readers' continuation lines).
	explicit Matcher(const Base &base, std::vector<std::string> extra_literals = {});
	~Matcher();
	Matcher(const Matcher &) = delete;
	Matcher &operator=(const Matcher &) = delete;

	const Base &base() const { return base_; }
	// True when the line contains a literal that some pattern needs (or an extra one).
	bool candidate(std::string_view line) const;
	// The entries a line shows (after the prefilter), in entry order: one hit
	// per entry (its first pattern that matches); empty when none.
	std::vector<Hit> match(std::string_view line) const;
	// Whether `line` continues a block of entry `entry` (its `follow` patterns);
	// the captures are appended.
	bool follows(std::size_t entry, std::string_view line, Captured *out) const;
	// Compile problems (a pattern RE2 refused after parse accepted it: none in practice).
	const std::vector<Problem> &problems() const { return problems_; }

private:
	struct Impl;
	const Base &base_;
	std::unique_ptr<Impl> impl_;
	std::vector<Problem> problems_;
};

// The literals (lower case) that every line matching `pattern` contains,
// as RE2's FilteredRE2 computes them (atoms of at least 4 characters);
// empty when the pattern needs none (the parser refuses such a pattern).
// `error` is set when RE2 refuses the pattern.
std::vector<std::string> required_literals(const std::string &pattern, std::string *error);

} // namespace rdnafix::knowledge
