// Parsers for system identity files: kernel release and /proc/version,
// /proc/modules, etc/group, etc/passwd, libdrm's amdgpu.ids.
#include <algorithm>
#include <charconv>
#include <unordered_set>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

namespace {

// Leading decimal number of `s` (advances it); nullopt when none.
std::optional<unsigned> take_number(std::string_view &s)
{
	unsigned v = 0;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc{} || p == s.data())
		return std::nullopt;
	s.remove_prefix(static_cast<std::size_t>(p - s.data()));
	return v;
}

std::optional<unsigned> to_unsigned(std::string_view s)
{
	if (s.empty())
		return std::nullopt;
	unsigned v = 0;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc{} || p != s.data() + s.size())
		return std::nullopt;
	return v;
}

std::vector<std::string_view> split(std::string_view s, char sep)
{
	std::vector<std::string_view> out;
	std::size_t pos = 0;
	while (true) {
		std::size_t e = s.find(sep, pos);
		if (e == std::string_view::npos) {
			out.push_back(s.substr(pos));
			return out;
		}
		out.push_back(s.substr(pos, e - pos));
		pos = e + 1;
	}
}

} // namespace

Result<KernelVersion> parse_kernel_release(std::string_view release)
{
	std::string_view t = trim(release);
	std::string_view s = t;
	auto bad = [&] {
		return Error{fmt::format("kernel release '{}' is not a version (valid: like 6.12.117+deb12-amd64 or "
					 "6.14.0-27-generic)",
					 detail::shown(t))};
	};
	KernelVersion v;
	auto mj = take_number(s);
	if (!mj || s.empty() || s.front() != '.')
		return bad();
	s.remove_prefix(1);
	auto mn = take_number(s);
	if (!mn)
		return bad();
	v.major = *mj;
	v.minor = *mn;
	if (!s.empty() && s.front() == '.') {
		std::string_view save = s;
		s.remove_prefix(1);
		auto p = take_number(s);
		if (p)
			v.patch = *p;
		else
			s = save;
	}
	v.extra = std::string(s);
	return v;
}

Result<ProcVersion> parse_proc_version(std::string_view text)
{
	std::string_view t = trim(text);
	constexpr std::string_view prefix = "Linux version ";
	if (t.substr(0, prefix.size()) != prefix)
		return Error{fmt::format("/proc/version '{}' does not start with 'Linux version '", detail::shown(t))};
	std::string_view rest = t.substr(prefix.size());
	std::size_t sp = rest.find(' ');
	std::string_view rel = rest.substr(0, sp);
	auto kv = parse_kernel_release(rel);
	if (!kv)
		return kv.error();
	ProcVersion pv;
	pv.release = *kv;
	pv.release_string = std::string(rel);
	// Debian appends the package version: "... Debian 6.1.192-2 (2026-...)".
	auto words = detail::split_words(t);
	for (std::size_t i = 0; i + 1 < words.size(); ++i) {
		if (words[i] != "Debian")
			continue;
		auto up = parse_kernel_release(words[i + 1]);
		if (up && up->extra.size() > 0 && up->extra.front() == '-')
			pv.upstream = *up;
		else if (up && up->extra.empty())
			pv.upstream = *up;
	}
	if (pv.upstream)
		pv.upstream->extra.clear();
	return pv;
}

Result<std::vector<LoadedModule>> parse_proc_modules(std::string_view text)
{
	std::vector<LoadedModule> mods;
	std::string first_bad;
	for (std::string_view line : detail::split_lines(text)) {
		if (trim(line).empty())
			continue;
		auto w = detail::split_words(line);
		if (w.size() >= 5) {
			auto s = parse_u64(w[1]);
			const bool no_unload = w[2] == "-"; // CONFIG_MODULE_UNLOAD=n: count unknown
			std::optional<std::uint64_t> r;
			if (auto v = parse_u64(w[2]); !no_unload && v)
				r = *v;
			if (s && (r || no_unload)) {
				LoadedModule m;
				m.name = std::string(w[0]);
				m.size = *s;
				m.refcount = r;
				if (w[3] != "-")
					for (auto dep : split(w[3], ','))
						if (!dep.empty())
							m.used_by.emplace_back(dep);
				m.state = std::string(w[4]);
				mods.push_back(std::move(m));
				continue;
			}
		}
		if (first_bad.empty())
			first_bad = detail::shown(line);
	}
	if (mods.empty() && !first_bad.empty())
		return Error{fmt::format("/proc/modules: no valid line (expected 'name size refcount deps state "
					 "address', got '{}')",
					 first_bad)};
	return mods;
}

GroupFile parse_group_file(std::string_view text)
{
	GroupFile g;
	unsigned no = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++no;
		if (trim(line).empty() || line.front() == '#')
			continue;
		auto f = split(line, ':');
		std::optional<unsigned> gid = f.size() == 4 ? to_unsigned(f[2]) : std::nullopt;
		if (f.size() != 4 || f[0].empty() || !gid) {
			g.problems.push_back(fmt::format("line {}: expected 'name:password:gid:members', got '{}'", no,
							 detail::shown(line)));
			continue;
		}
		GroupEntry e;
		e.name = std::string(f[0]);
		e.gid = *gid;
		e.line = no;
		for (auto m : split(f[3], ','))
			if (!trim(m).empty())
				e.members.emplace_back(trim(m));
		g.groups.push_back(std::move(e));
	}
	g.index();
	return g;
}

void GroupFile::index()
{
	by_name_.clear();
	by_gid_.clear();
	by_name_.reserve(groups.size());
	by_gid_.reserve(groups.size());
	for (std::size_t i = 0; i < groups.size(); ++i) {
		by_name_.emplace(groups[i].name, i); // emplace keeps the first
		by_gid_.emplace(groups[i].gid, i);
	}
	indexed_ = groups.size();
}

std::vector<unsigned> GroupFile::member_gids(std::string_view user) const
{
	std::vector<unsigned> out;
	std::unordered_set<unsigned> seen;
	for (const auto &g : groups)
		if (std::find(g.members.begin(), g.members.end(), user) != g.members.end() && seen.insert(g.gid).second)
			out.push_back(g.gid);
	return out;
}

namespace {

// The first entry of `v` whose member `field` equals `key`, nullptr if none.
template <class T, class M, class K> const T *find_by(const std::vector<T> &v, M T::*field, const K &key)
{
	for (const auto &e : v)
		if (e.*field == key)
			return &e;
	return nullptr;
}

} // namespace

const GroupEntry *GroupFile::by_name(std::string_view name) const
{
	if (indexed_ != groups.size() || groups.empty())
		return find_by(groups, &GroupEntry::name, name);
	auto it = by_name_.find(std::string(name));
	return it == by_name_.end() ? nullptr : &groups[it->second];
}

const GroupEntry *GroupFile::by_gid(unsigned gid) const
{
	if (indexed_ != groups.size() || groups.empty())
		return find_by(groups, &GroupEntry::gid, gid);
	auto it = by_gid_.find(gid);
	return it == by_gid_.end() ? nullptr : &groups[it->second];
}

PasswdFile parse_passwd_file(std::string_view text)
{
	PasswdFile p;
	unsigned no = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++no;
		if (trim(line).empty() || line.front() == '#')
			continue;
		auto f = split(line, ':');
		std::optional<unsigned> uid = f.size() == 7 ? to_unsigned(f[2]) : std::nullopt;
		std::optional<unsigned> gid = f.size() == 7 ? to_unsigned(f[3]) : std::nullopt;
		if (f.size() != 7 || f[0].empty() || !uid || !gid) {
			p.problems.push_back(
				fmt::format("line {}: expected 'name:password:uid:gid:gecos:home:shell', got '{}'", no,
					    detail::shown(line)));
			continue;
		}
		p.users.push_back(PasswdEntry{std::string(f[0]), *uid, *gid, std::string(f[5]), std::string(f[6]), no});
	}
	return p;
}

const PasswdEntry *PasswdFile::by_name(std::string_view name) const
{
	return find_by(users, &PasswdEntry::name, name);
}

const PasswdEntry *PasswdFile::by_uid(unsigned uid) const
{
	return find_by(users, &PasswdEntry::uid, uid);
}

AmdgpuIds parse_amdgpu_ids(std::string_view text)
{
	AmdgpuIds ids;
	unsigned no = 0;
	bool first = true;
	for (std::string_view line : detail::split_lines(text)) {
		++no;
		std::string_view t = trim(line);
		if (t.empty() || t.front() == '#')
			continue;
		auto f = split(t, ',');
		if (f.size() >= 3) {
			std::string_view dev = trim(f[0]);
			std::string_view rev = trim(f[1]);
			unsigned d = 0, r = 0;
			auto [p1, e1] = std::from_chars(dev.data(), dev.data() + dev.size(), d, 16);
			auto [p2, e2] = std::from_chars(rev.data(), rev.data() + rev.size(), r, 16);
			// The name may itself contain commas: everything after the 2nd one.
			std::size_t c2 = t.find(',', t.find(',') + 1);
			std::string_view name = trim(t.substr(c2 + 1));
			if (e1 == std::errc{} && e2 == std::errc{} && p1 == dev.data() + dev.size() &&
			    p2 == rev.data() + rev.size() && dev.size() == 4 && rev.size() == 2 && !name.empty()) {
				ids.entries.push_back(AmdgpuIdsEntry{static_cast<std::uint16_t>(d),
								     static_cast<std::uint8_t>(r), std::string(name),
								     no});
				first = false;
				continue;
			}
		}
		if (first && t.find(',') == std::string_view::npos) {
			ids.version = std::string(t); // "1.0.0"
			first = false;
			continue;
		}
		first = false;
		ids.problems.push_back(fmt::format("line {}: expected 'DEVICE,\\tREVISION,\\tNAME' (hex), got '{}'", no,
						   detail::shown(t)));
	}
	return ids;
}

const AmdgpuIdsEntry *AmdgpuIds::lookup(std::uint16_t device, std::uint8_t revision) const
{
	for (const auto &e : entries)
		if (e.device == device && e.revision == revision)
			return &e;
	return nullptr;
}

} // namespace rdnafix::core
