// The files of a report, anonymized, and its MANIFEST.  Pure.
#include "report/assemble.hpp"

#include "core/anonymize.hpp"
#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::report {

namespace {

using core::PersonalKind;

// The files whose value is a serial number (sysfs, DMI).
bool is_serial_file(const std::string &path)
{
	for (const char *n : {"/unique_id", "/serial_number", "/product_serial", "/board_serial", "/serial"})
		if (path.ends_with(n))
			return true;
	return false;
}

// Binary files that hold nothing personal (a gzip'd kernel configuration).
bool is_safe_binary(const std::string &path)
{
	return path == "proc/config.gz";
}

// etc/passwd with its comment field (the full names) emptied.
std::string without_gecos(const std::string &text)
{
	std::string out;
	for (const auto &line : core::detail::split_lines(text)) {
		std::vector<std::string> f;
		std::size_t pos = 0;
		while (true) {
			const auto c = line.find(':', pos);
			f.emplace_back(line.substr(pos, c == std::string_view::npos ? line.npos : c - pos));
			if (c == std::string_view::npos)
				break;
			pos = c + 1;
		}
		if (f.size() == 7)
			f[4].clear();
		std::string l;
		for (std::size_t i = 0; i < f.size(); ++i)
			l += (i ? ":" : "") + f[i];
		out += l + "\n";
	}
	return out;
}

struct Listed {
	std::string path;
	std::size_t size = 0;
	std::string what;
};

} // namespace

std::vector<io::ArchiveEntry> assemble(const Parts &p)
{
	core::Anonymizer anon;
	if (p.anonymize) {
		for (const auto &[name, home] : p.users)
			anon.add_user(name, home);
		for (const auto &h : p.hosts)
			anon.add_host(h);
		for (const auto &[path, e] : p.tree.entries)
			if (e.kind == machine::CapturedEntry::Kind::file && is_serial_file(path))
				anon.add_serial(std::string(core::trim(e.data)));
	}
	std::map<PersonalKind, std::size_t> hits;
	auto clean = [&](const std::string &s) { return p.anonymize ? anon.apply(s, &hits) : s; };

	std::vector<io::ArchiveEntry> files;
	std::vector<Listed> listed;
	std::vector<std::string> left_out;
	const std::string top = kTop;
	auto add_file = [&](const std::string &name, const std::string &data, const std::string &what) {
		files.push_back({top + "/" + name, io::ArchiveEntry::Kind::file, data});
		listed.push_back({name, data.size(), what});
	};
	add_file("status.json", clean(p.status_json), "rdnactl status --json of this machine");
	add_file("versions.txt", clean(p.versions), "kernel, amdgpu DRM, firmware, ROCm, PyTorch, libraries");
	add_file("env", clean(p.env), "the environment audited (" + clean(p.env_source) + ")");
	add_file("args", clean(p.args),
		 "the arguments of the replay (rdnactl status --root root --env env $(cat args))");
	std::size_t tree_files = 0, tree_links = 0;
	for (const auto &[path, e] : p.tree.entries) {
		const std::string name = "root/" + clean(path);
		if (e.kind == machine::CapturedEntry::Kind::directory) {
			files.push_back({top + "/" + name, io::ArchiveEntry::Kind::directory, ""});
			continue;
		}
		if (e.kind == machine::CapturedEntry::Kind::symlink) {
			files.push_back({top + "/" + name, io::ArchiveEntry::Kind::symlink, clean(e.data)});
			++tree_links;
			continue;
		}
		std::string data = e.data;
		// A binary file (SQLite, gzip) cannot be edited in place: kept when it
		// holds none of the personal values, else left out.
		const bool binary = data.find('\0') != std::string::npos;
		if (p.anonymize && binary && !is_safe_binary(path) && anon.apply(data) != data) {
			left_out.push_back(path + " (binary, names a person: --no-anonymize keeps it)");
			continue;
		}
		if (p.anonymize && path == "etc/passwd")
			data = without_gecos(data);
		files.push_back({top + "/" + name, io::ArchiveEntry::Kind::file, binary ? data : clean(data)});
		++tree_files;
	}

	std::string m =
		fmt::format("rdnafix report, made by rdnactl report at {}\n"
			    "machine: {}\n\n"
			    "Replay: tar xzf <archive>; cd {}; rdnactl status --root root --env env $(cat args)\n"
			    "(status.json equals its --json output apart from \"root\", \"environment.source\" "
			    "and, on a live machine, what only the live readers see: docs/rdnactl.md, REPORT)\n\n",
			    p.created, p.root == "/" ? "this machine (/)" : "captured tree " + clean(p.root), top);
	m += "Files:\n";
	for (const auto &l : listed)
		m += fmt::format("  {:<14} {:>9} bytes  {}\n", l.path, l.size, l.what);
	m += fmt::format("  {:<14} {:>9} files  the machine's state in the --root format ({} symlinks; "
			 "device nodes in root/dev/.devnodes)\n",
			 "root/", tree_files, tree_links);
	for (const auto &[path, e] : p.tree.entries)
		if (e.kind == machine::CapturedEntry::Kind::file && path == "var/log/rdnafix-dmesg")
			m += "  root/var/log/rdnafix-dmesg: the kernel log's amdgpu lines of this boot\n";
	m += "\nAnonymized:";
	if (!p.anonymize) {
		m += " no (--no-anonymize): user names, host names, home paths and serial numbers are as found\n";
	} else {
		m += "\n";
		for (PersonalKind k :
		     {PersonalKind::user, PersonalKind::home, PersonalKind::host, PersonalKind::serial}) {
			const auto names = anon.pseudonyms(k);
			m += fmt::format("  {}: {} replaced by {} ({} occurrences)\n", to_string(k), names.size(),
					 names.empty() ? std::string("-") : fmt::format("{}", fmt::join(names, ", ")),
					 hits[k]);
		}
		m += "  etc/passwd: the comment field (full names) emptied\n";
	}
	if (!left_out.empty()) {
		m += "\nLeft out:\n";
		for (const auto &l : left_out)
			m += "  " + l + "\n";
	}
	if (!p.tree.skipped.empty()) {
		m += "\nPresent but unreadable (run as root to include them):\n";
		for (const auto &s : p.tree.skipped)
			m += "  " + clean(s) + "\n";
	}
	m += "\nEvery file:\n";
	for (const auto &f : files)
		m += "  " + f.path.substr(top.size() + 1) +
		     (f.kind == io::ArchiveEntry::Kind::symlink     ? " -> " + f.data
		      : f.kind == io::ArchiveEntry::Kind::directory ? "/"
								    : fmt::format(" ({} bytes)", f.data.size())) +
		     "\n";
	std::vector<io::ArchiveEntry> out;
	out.reserve(files.size() + 2);
	out.push_back({top, io::ArchiveEntry::Kind::directory, ""});
	out.push_back({top + "/MANIFEST", io::ArchiveEntry::Kind::file, m});
	for (auto &f : files)
		out.push_back(std::move(f));
	return out;
}

} // namespace rdnafix::report
