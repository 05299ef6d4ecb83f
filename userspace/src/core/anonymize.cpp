// core::Anonymizer: see anonymize.hpp.
#include "core/anonymize.hpp"

#include <algorithm>

namespace rdnafix::core {

namespace {

bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool path_char(char c)
{
	return word_char(c) || c == '.' || c == '-';
}

// Whether the hit text[at, at+len) may be replaced for a value of `kind`.
bool at_boundary(std::string_view text, std::size_t at, std::size_t len, PersonalKind kind)
{
	const char before = at == 0 ? ' ' : text[at - 1];
	const char after = at + len >= text.size() ? ' ' : text[at + len];
	switch (kind) {
	case PersonalKind::user:
	case PersonalKind::host:
		return !word_char(before) && !word_char(after);
	case PersonalKind::home:
		return !path_char(after);
	case PersonalKind::serial:
		return true;
	}
	return true;
}

} // namespace

std::string_view to_string(PersonalKind kind)
{
	switch (kind) {
	case PersonalKind::user:
		return "user names";
	case PersonalKind::home:
		return "home directories";
	case PersonalKind::host:
		return "host names";
	case PersonalKind::serial:
		return "serial numbers";
	}
	return "values";
}

std::string Anonymizer::next(std::string_view prefix, PersonalKind kind) const
{
	return std::string(prefix) + std::to_string(count(kind) + 1);
}

void Anonymizer::add(PersonalKind kind, std::string from, std::string to)
{
	if (from.size() < 2 || from == "root")
		return;
	for (const auto &r : rules_)
		if (r.from == from && r.kind == kind)
			return;
	rules_.push_back({std::move(from), std::move(to), kind});
	// Longest first: "/home/alice" before "alice", "alice-dev" before "alice".
	std::stable_sort(rules_.begin(), rules_.end(),
			 [](const Rule &a, const Rule &b) { return a.from.size() > b.from.size(); });
}

void Anonymizer::add_user(std::string_view name, std::string_view home)
{
	std::string to;
	for (const auto &r : rules_)
		if (r.kind == PersonalKind::user && r.from == name)
			to = r.to;
	if (to.empty() && name.size() >= 2 && name != "root") {
		to = next("user", PersonalKind::user);
		add(PersonalKind::user, std::string(name), to);
	}
	// A home at "/" or a system directory says nothing about the person.
	if (!to.empty() && home.size() > 1 && home != "/root" && home != "/nonexistent" && home.find(name) != home.npos)
		add(PersonalKind::home, std::string(home), "/home/" + to);
}

void Anonymizer::add_host(std::string_view name)
{
	if (name == "localhost" || name == "(none)")
		return;
	for (const auto &r : rules_)
		if (r.kind == PersonalKind::host && r.from == name)
			return;
	add(PersonalKind::host, std::string(name), next("host", PersonalKind::host));
}

void Anonymizer::add_serial(std::string_view value)
{
	for (const auto &r : rules_)
		if (r.kind == PersonalKind::serial && r.from == value)
			return;
	if (value.size() >= 4) // shorter "serials" (0, 00) are no identity
		add(PersonalKind::serial, std::string(value), next("serial", PersonalKind::serial));
}

std::string Anonymizer::apply(std::string_view text, std::map<PersonalKind, std::size_t> *hits) const
{
	std::string out(text);
	for (const auto &r : rules_) {
		std::string next;
		std::size_t pos = 0;
		bool changed = false;
		while (true) {
			const std::size_t at = out.find(r.from, pos);
			if (at == std::string::npos)
				break;
			if (at_boundary(out, at, r.from.size(), r.kind)) {
				next.append(out, pos, at - pos);
				next += r.to;
				changed = true;
				if (hits)
					++(*hits)[r.kind];
			} else {
				next.append(out, pos, at - pos + r.from.size());
			}
			pos = at + r.from.size();
		}
		if (changed) {
			next.append(out, pos, std::string::npos);
			out = std::move(next);
		}
	}
	return out;
}

std::size_t Anonymizer::count(PersonalKind kind) const
{
	return static_cast<std::size_t>(
		std::count_if(rules_.begin(), rules_.end(), [kind](const Rule &r) { return r.kind == kind; }));
}

std::vector<std::string> Anonymizer::pseudonyms(PersonalKind kind) const
{
	std::vector<std::string> v;
	for (const auto &r : rules_)
		if (r.kind == kind)
			v.push_back(r.to);
	std::sort(v.begin(), v.end());
	return v;
}

} // namespace rdnafix::core
