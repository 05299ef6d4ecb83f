// The journal of config transactions (see journal.hpp).
#include "config/journal.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rdnafix::config {

namespace {

// The value of an entry name: 6 to 12 decimal digits; nullopt for anything else.
std::optional<unsigned long long> id_value(const std::string &n)
{
	if (n.size() < 6 || n.size() > 12 ||
	    !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
		return std::nullopt;
	unsigned long long v = 0;
	std::from_chars(n.data(), n.data() + n.size(), v);
	return v;
}

// The parent directories of `rel`, shallowest first ("etc", "etc/modprobe.d").
std::vector<std::string> parents(const std::string &rel)
{
	std::vector<std::string> out;
	for (std::size_t p = rel.find('/'); p != std::string::npos; p = rel.find('/', p + 1))
		out.push_back(rel.substr(0, p));
	return out;
}

std::string utc_now()
{
	const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
	std::tm tm{};
	::gmtime_r(&t, &tm);
	char buf[32];
	std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

std::string entry_dir(std::string_view id)
{
	return fmt::format("{}/{}", kJournalDir, id);
}

io::WriteError bad_manifest(const std::string &path, const std::string &why)
{
	io::WriteError e;
	e.path = path;
	e.message =
		fmt::format("cannot read the journal entry {}: {}; remove that directory to drop the entry", path, why);
	return e;
}

} // namespace

std::string_view to_string(CommandKind k)
{
	return k == CommandKind::initramfs ? "initramfs" : "bootloader";
}

std::vector<std::string> Journal::ids(io::WriteError *error) const
{
	std::vector<std::pair<unsigned long long, std::string>> found;
	if (auto names = w_.list(kJournalDir, error))
		for (const auto &n : *names)
			if (auto v = id_value(n))
				found.emplace_back(*v, n);
	std::sort(found.begin(), found.end());
	std::vector<std::string> out;
	for (auto &[v, n] : found)
		out.push_back(std::move(n));
	return out;
}

io::WriteStatus Journal::sweep()
{
	io::WriteError err;
	auto names = w_.list(kJournalDir, &err);
	if (!err.message.empty())
		return err;
	for (const auto &n : names.value_or(std::vector<std::string>{})) {
		const bool left = n.size() > 1 && n[0] == '.' && (n.ends_with(".new") || n.ends_with(".dropped"));
		if (left)
			if (auto e = w_.remove_tree(fmt::format("{}/{}", kJournalDir, n)))
				return e;
	}
	return std::nullopt;
}

io::WriteStatus Journal::record(Transaction &t)
{
	io::WriteError err;
	auto existing = ids(&err);
	if (!err.message.empty())
		return err;
	const unsigned long long next = existing.empty() ? 1 : *id_value(existing.back()) + 1;
	if (next > kMaxJournalId) {
		err.path = std::string(kJournalDir);
		err.message = fmt::format("the journal {} holds entry {}, the largest id rdnactl hands out; undo or "
					  "remove old entries first",
					  kJournalDir, existing.back());
		return err;
	}
	t.id = fmt::format("{:06}", next);
	t.created_dirs.clear();
	for (const auto &f : t.files) {
		if (!f.written)
			continue;
		for (const auto &d : parents(f.path)) {
			io::WriteError de;
			if (w_.list(d, &de) ||
			    std::find(t.created_dirs.begin(), t.created_dirs.end(), d) != t.created_dirs.end())
				continue;
			if (!de.message.empty())
				return de;
			t.created_dirs.push_back(d);
		}
	}
	// Deepest first: the order in which they can be removed.
	std::stable_sort(t.created_dirs.begin(), t.created_dirs.end(), [](const auto &a, const auto &b) {
		return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
	});
	t.time = utc_now();
	const std::string tmp = fmt::format(".{}.new", t.id);
	const std::string tmp_dir = fmt::format("{}/{}", kJournalDir, tmp);
	if (auto e = sweep()) // what a run killed while recording or dropping left
		return e;
	nlohmann::json files = nlohmann::json::array();
	for (std::size_t n = 0; n < t.files.size(); ++n) {
		const auto &f = t.files[n];
		nlohmann::json j{{"path", f.path}, {"previous_mode", f.previous_mode}, {"mode", f.mode}};
		j["previous"] = f.previous ? fmt::format("prev/{}", n) : "absent";
		j["written"] = f.written ? fmt::format("new/{}", n) : "absent";
		if (f.previous)
			if (auto e = w_.replace(fmt::format("{}/prev/{}", tmp_dir, n), *f.previous, 0600))
				return e;
		if (f.written)
			if (auto e = w_.replace(fmt::format("{}/new/{}", tmp_dir, n), *f.written, 0600))
				return e;
		files.push_back(std::move(j));
	}
	nlohmann::json commands = nlohmann::json::array();
	for (const auto &c : t.commands)
		commands.push_back({{"argv", c.argv}, {"why", c.why}, {"kind", to_string(c.kind)}});
	nlohmann::json m{{"version", 1},
			 {"time", t.time},
			 {"invocation", t.invocation},
			 {"files", files},
			 {"created_dirs", t.created_dirs},
			 {"commands", commands}};
	if (auto e = w_.replace(tmp_dir + "/manifest.json", m.dump(1) + "\n", 0600))
		return e;
	return w_.rename_in(kJournalDir, tmp, t.id);
}

std::optional<Transaction> Journal::newest(io::WriteError *error) const
{
	auto all = ids(error);
	if (all.empty())
		return std::nullopt;
	Transaction t;
	t.id = all.back();
	const std::string dir = entry_dir(t.id);
	auto m = w_.read(dir + "/manifest.json", error);
	if (!m) {
		if (error->message.empty())
			*error = bad_manifest(dir, "manifest.json is missing");
		return std::nullopt;
	}
	try {
		auto j = nlohmann::json::parse(m->content);
		t.time = j.at("time").get<std::string>();
		t.invocation = j.at("invocation").get<std::string>();
		for (const auto &f : j.at("files")) {
			JournalFile jf;
			jf.path = f.at("path").get<std::string>();
			jf.previous_mode = f.at("previous_mode").get<unsigned>();
			jf.mode = f.at("mode").get<unsigned>();
			for (auto [key, slot] :
			     {std::pair{"previous", &jf.previous}, std::pair{"written", &jf.written}}) {
				const std::string where = f.at(key).get<std::string>();
				if (where == "absent")
					continue;
				auto content = w_.read(dir + "/" + where, error);
				if (!content) {
					if (error->message.empty())
						*error = bad_manifest(dir, where + " is missing");
					return std::nullopt;
				}
				*slot = content->content;
			}
			t.files.push_back(std::move(jf));
		}
		for (const auto &c : j.at("commands")) {
			JournalCommand jc;
			jc.argv = c.at("argv").get<std::vector<std::string>>();
			jc.why = c.at("why").get<std::string>();
			jc.kind = c.at("kind").get<std::string>() == "bootloader" ? CommandKind::bootloader
										  : CommandKind::initramfs;
			t.commands.push_back(std::move(jc));
		}
		if (j.contains("created_dirs")) // entries written before it existed have none
			t.created_dirs = j.at("created_dirs").get<std::vector<std::string>>();
	} catch (const nlohmann::json::exception &e) {
		*error = bad_manifest(dir, fmt::format("manifest.json is not valid ({})", e.what()));
		return std::nullopt;
	}
	return t;
}

io::WriteStatus Journal::drop(const Transaction &t)
{
	// Renamed out of the id namespace first: a crash while deleting leaves a
	// dot-directory that is no longer an entry.
	const std::string gone = fmt::format(".{}.dropped", t.id);
	if (auto e = w_.remove_tree(fmt::format("{}/{}", kJournalDir, gone)))
		return e;
	if (auto e = w_.rename_in(kJournalDir, t.id, gone))
		return e;
	return w_.remove_tree(fmt::format("{}/{}", kJournalDir, gone));
}

} // namespace rdnafix::config
