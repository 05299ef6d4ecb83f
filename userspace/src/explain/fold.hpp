#pragma once
// The fold of matches (match.cpp): a match seen before (same key) is counted
// on the first one, found by hash; per signature the first and the last
// `keep` distinct matches are kept whole, the ones between only counted, so
// memory and time stay linear in the log however many distinct faults it
// holds.  Keys are remembered as 64-bit hashes, at most kMaxKeys of them
// (about 15 MB): after that a new distinct match is still counted, but its
// repeats are not recognised (Matches::unfolded says how many).  Pure.
#include "explain/model.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace rdnafix::explain::detail {

constexpr std::size_t kMaxKeys = 250000; // keeps a hostile log of distinct faults under 64 MiB

class Fold {
public:
	Fold(std::size_t keep, std::size_t signatures); // signatures: the entries of the base
	Fold(const Fold &) = delete;
	Fold &operator=(const Fold &) = delete;
	// True (and counted) when a match with this key was added before.
	bool repeat(const std::string &key);
	// A new distinct match; key "" for one that is never folded into.
	void add(const std::string &key, Match m);
	// The match of signature `sig` added last (kept whole); nullptr when none.
	Match *last_of(Sig sig);
	// The kept matches in the order they were added, and the omitted counts.
	Matches take();

private:
	struct Entry;
	struct Slot {
		Entry *entry = nullptr; // nullptr: omitted
		Sig sig{};
	};
	struct Entry {
		std::size_t seq = 0;
		Match match;
		Slot *slot = nullptr;
	};
	struct PerSig {
		std::vector<Entry> first; // never more than keep (no reallocation: pointers stay valid)
		std::deque<Entry> last;   // the latest `keep` after those
		std::size_t omitted = 0, omitted_occurrences = 0;
		const knowledge::Entry *entry = nullptr;
	};
	std::size_t keep_, seq_ = 0;
	std::vector<PerSig> sigs_;
	std::unordered_map<std::uint64_t, Slot> keys_;
	std::size_t unfolded_ = 0;
};

} // namespace rdnafix::explain::detail
