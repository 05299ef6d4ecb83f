// Reader: the environment to audit (this process's, the --env file, or under
// sudo the environment the sudo call had), and who sudo ran for.
#include "machine/collect_internal.hpp"

#include "io/process.hpp"

#include <charconv>

namespace rdnafix::machine {

Environment build_sudo_environment(const std::string &user, const core::Environment *invoking,
				   const core::Environment &process, std::shared_ptr<const core::VarTable> table)
{
	Environment e = invoking ? build_environment(*invoking, "the sudo call's environment, user " + user, table)
				 : build_environment(process, "process (reset by sudo)", table);
	e.sudo_user = user;
	e.sudo_environ_read = invoking != nullptr;
	if (invoking)
		for (const auto &[name, value] : e.vars)
			if (process.get(name) != value)
				e.sudo_dropped.push_back(name);
	return e;
}

namespace detail {

namespace {

// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
bool read_stat(io::RootFs &fs, const std::string &pid, std::string &comm, std::string &ppid)
{
	auto t = fs.read_text("proc/" + pid + "/stat", {.max_bytes = 4096});
	if (!t)
		return false;
	std::size_t open = t->find('('), close = t->rfind(')');
	if (open == std::string::npos || close == std::string::npos || close < open)
		return false;
	comm = t->substr(open + 1, close - open - 1);
	auto words = std::string_view(*t).substr(close + 1);
	// " S 1234 ..."
	std::size_t a = words.find_first_not_of(' ');
	if (a == std::string_view::npos)
		return false;
	std::size_t b = words.find(' ', a);
	if (b == std::string_view::npos)
		return false;
	std::size_t c = words.find(' ', b + 1);
	ppid = std::string(words.substr(b + 1, c == std::string_view::npos ? std::string_view::npos : c - b - 1));
	unsigned v = 0;
	auto [p, ec] = std::from_chars(ppid.data(), ppid.data() + ppid.size(), v);
	return ec == std::errc{} && p == ppid.data() + ppid.size() && v > 0;
}

} // namespace

std::optional<SudoContext> detect_sudo()
{
	if (io::process_identity().euid != 0)
		return std::nullopt;
	auto user = io::env_value("SUDO_USER");
	if (!user || user->empty() || *user == "root")
		return std::nullopt;
	SudoContext ctx;
	ctx.user = *user;
	// The topmost of the sudo processes above this one still has the
	// environment the user called sudo with.
	io::RootFs fs("/");
	std::string pid = "self", comm, ppid, sudo_pid;
	for (int depth = 0; depth < 16 && read_stat(fs, pid, comm, ppid); ++depth) {
		std::string parent_comm, grand;
		if (!read_stat(fs, ppid, parent_comm, grand) || (parent_comm != "sudo" && parent_comm != "sudo-rs"))
			break;
		sudo_pid = ppid;
		pid = ppid;
	}
	if (!sudo_pid.empty())
		if (auto b = fs.read_bytes("proc/" + sudo_pid + "/environ", 1 << 20))
			ctx.invoking_environ = std::move(*b);
	return ctx;
}

Environment collect_environment(io::RootFs &fs, const std::optional<std::string> &file, std::optional<long long> pid,
				const std::optional<SudoContext> &sudo,
				const std::shared_ptr<const core::VarTable> &table)
{
	const core::VarTable empty;
	const core::VarTable &t = table ? *table : empty;
	if (pid) {
		// --pid: the environment the process really has (the arguments were
		// checked before: a read that fails now is an unreadable item).
		const std::string rel = "proc/" + std::to_string(*pid) + "/environ";
		auto bytes = fs.read_bytes(rel, 4u << 20);
		Environment e;
		if (!bytes) {
			e.source = "pid " + std::to_string(*pid);
			e.table = table ? table : std::make_shared<const core::VarTable>();
			e.unreadable.push_back({"environment", "/" + rel, bytes.error().reason()});
		} else {
			e = build_environment(core::parse_environ(*bytes), "pid " + std::to_string(*pid), table);
		}
		if (sudo)
			e.sudo_user = sudo->user;
		return e;
	}
	if (file) {
		std::string abs = io::absolute_path(*file);
		io::RootFs host("/");
		// /dev/null is the empty environment (`env -i`), not an unreadable file.
		auto text = abs == "/dev/null" ? io::FsResult<std::string>(std::string())
					       : host.read_text(abs, {.max_bytes = 1 << 20, .allow_empty = true});
		// A copy of /proc/PID/environ (NUL-separated) is an environment too.
		std::optional<core::Environment> environ_block;
		if (!text && text.error().kind == io::FsErrorKind::binary)
			if (auto b = host.read_bytes(abs, 1 << 20); b && core::is_environ_block(*b))
				environ_block = core::parse_environ(*b);
		Environment e;
		if (environ_block) {
			e = build_environment(*environ_block, *file, table);
		} else if (!text) {
			e.source = *file;
			e.table = table ? table : std::make_shared<const core::VarTable>();
			e.unreadable.push_back({"environment", *file, text.error().reason()});
		} else {
			e = build_environment(
				core::parse_env_file(*text, [&](std::string_view n) { return is_relevant_env(n, t); }),
				*file, table);
		}
		if (sudo)
			e.sudo_user = sudo->user; // access is judged for the user; the file is the environment
		return e;
	}
	const core::Environment process = core::parse_environ(io::process_environ());
	if (sudo) {
		if (sudo->invoking_environ) {
			const core::Environment invoking = core::parse_environ(*sudo->invoking_environ);
			return build_sudo_environment(sudo->user, &invoking, process, table);
		}
		return build_sudo_environment(sudo->user, nullptr, process, table);
	}
	return build_environment(process, "process", table);
}

} // namespace detail

} // namespace rdnafix::machine
