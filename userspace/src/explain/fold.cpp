// The fold of matches: hashed keys, the first and last `keep` per signature.
#include "explain/fold.hpp"

#include <algorithm>
#include <functional>

namespace rdnafix::explain::detail {

Fold::Fold(std::size_t keep, std::size_t signatures) : keep_(std::max<std::size_t>(keep, 1)), sigs_(signatures)
{
	for (auto &p : sigs_)
		p.first.reserve(keep_);
}

bool Fold::repeat(const std::string &key)
{
	if (key.empty())
		return false;
	const auto it = keys_.find(std::hash<std::string>{}(key));
	if (it == keys_.end())
		return false;
	if (it->second.entry)
		++it->second.entry->match.count;
	else
		++sigs_[std::size_t(it->second.sig)].omitted_occurrences;
	return true;
}

void Fold::add(const std::string &key, Match m)
{
	auto &p = sigs_.at(std::size_t(m.sig));
	p.entry = m.entry;
	Slot *slot = nullptr;
	if (!key.empty() && keys_.size() < kMaxKeys)
		slot = &keys_.try_emplace(std::hash<std::string>{}(key), Slot{nullptr, m.sig}).first->second;
	else if (!key.empty())
		++unfolded_;
	Entry e{seq_++, std::move(m), slot};
	Entry *at = nullptr;
	if (p.first.size() < keep_) {
		p.first.push_back(std::move(e));
		at = &p.first.back();
	} else {
		p.last.push_back(std::move(e));
		at = &p.last.back();
		if (p.last.size() > keep_) {
			// the oldest of the latest is now between the first and the last: counted only
			Entry &old = p.last.front();
			if (old.slot)
				old.slot->entry = nullptr;
			++p.omitted;
			p.omitted_occurrences += old.match.count;
			p.last.pop_front();
		}
	}
	if (slot)
		slot->entry = at;
}

Match *Fold::last_of(Sig sig)
{
	if (sig >= sigs_.size())
		return nullptr;
	auto &p = sigs_[sig];
	if (!p.last.empty())
		return &p.last.back().match;
	return p.first.empty() ? nullptr : &p.first.back().match;
}

Matches Fold::take()
{
	Matches out;
	std::vector<Entry *> kept;
	for (std::size_t s = 0; s < sigs_.size(); ++s) {
		auto &p = sigs_[s];
		for (auto &e : p.first)
			kept.push_back(&e);
		for (auto &e : p.last)
			kept.push_back(&e);
		if (p.omitted > 0)
			out.omitted.push_back(Omitted{Sig(s), p.entry, p.omitted, p.omitted_occurrences});
	}
	std::sort(kept.begin(), kept.end(), [](const Entry *a, const Entry *b) { return a->seq < b->seq; });
	out.matches.reserve(kept.size());
	for (auto *e : kept)
		out.matches.push_back(std::move(e->match));
	out.unfolded = unfolded_;
	return out;
}

} // namespace rdnafix::explain::detail
