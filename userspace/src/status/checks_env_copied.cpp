// Checks: misspelt names and per-node overrides with an index no node has
// (RDNA-ENV-015), allocator configurations PyTorch rejects
// (RDNA-ENV-016) and the sudo context (RDNA-ENV-017).
#include "checks.hpp"

#include "core/env_vars.hpp"
#include "core/parse.hpp"
#include "core/remedy.hpp"

#include <cctype>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

void misspelt(Ctx &c)
{
	const auto &vars = c.s.environment.vars;
	static const core::VarTable none;
	const core::VarTable &table = c.s.environment.table ? *c.s.environment.table : none;
	for (const auto &[name, value] : vars) {
		if (auto why = core::invalid_override_node(name, table)) {
			c.add("RDNA-ENV-015", name, fmt::format("{} is not a variable ROCm reads: {}", name, *why),
			      "the runtime reads HSA_OVERRIDE_GFX_VERSION_<N> only under the name snprintf(\"%d\") "
			      "makes of a node id (ROCm/ROCR-Runtime c7785a6d libhsakmt/src/topology.c), so this "
			      "override is ignored",
			      // "_-1" is no shell name: the shell cannot unset it, env(1) can.
			      name.find_first_not_of(
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
					      std::string::npos
				      ? fmt::format("unset {}", name)
				      : fmt::format("start the program without it: env -u {} <command>",
						    core::shell_word(name)),
			      {UnsetEnv{name, "no node has this id: the runtime never reads it"}});
			continue;
		}
		auto real = core::near_miss(name, table);
		if (!real)
			continue;
		const core::VarEntry *k = core::find_var(table, *real);
		std::vector<Remedy> remedies{UnsetEnv{name, fmt::format("misspelling of {}", *real)}};
		std::string fix = fmt::format("unset {}", name);
		// Move the value to the real name, except an override (judged by
		// RDNA-ENV-001..013 once it is spelt right; rdnactl env proposes the
		// safe value when none is set) and when the real name is already set.
		const bool is_override = real->rfind("HSA_OVERRIDE_GFX_VERSION", 0) == 0; // _<N> too
		if (!vars.count(*real) && !is_override) {
			remedies.push_back(SetEnv{*real, value, fmt::format("the name {} meant", name)});
			fix += fmt::format("; export {}='{}'", *real, value);
		} else if (is_override) {
			fix += fmt::format("; if the GPU needs an override, spell it {} (rdnactl env proposes the "
					   "ISA-safe value when there is one)",
					   *real);
		}
		c.add("RDNA-ENV-015", name,
		      fmt::format("{} is not a variable ROCm or PyTorch reads; did you mean {}?", name, *real),
		      fmt::format("environment names are exact and case-sensitive: {} is read by {}, so this one is "
				  "ignored",
				  *real, k && !k->sources.empty() ? k->sources.front() : std::string("ROCm")),
		      fix, remedies);
	}
}

std::string_view bool_spelling(std::string_view v)
{
	std::string l(v);
	for (char &ch : l)
		ch = char(std::tolower(static_cast<unsigned char>(ch)));
	if (l == "true" || l == "1" || l == "yes" || l == "on")
		return "True";
	if (l == "false" || l == "0" || l == "no" || l == "off")
		return "False";
	return "";
}

void alloc_conf(Ctx &c)
{
	for (std::string_view n : {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"}) {
		auto it = c.s.environment.vars.find(std::string(n));
		if (it == c.s.environment.vars.end())
			continue;
		const AllocConfCheck r = check_alloc_conf(it->second);
		if (r.problems.empty())
			continue;
		std::string all;
		for (const auto &p : r.problems)
			all += (all.empty() ? "" : "; ") + p;
		const std::string note = "PyTorch raises RuntimeError on this allocator configuration";
		c.add("RDNA-ENV-016", std::string(n), fmt::format("{}={}: {}", n, it->second, all),
		      fmt::format("PyTorch parses it at the first GPU allocation and stops with \"Unrecognized key\" / "
				  "\"Expected a single True/False argument\" errors ({})",
				  core::kAllocConfSource),
		      r.kept.empty() ? fmt::format("unset {}", n) : fmt::format("export {}='{}'", n, r.kept),
		      {r.kept.empty() ? Remedy{UnsetEnv{std::string(n), note}}
				      : Remedy{SetEnv{std::string(n), r.kept, note}}});
	}
}

void sudo(Ctx &c)
{
	const auto &e = c.s.environment;
	if (e.sudo_user.empty())
		return;
	std::string dropped;
	for (const auto &d : e.sudo_dropped)
		dropped += (dropped.empty() ? "" : ",") + d;
	std::string finding = fmt::format("run under sudo: access judged for user {}", e.sudo_user);
	if (!e.sudo_environ_read)
		finding += "; the environment of the sudo call could not be read, this process's (reset by sudo) is "
			   "audited";
	else if (dropped.empty())
		finding += fmt::format("; the environment audited is {}'s; sudo dropped none of the relevant variables",
				       e.sudo_user);
	else
		finding += fmt::format("; the environment audited is {}'s; sudo dropped these variables: {}",
				       e.sudo_user, dropped);
	c.add("RDNA-ENV-017", "sudo", finding,
	      "sudo's env_reset (the default) passes only TERM, PATH, HOME, MAIL, SHELL, LOGNAME, USER and SUDO_* to "
	      "the command (sudoers(5), \"Command environment\"); a program run with sudo does not see the "
	      "user's ROCm/PyTorch variables",
	      dropped.empty() ? std::string("none; run rdnactl without sudo to audit your own session")
			      : fmt::format("run GPU programs without sudo; if sudo is needed: sudo --preserve-env={} "
					    "<command> (or sudo -E)",
					    dropped));
}

} // namespace

namespace {

// "max_split_size_mb=512" (guides write '=' for ':'): each comma-separated
// option KEY=VALUE whose KEY PyTorch knows and that has no ':' becomes
// KEY:VALUE, with a problem naming the repair.
std::string repair_equals(std::string_view value, std::vector<std::string> *problems)
{
	std::string out;
	std::size_t at = 0;
	while (at <= value.size()) {
		std::size_t comma = value.find(',', at);
		if (comma == std::string_view::npos)
			comma = value.size();
		std::string opt(value.substr(at, comma - at));
		const std::size_t eq = opt.find('=');
		if (eq != std::string::npos && opt.find(':') == std::string::npos &&
		    opt.find('[') == std::string::npos) {
			std::string key = opt.substr(0, eq);
			key.erase(0, key.find_first_not_of(" \t"));
			key.erase(key.find_last_not_of(" \t") + 1);
			if (core::alloc_conf_key(key)) {
				const std::string fixed = key + ":" + opt.substr(eq + 1);
				problems->push_back(
					fmt::format("'{}': PyTorch separates key and value with ':' ({})", opt, fixed));
				opt = fixed;
			}
		}
		out += (at == 0 ? "" : ",") + opt;
		at = comma + 1;
	}
	return out;
}

} // namespace

AllocConfCheck check_alloc_conf(std::string_view value)
{
	AllocConfCheck r;
	std::vector<std::string> equals;
	const std::string repaired = repair_equals(value, &equals);
	const core::AllocConf conf = core::parse_alloc_conf(repaired);
	r.problems = equals;
	r.problems.insert(r.problems.end(), conf.problems.begin(), conf.problems.end());
	for (const auto &o : conf.options) {
		const core::AllocKey *k = core::alloc_conf_key(o.key);
		if (!k) {
			std::string hint;
			unsigned best = 4; // a hint for up to three edits
			for (const auto &known : core::alloc_conf_keys())
				if (unsigned d = core::edit_distance(o.key, known.key); d < best) {
					best = d;
					hint = fmt::format(" (did you mean {}?)", known.key);
				}
			r.problems.push_back(fmt::format("unknown key '{}'{}", o.key, hint));
			continue;
		}
		std::string v = o.value;
		if (k->value == core::AllocValue::boolean && v != "True" && v != "False") {
			std::string_view b = bool_spelling(v);
			r.problems.push_back(
				fmt::format("{}:{}: PyTorch accepts only True or False (case-sensitive)", o.key, v));
			if (b.empty())
				continue;
			v = std::string(b);
		}
		// RDNA-ENV-010 asks to drop expandable_segments:True.
		if (o.key == "expandable_segments" && v == "True")
			continue;
		r.kept += (r.kept.empty() ? "" : ",") + o.key + ":" + v;
	}
	return r;
}

void check_copied_env(Ctx &c)
{
	check_table_vars(c);
	misspelt(c);
	alloc_conf(c);
	sudo(c);
}

} // namespace detail

} // namespace rdnafix::status
