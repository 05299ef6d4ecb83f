// Reader: the rdnafix module: installed files, loaded state, parameters and
// its sysfs ABI under sys/kernel/rdnafix (the file names are the module's:
// kmod/rdnafix_sysfs_files.h).
#include "machine/collect_internal.hpp"

#include "core/parse_rdnafix.hpp"

#include "rdnafix_policy.h"

#include <fmt/format.h>

namespace rdnafix::machine {

namespace detail {

namespace {

// A line of an rdnafix file that does not have the ABI's shape: recorded, not guessed at.
void bad_lines(std::vector<Unreadable> &u, const std::string &item, const std::string &path,
	       const std::vector<std::string> &bad)
{
	for (const auto &b : bad)
		u.push_back({item, path, fmt::format("line not of the sysfs ABI's form: '{}'", b)});
}

std::optional<std::uint64_t> count(const std::map<std::string, std::uint64_t> &m, const char *key)
{
	auto it = m.find(key);
	return it == m.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
}

// The counter and evidence files of issue 22 (ABI v1 additions, absent from older modules).
void collect_counters(io::RootFs &fs, Rdnafix &r, const std::string &base)
{
	auto &u = r.unreadable;
	auto optional_file = [&](const char *name) -> std::optional<std::string> {
		const std::string p = base + "/" + name;
		if (!fs.exists(p))
			return std::nullopt;
		auto t = fs.read_text(p, {.max_bytes = 64 * 1024, .allow_empty = true});
		if (!t) {
			note(u, std::string("rdnafix.") + name, t.error());
			return std::nullopt;
		}
		return *t;
	};
	if (auto t = optional_file("calls")) {
		auto c = core::parse_hook_counts(*t);
		bad_lines(u, "rdnafix.calls", base + "/calls", c.bad);
		for (const auto &[hook, m] : c.hooks) {
			r.hook_counts[hook].seen = count(m, "seen");
			r.hook_counts[hook].refused = count(m, "refused");
		}
	}
	if (auto t = optional_file("missing")) {
		auto c = core::parse_hook_counts(*t);
		bad_lines(u, "rdnafix.missing", base + "/missing", c.bad);
		for (const auto &[hook, m] : c.hooks) {
			r.hook_counts[hook].missed_instance = count(m, "instance");
			r.hook_counts[hook].missed_recursion = count(m, "recursion");
		}
	}
	if (auto t = optional_file("evidence")) {
		auto kv = core::parse_colon_pairs(*t);
		bad_lines(u, "rdnafix.evidence", base + "/evidence", kv.bad);
		r.evidence = std::move(kv.values);
	}
	if (auto t = optional_file("leaks")) {
		auto l = core::parse_leaks(*t);
		if (!l.total)
			u.push_back({"rdnafix.leaks", base + "/leaks", "first line is not a count"});
		r.leaks_total = l.total;
		r.leaks = std::move(l.recent);
	}
}

} // namespace

void collect_rdnafix(io::RootFs &fs, Rdnafix &r, const std::string &release,
		     const std::vector<core::LoadedModule> &mods)
{
	auto &u = r.unreadable;
	for (const auto &p : rdnafix_module_paths(fs, release))
		r.installed_paths.push_back("/" + p);
	r.installed = !r.installed_paths.empty();
	if (has_module(mods, "rdnafix")) {
		r.loaded = true;
		r.loaded_evidence = LoadEvidence::proc_modules;
	} else if (fs.exists("sys/module/rdnafix")) {
		r.loaded = true;
		r.loaded_evidence = LoadEvidence::sys_module;
	}
	// String parameters (targets, exclude) print "\n" when empty.
	r.params = read_module_params(fs, "rdnafix", &u);
	const std::string base = "sys/kernel/rdnafix";
	if (!fs.exists(base))
		return;
	r.version = value(fs, base + "/version", u, "rdnafix.version", true);
	r.abi_version = value(fs, base + "/abi_version", u, "rdnafix.abi_version", true);
	r.amdgpu_state = value(fs, base + "/amdgpu", u, "rdnafix.amdgpu", true);
	r.dry_run = value(fs, base + "/dry_run", u, "rdnafix.dry_run", true);
	// ABI v1 files added later (issue 10): absent from older modules, so optional
	if (fs.exists(base + "/not_covered"))
		if (auto v = value(fs, base + "/not_covered", u, "rdnafix.not_covered", true)) {
			std::size_t at = 0;
			while (at < v->size()) {
				std::size_t nl = v->find('\n', at);
				if (nl == std::string::npos)
					nl = v->size();
				if (nl > at)
					r.not_covered.push_back(v->substr(at, nl - at));
				at = nl + 1;
			}
		}
	collect_counters(fs, r, base);
	if (auto hooks = fs.list_dir(base + "/hooks")) {
		for (const auto &h : *hooks)
			if (auto v = value(fs, base + "/hooks/" + h, u, "rdnafix.hooks." + h, true))
				r.hooks[h] = *v;
	} else {
		note(u, "rdnafix.hooks", hooks.error());
	}
	// Every file of devices/<BDF>/, from the module's own list of its sysfs
	// files (kmod/rdnafix_sysfs_files.h through rdnafix_policy.h).
	unsigned n_files = 0;
	const char *const *dev_files = rdnafix_sysfs_dev_files(&n_files);
	const std::vector<std::string> abi(dev_files, dev_files + n_files);
	if (auto devs = fs.list_dir(base + "/devices")) {
		for (const auto &bdf : *devs) {
			RdnafixDevice d;
			d.pci_bdf = bdf;
			for (const auto &f : abi)
				if (auto v = value(fs, base + "/devices/" + bdf + "/" + f, u,
						   "rdnafix.devices." + bdf + "." + f, true))
					d.values[f] = *v;
			r.devices.push_back(std::move(d));
		}
	} else if (devs.error().kind != io::FsErrorKind::not_found) {
		note(u, "rdnafix.devices", devs.error());
	}
}

} // namespace detail

} // namespace rdnafix::machine
