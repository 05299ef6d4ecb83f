#pragma once
// The captures of a match decoded with the base's tables (docs/knowledge.md,
// "Decoders").  Pure.
#include "knowledge/matcher.hpp"
#include "knowledge/model.hpp"

#include <string>
#include <utility>
#include <vector>

namespace rdnafix::knowledge {

struct Fact {
	Fact(std::string n, std::string v, std::string t, std::string s = {})
	    : name(std::move(n)), value(std::move(v)), text(std::move(t)), shown(std::move(s))
	{
	}
	std::string name;  // the capture's name
	std::string value; // canonical: bytes as an integer, codes as names, gfx lists comma-separated
	std::string text;  // for people: "hipErrorNoDevice (100): no ROCm-capable device is detected"
	std::string shown; // what a {placeholder} becomes: the value, or a size as the log printed it ("3.31 GiB")
};

// Every capture of `entry` in `captured` (several of one name: a list, or
// the first for single values), decoded; a capture that does not decode
// (a number out of range, a code no table knows) keeps its text and says so.
std::vector<Fact> decode(const Entry &entry, const Tables &tables, const Captured &captured);

// "15.98 GiB" -> 17158..., nullopt when not a size.
std::optional<unsigned long long> parse_bytes(std::string_view s);
// "4.5 GiB" for a byte count.
std::string format_bytes(unsigned long long b);

// "{name}" in `text` replaced by the decoded value ("(not printed)" when the
// log did not carry that capture).
std::string substitute(std::string_view text, const std::vector<Fact> &facts);

} // namespace rdnafix::knowledge
