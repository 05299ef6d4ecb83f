// Per-target kernel files named by target: Tensile library directories and
// MIOpen databases (libdirs.hpp).
#include "software/libdirs.hpp"

#include "core/gpudb.hpp"
#include "io/rootfs.hpp"

#include <algorithm>

namespace rdnafix::coverage {

namespace {

using core::codeobj::Feature;
using core::codeobj::TargetId;

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool is_sep(char c)
{
	return c == '_' || c == '-' || c == '.' || c == ':' || c == '/';
}

// The generic processor spelled at `s` ("gfx10-3-generic", "gfx11-generic"),
// its length, 0 when none.
std::size_t generic_at(std::string_view s)
{
	std::size_t i = 3;
	auto digits = [&] {
		std::size_t b = i;
		while (i < s.size() && i - b < 3 && is_digit(s[i]))
			++i;
		return i > b;
	};
	if (!digits())
		return 0;
	if (i < s.size() && s[i] == '-') {
		std::size_t save = i++;
		if (!digits())
			i = save;
	}
	constexpr std::string_view tail = "-generic";
	if (s.substr(i, tail.size()) != tail)
		return 0;
	return i + tail.size();
}

// Feature items after the processor: [-:](xnack|sramecc)[+-], at most two.
std::size_t features_at(std::string_view s, std::size_t i, TargetId &t)
{
	for (int n = 0; n < 2 && i < s.size(); ++n) {
		if (s[i] != '-' && s[i] != ':')
			break;
		std::string_view rest = s.substr(i + 1);
		Feature *f = nullptr;
		std::size_t len = 0;
		if (rest.starts_with("xnack")) {
			f = &t.xnack;
			len = 5;
		} else if (rest.starts_with("sramecc")) {
			f = &t.sramecc;
			len = 7;
		}
		if (!f || rest.size() <= len || (rest[len] != '+' && rest[len] != '-') || *f != Feature::any)
			break;
		*f = rest[len] == '+' ? Feature::on : Feature::off;
		i += 1 + len + 1;
	}
	return i;
}

std::optional<TargetId> target_at(std::string_view s)
{
	TargetId t;
	if (std::size_t g = generic_at(s)) {
		t.processor = std::string(s.substr(0, g));
		features_at(s, g, t);
		return t;
	}
	// gfx + 4 characters for majors 10..19, else 3 (gfx900, gfx90a, gfx942).
	std::size_t len = s.size() > 3 && s[3] == '1' ? 7 : 6;
	if (s.size() < len)
		return std::nullopt;
	std::string_view proc = s.substr(0, len);
	if (!gpudb::parse_gfx_name(proc))
		return std::nullopt;
	// Lower-case hex digits only, as every tool writes them.
	if (std::any_of(proc.begin(), proc.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
		return std::nullopt;
	t.processor = std::string(proc);
	features_at(s, len, t);
	return t;
}

} // namespace

std::string spelled(const TargetId &t)
{
	std::string s = t.processor;
	if (t.sramecc != Feature::any)
		s += t.sramecc == Feature::on ? ":sramecc+" : ":sramecc-";
	if (t.xnack != Feature::any)
		s += t.xnack == Feature::on ? ":xnack+" : ":xnack-";
	return s;
}

namespace {

// gfx1030 -> 100300; gfx10-3-generic -> 100399; gfx11-generic -> 119999.
unsigned order_key(const std::string &p)
{
	if (auto g = gpudb::parse_gfx_name(p))
		return g->kfd_version();
	unsigned major = 0, minor = 99;
	std::size_t i = 3;
	while (i < p.size() && is_digit(p[i]) && major < 1000)
		major = major * 10 + unsigned(p[i++] - '0');
	if (i + 1 < p.size() && p[i] == '-' && is_digit(p[i + 1]))
		minor = unsigned(p[i + 1] - '0');
	return major * 10000 + minor * 100 + 99;
}

} // namespace

bool target_less(const TargetId &a, const TargetId &b)
{
	unsigned ka = order_key(a.processor), kb = order_key(b.processor);
	if (ka != kb)
		return ka < kb;
	return a < b;
}

std::optional<TargetId> target_in_file_name(std::string_view name)
{
	if (name.size() > 255) // NAME_MAX: no real file name is longer
		return std::nullopt;
	for (std::size_t pos = name.find("gfx"); pos != std::string_view::npos; pos = name.find("gfx", pos + 1)) {
		if (pos > 0 && !is_sep(name[pos - 1]))
			continue;
		if (auto t = target_at(name.substr(pos)))
			return t;
	}
	return std::nullopt;
}

NamedTargets targets_in_names(const std::vector<std::string> &names)
{
	NamedTargets out;
	for (const auto &n : names) {
		++out.files;
		if (auto t = target_in_file_name(n)) {
			++out.files_with_target;
			if (std::find(out.targets.begin(), out.targets.end(), *t) == out.targets.end())
				out.targets.push_back(*t);
		}
	}
	std::sort(out.targets.begin(), out.targets.end(), target_less);
	return out;
}

namespace {

std::optional<Library> read_named_dir(io::RootFs &fs, const std::string &rel, std::string name, LibraryKind kind)
{
	auto names = fs.list_dir(rel);
	if (!names) {
		if (names.error().kind == io::FsErrorKind::not_found)
			return std::nullopt;
		Library l{std::move(name), rel, kind, {}, std::nullopt, {names.error().reason()}};
		return l;
	}
	auto found = targets_in_names(*names);
	Library l{std::move(name), rel, kind, std::move(found.targets), std::nullopt, {}};
	return l;
}

} // namespace

std::optional<Library> read_tensile_dir(io::RootFs &fs, const std::string &rel, std::string name)
{
	return read_named_dir(fs, rel, std::move(name), LibraryKind::tensile_files);
}

std::optional<Library> read_miopen_dir(io::RootFs &fs, const std::string &rel)
{
	return read_named_dir(fs, rel, "MIOpen database", LibraryKind::miopen_db);
}

} // namespace rdnafix::coverage
