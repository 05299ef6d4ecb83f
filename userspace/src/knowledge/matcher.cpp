// The knowledge base compiled for matching: prefilter, RE2::Set, captures.
// Pure.
#include "knowledge/matcher.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace rdnafix::knowledge {

namespace {

constexpr int kMinAtom = 4;
constexpr int64_t kMaxMem = 32 << 20; // per compiled RE2 object (RE2's default is 8 MiB)

RE2::Options options()
{
	RE2::Options o;
	o.set_log_errors(false);
	o.set_max_mem(kMaxMem);
	return o;
}

} // namespace

std::vector<std::string> required_literals(const std::string &pattern, std::string *error)
{
	re2::FilteredRE2 f(kMinAtom);
	int id = 0;
	if (const auto code = f.Add(pattern, options(), &id); code != RE2::NoError) {
		const RE2 re(pattern, options());
		*error = re.error().empty() ? fmt::format("RE2 error {}", int(code)) : re.error();
		return {};
	}
	std::vector<std::string> atoms;
	f.Compile(&atoms);
	std::vector<int> potentials;
	f.AllPotentials({}, &potentials); // with no literal present: the patterns that pass anyway
	if (!potentials.empty())
		return {};
	return atoms;
}

struct Matcher::Impl {
	struct Pat {
		std::size_t entry = 0;
		std::unique_ptr<RE2> re;
	};
	std::unique_ptr<RE2> prefilter;
	std::unique_ptr<RE2::Set> set;
	std::vector<Pat> pats;                                  // index = the Set's index
	std::vector<std::vector<std::unique_ptr<RE2>>> follow;  // per entry
	std::vector<std::vector<std::unique_ptr<RE2>>> exclude; // per entry
};

Matcher::Matcher(const Base &base, std::vector<std::string> extra_literals) : base_(base), impl_(new Impl)
{
	std::set<std::string> literals(extra_literals.begin(), extra_literals.end());
	impl_->set = std::make_unique<RE2::Set>(options(), RE2::UNANCHORED);
	impl_->follow.resize(base.entries.size());
	impl_->exclude.resize(base.entries.size());
	const auto problem = [&](const Entry &e, const std::string &what) {
		problems_.push_back({e.origin.file, e.origin.line, fmt::format("{}: {}", e.id, what)});
	};
	for (std::size_t i = 0; i < base.entries.size(); ++i) {
		const Entry &e = base.entries[i];
		for (const auto &p : e.patterns) {
			std::string err;
			auto lits = required_literals(p, &err);
			if (!err.empty() || lits.empty()) {
				problem(e, err.empty() ? "pattern without a required literal: " + p : err);
				continue;
			}
			auto re = std::make_unique<RE2>(p, options());
			std::string set_err;
			if (!re->ok() || impl_->set->Add(p, &set_err) < 0) {
				problem(e, re->ok() ? set_err : re->error());
				continue;
			}
			literals.insert(lits.begin(), lits.end());
			impl_->pats.push_back({i, std::move(re)});
		}
		for (const auto &p : e.exclude)
			if (auto re = std::make_unique<RE2>(p, options()); re->ok())
				impl_->exclude[i].push_back(std::move(re));
		for (const auto &p : e.follow) {
			std::string err;
			auto lits = required_literals(p, &err);
			auto re = std::make_unique<RE2>(p, options());
			if (!re->ok() || lits.empty()) {
				problem(e, re->ok() ? "follow pattern without a required literal: " + p : re->error());
				continue;
			}
			literals.insert(lits.begin(), lits.end());
			impl_->follow[i].push_back(std::move(re));
		}
	}
	impl_->set->Compile();
	std::string alt = "(?i)(?:";
	bool first = true;
	for (const auto &l : literals) {
		alt += (first ? "" : "|") + RE2::QuoteMeta(l);
		first = false;
	}
	alt += ")";
	if (!literals.empty())
		impl_->prefilter = std::make_unique<RE2>(alt, options());
}

Matcher::~Matcher() = default;

bool Matcher::candidate(std::string_view line) const
{
	return impl_->prefilter && impl_->prefilter->ok() &&
	       RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *impl_->prefilter);
}

namespace {

Captured captures_of(const RE2 &re, std::string_view line)
{
	Captured out;
	const int n = re.NumberOfCapturingGroups();
	std::vector<re2::StringPiece> groups(std::size_t(n) + 1);
	if (!re.Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED, groups.data(),
		      n + 1))
		return out;
	for (const auto &[name, index] : re.NamedCapturingGroups())
		if (index > 0 && index <= n && groups[std::size_t(index)].data())
			out.emplace_back(name, std::string(groups[std::size_t(index)]));
	return out;
}

} // namespace

std::vector<Hit> Matcher::match(std::string_view line) const
{
	std::vector<Hit> out;
	std::vector<int> which;
	if (!impl_->set->Match(re2::StringPiece(line.data(), line.size()), &which) || which.empty())
		return out;
	std::sort(which.begin(), which.end());
	const auto excluded = [&](std::size_t entry) {
		for (const auto &re : impl_->exclude[entry])
			if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re))
				return true;
		return false;
	};
	for (int w : which) {
		const auto &p = impl_->pats.at(std::size_t(w));
		if (std::any_of(out.begin(), out.end(), [&](const Hit &h) { return h.entry == p.entry; }) ||
		    excluded(p.entry))
			continue;
		out.push_back(Hit{p.entry, captures_of(*p.re, line)}); // patterns are in entry order: so are the hits
	}
	return out;
}

bool Matcher::follows(std::size_t entry, std::string_view line, Captured *out) const
{
	if (entry >= impl_->follow.size())
		return false;
	for (const auto &re : impl_->follow[entry]) {
		if (!RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re))
			continue;
		auto c = captures_of(*re, line);
		out->insert(out->end(), c.begin(), c.end());
		return true;
	}
	return false;
}

} // namespace rdnafix::knowledge
