// run_report: capture the machine, collect what status and the software
// picture know, assemble the archive and write it atomically.  The only file
// of report/ that reads or writes (through io/ and machine/).
#include "report/run.hpp"

#include "report/assemble.hpp"

#include "machine/capture.hpp"
#include "machine/collect.hpp"
#include "software/picture.hpp"

#include "io/archive_write.hpp"
#include "io/atomic_file.hpp"
#include "io/process.hpp"
#include "io/read_kmsg.hpp"
#include "io/rootfs.hpp"

#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>

namespace rdnafix::report {

namespace {

int fail(const std::string &msg, int rc = 2)
{
	std::fprintf(stderr, "rdnactl report: %s\n", msg.c_str());
	return rc;
}

std::string utc(std::time_t t, const char *format)
{
	std::tm tm{};
	gmtime_r(&t, &tm);
	char buf[64];
	std::strftime(buf, sizeof buf, format, &tm);
	return buf;
}

// The kernel log's amdgpu lines: those that name amdgpu, KFD or the DRM core.
std::string amdgpu_lines(const std::string &log)
{
	std::string out;
	for (auto line : core::detail::split_lines(log))
		if (line.find("amdgpu") != line.npos || line.find("kfd") != line.npos ||
		    line.find("[drm]") != line.npos)
			out.append(line).push_back('\n');
	return out;
}

// A value as a POSIX shell word (the --env reader splits like a shell).
std::string shell_word(const std::string &v)
{
	bool plain = !v.empty();
	for (char c : v)
		plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				  std::string_view("_./:,@%+=-").find(c) != std::string_view::npos);
	if (plain)
		return v;
	std::string out = "'";
	for (char c : v)
		out += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return out + "'";
}

// The environment audited, as KEY=VALUE lines an --env replay reads back:
// the relevant variables and those that locate software and the platform.
std::string env_lines(const machine::Environment &e)
{
	std::map<std::string, std::string> all(e.locate.begin(), e.locate.end());
	all.insert(e.platform.begin(), e.platform.end());
	for (const auto &[k, v] : e.vars)
		all[k] = v;
	std::string out;
	for (const auto &[k, v] : all)
		out += k + "=" + shell_word(v) + "\n";
	return out;
}

// Checks the output before anything is read: "" when it may be written.
std::string output_error(const std::string &given, const std::string &abs, bool force)
{
	const auto slash = abs.rfind('/');
	const std::string dir = abs.substr(0, slash), name = abs.substr(slash + 1);
	if (name.empty() || name == "." || name == "..")
		return "--output " + given + ": names a directory; give a file name (e.g. report.tar.gz)";
	io::RootFs host("/");
	if (!dir.empty()) {
		auto st = host.stat(dir.substr(1));
		if (!st)
			return fmt::format("--output {}: directory {} {}", given, dir,
					   st.error().kind == io::FsErrorKind::not_found ? "does not exist"
											 : "is " + st.error().reason());
		if (st->type != core::FileType::directory)
			return fmt::format("--output {}: {} is not a directory", given, dir);
	}
	if (auto st = host.stat(abs.substr(1)); st && st->type == core::FileType::directory)
		return fmt::format("--output {}: is a directory; give a file name (e.g. {}/report.tar.gz)", given,
				   given);
	if (!force && host.exists(abs.substr(1)))
		return fmt::format("--output {}: exists; give another name, or --force to replace it", given);
	return "";
}

} // namespace

int run_report(const ReportOptions &opts, const StatusJson &status_json)
{
	const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
	const std::string given =
		opts.output.empty() ? "rdnafix-report-" + utc(now, "%Y%m%d-%H%M%S") + ".tar.gz" : opts.output;
	const std::string abs = io::absolute_path(given);
	if (const std::string e = output_error(given, abs, opts.force); !e.empty())
		return fail(e);

	io::RootFs fs(opts.machine.root);
	if (fs.root_error())
		return fail(fmt::format("--root {}: {}", opts.machine.root, fs.root_error()->detail));
	const machine::Snapshot snap = machine::collect(opts.machine);
	if (snap.nothing_readable)
		return fail(snap.nothing_readable_reason);
	const software::Picture sw = software::collect(snap, {});

	Parts p;
	p.tree = machine::capture_tree(fs);
	if (opts.machine.live && fs.is_live()) {
		// this boot's kernel log (the tree then replays it: tests/fixtures/README.md)
		const io::KmsgDump d = io::read_kmsg();
		if (d.error.empty())
			p.tree.entries.insert_or_assign(
				"var/log/rdnafix-dmesg",
				machine::CapturedEntry{machine::CapturedEntry::Kind::file, amdgpu_lines(d.text)});
		else
			p.tree.skipped.push_back("/dev/kmsg: " + d.error);
	} else if (auto it = p.tree.entries.find("var/log/rdnafix-dmesg"); it != p.tree.entries.end()) {
		it->second.data = amdgpu_lines(it->second.data);
	}
	p.env = env_lines(snap.environment);
	p.env_source = opts.machine.pid        ? fmt::format("pid {}", *opts.machine.pid)
		       : opts.machine.env_file ? "--env " + *opts.machine.env_file
					       : "this process";
	if (!snap.access.user.empty())
		p.args = "--user " + snap.access.user;
	p.args += "\n";
	p.status_json = status_json(opts.machine);
	p.versions = versions_text(snap, sw);
	p.created = utc(now, "%Y-%m-%dT%H:%M:%SZ");
	p.root = opts.machine.root;
	p.anonymize = opts.anonymize;
	// Who this machine names: its accounts (uid 1000..65533), the user judged,
	// the environment's user and home, the host name.
	if (auto t = fs.read_text("etc/passwd", {.max_bytes = 4 << 20, .allow_empty = true}))
		for (const auto &u : core::parse_passwd_file(*t).users)
			if (u.uid >= 1000 && u.uid < 65534)
				p.users.emplace_back(u.name, u.home);
	for (const char *k : {"USER", "LOGNAME", "SUDO_USER"})
		if (auto v = snap.environment.locate.find(k); v != snap.environment.locate.end())
			p.users.emplace_back(v->second, "");
	if (!snap.access.user.empty())
		p.users.emplace_back(snap.access.user, "");
	if (auto h = snap.environment.locate.find("HOME"); h != snap.environment.locate.end() && !p.users.empty())
		p.users.emplace_back(p.users.front().first, h->second);
	for (const char *f : {"proc/sys/kernel/hostname", "etc/hostname"})
		if (auto h = fs.read_value(f))
			p.hosts.push_back(*h);

	std::string error;
	const std::string bytes = io::make_tar_gz(assemble(p), static_cast<std::int64_t>(now), &error);
	if (bytes.empty())
		return fail(error, 3);
	io::RootWriter w("/");
	if (auto e = w.replace(abs.substr(1), bytes, 0644))
		return fail(fmt::format("--output {}: cannot write: {}", given, e->reason), 3);
	std::size_t tree_files = 0;
	for (const auto &[path, e] : p.tree.entries)
		tree_files += e.kind == machine::CapturedEntry::Kind::file ? 1 : 0;
	std::printf("rdnactl report: wrote %s (%zu bytes)\n", given.c_str(), bytes.size());
	std::printf("  MANIFEST      what the archive holds and what was anonymized\n"
		    "  status.json   rdnactl status --json\n"
		    "  versions.txt  kernel, amdgpu DRM, firmware, ROCm, PyTorch, libraries\n"
		    "  env, args     the environment audited (%s) and the replay's arguments\n"
		    "  root/         %zu files of the machine's state (replay: rdnactl status --root root --env env "
		    "$(cat args))\n",
		    p.env_source.c_str(), tree_files);
	if (opts.anonymize)
		std::printf("User names, host names, home paths and serial numbers are replaced (MANIFEST lists them); "
			    "--no-anonymize keeps them.\n");
	return 0;
}

} // namespace rdnafix::report
