// The history's small pure helpers: the default location, the stack of a run
// recorded before schema 5, the last run on a stack, a run's verdict.  The
// store is history_store.cpp, the comparison of runs history_compare.cpp.
#include "history/history.hpp"

#include "machine/interpret.hpp"

namespace rdnafix::validate {

std::string default_history_path(unsigned uid, const char *xdg_state_home, const char *home)
{
	if (uid == 0)
		return "/var/lib/rdnafix/history.db";
	if (xdg_state_home && *xdg_state_home == '/')
		return std::string(xdg_state_home) + "/rdnafix/history.db";
	if (home && *home)
		return std::string(home) + "/.local/state/rdnafix/history.db";
	return {};
}

Stack legacy_stack(const RunInfo &info)
{
	Stack s;
	if (!info.kernel_release.empty() && info.kernel_release != "unknown")
		s.set("kernel", info.kernel_release);
	if (info.amdgpu_params.is_object())
		for (const auto &[m, n] : machine::reported_params()) {
			if (m != "amdgpu" || !is_stack_param(m, n))
				continue;
			auto it = info.amdgpu_params.find(n);
			if (it != info.amdgpu_params.end() && it->is_string())
				s.set("amdgpu." + n, it->get_ref<const std::string &>());
		}
	if (info.rdnafix_params.is_object())
		for (const auto &[n, v] : info.rdnafix_params.items())
			if (v.is_string())
				s.set("rdnafix." + n, v.get_ref<const std::string &>());
	return s;
}

std::optional<StoredRun> last_run_on_stack(const std::vector<StoredRun> &runs, const std::string &key)
{
	for (auto it = runs.rbegin(); it != runs.rend(); ++it)
		if (it->info.stack.key() == key)
			return *it;
	return std::nullopt;
}

RunVerdict verdict(const StoredRun &r)
{
	if (!r.info.not_run.empty())
		return RunVerdict::not_run;
	bool ran = false;
	for (const auto &c : r.cases) {
		if (is_failure(c.status))
			return RunVerdict::fail;
		ran = ran || c.status != Status::skip;
	}
	return ran ? RunVerdict::pass : RunVerdict::not_run;
}

const char *verdict_name(RunVerdict v)
{
	switch (v) {
	case RunVerdict::pass:
		return "pass";
	case RunVerdict::fail:
		return "fail";
	case RunVerdict::not_run:
		break;
	}
	return "not_run";
}

} // namespace rdnafix::validate
