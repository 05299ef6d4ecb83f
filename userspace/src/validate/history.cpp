#include "history.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

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

std::string Regression::describe() const
{
	if (kind == Kind::status)
		return fmt::format("{}: {} -> {} after kernel {} -> {} (runs {} -> {})", case_name, from_status,
				   to_status, from_kernel, to_kernel, from_run, to_run);
	return fmt::format("{}: throughput {:.4g} -> {:.4g} ({:.1f} % lower) after kernel {} -> {} (runs {} -> {})",
			   case_name, from_value, to_value, drop * 100.0, from_kernel, to_kernel, from_run, to_run);
}

std::vector<Regression> find_regressions(const std::vector<StoredRun> &runs, double threshold)
{
	struct Latest {
		const StoredCase *c;
		std::int64_t run;
	};
	struct KernelState {
		std::string kernel;
		std::size_t last_pos = 0; // position of its latest run in `runs`
		std::map<std::string, Latest> cases;
	};
	std::map<std::string, std::vector<KernelState>> per_device;
	for (std::size_t pos = 0; pos < runs.size(); ++pos) {
		const auto &run = runs[pos];
		auto &kernels = per_device[run.info.device];
		KernelState *ks = nullptr;
		for (auto &k : kernels)
			if (k.kernel == run.info.kernel_release)
				ks = &k;
		if (!ks) {
			kernels.push_back({run.info.kernel_release, pos, {}});
			ks = &kernels.back();
		}
		ks->last_pos = pos;
		for (const auto &c : run.cases)
			if (c.status != Status::skip)
				ks->cases[c.name] = {&c, run.id};
	}
	std::vector<Regression> out;
	for (auto &[device, kernels] : per_device) {
		std::sort(kernels.begin(), kernels.end(),
			  [](const KernelState &a, const KernelState &b) { return a.last_pos < b.last_pos; });
		for (std::size_t i = 1; i < kernels.size(); ++i) {
			const auto &prev = kernels[i - 1], &next = kernels[i];
			for (const auto &[name, now] : next.cases) {
				auto it = prev.cases.find(name);
				if (it == prev.cases.end())
					continue;
				const StoredCase &before = *it->second.c;
				const StoredCase &after = *now.c;
				if (before.status != Status::pass)
					continue;
				Regression r;
				r.device = device;
				r.case_name = name;
				r.from_kernel = prev.kernel;
				r.to_kernel = next.kernel;
				r.from_run = it->second.run;
				r.to_run = now.run;
				r.from_status = status_name(before.status);
				r.to_status = status_name(after.status);
				if (is_failure(after.status)) {
					r.kind = Regression::Kind::status;
					out.push_back(r);
					continue;
				}
				const auto a = before.throughput(), b = after.throughput();
				if (after.status == Status::pass && a && b && *a > 0 && *b < *a * (1.0 - threshold)) {
					r.kind = Regression::Kind::throughput;
					r.from_value = *a;
					r.to_value = *b;
					r.drop = 1.0 - *b / *a;
					out.push_back(r);
				}
			}
		}
	}
	return out;
}

} // namespace rdnafix::validate
