// The comparison of recorded runs (history.hpp: compare_runs,
// find_regressions): each run against the run before it on the same device,
// naming the stack facts that changed and the cases that changed.  Pure.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "history/history.hpp"
#include "machine/interpret.hpp"

namespace rdnafix::validate {

namespace {

// The names a run recorded before schema 5 could have: kernel, the amdgpu
// parameters of legacy_stack, rdnafix's parameters (not its version).
bool legacy_name(const std::string &n)
{
	if (n == "kernel")
		return true;
	if (n.starts_with("rdnafix."))
		return n != "rdnafix.version";
	if (!n.starts_with("amdgpu."))
		return false;
	const auto &rp = machine::reported_params();
	return std::any_of(rp.begin(), rp.end(),
			   [&](const auto &p) { return p.first == "amdgpu" && "amdgpu." + p.second == n; });
}

// "2026-11-24T10:00:00Z" -> "2026-11-24 10:00"; anything else as it is (safe).
std::string short_time(const std::string &iso)
{
	if (iso.size() >= 16 && iso[10] == 'T')
		return core::terminal_safe(iso.substr(0, 10) + " " + iso.substr(11, 5));
	return core::terminal_safe(iso);
}

std::string joined(const std::vector<StackChange> &changes)
{
	std::string out;
	for (const auto &c : changes)
		out += (out.empty() ? "" : "; ") + c.describe();
	return out;
}

} // namespace

std::vector<StackChange> compare_stacks(const StoredRun &before, const StoredRun &after)
{
	auto changes = diff_stacks(before.info.stack, after.info.stack);
	if (before.stack_legacy || after.stack_legacy)
		std::erase_if(changes, [](const StackChange &c) { return !legacy_name(c.name); });
	return changes;
}

std::string CaseDelta::describe(std::int64_t against) const
{
	const std::string name = core::terminal_safe(case_name);
	if (throughput)
		return fmt::format("{} {:.4g} \u2192 {:.4g} {} ({:.1f} % lower)", name, from_value, to_value, unit,
				   drop * 100.0);
	const std::string from = from_run == against ? from_status : fmt::format("{} (run {})", from_status, from_run);
	return fmt::format("{} {} \u2192 {}", name, from, to_status);
}

bool RunComparison::has_regression() const
{
	return std::any_of(cases.begin(), cases.end(), [](const CaseDelta &d) { return d.regression; });
}

std::string RunComparison::describe() const
{
	std::string cs;
	for (const auto &d : cases)
		cs += (cs.empty() ? "" : ", ") + d.describe(against);
	if (!not_run.empty())
		cs += (cs.empty() ? "" : "; ") + fmt::format("not run ({})", core::terminal_safe(not_run));
	if (same_stack())
		return fmt::format("run {} ({}): same stack as run {}: {}", run, short_time(started_at), against,
				   cs.empty() ? "no case changed" : cs);
	return fmt::format("run {} ({}, after run {}): {}; everything else equal: {}", run, short_time(started_at),
			   against, joined(changes), cs.empty() ? "no case changed" : cs);
}

std::optional<RunComparison> RunComparer::add(StoredRun next)
{
	const auto run = std::make_shared<const StoredRun>(std::move(next));
	DeviceState &st = devices_[run->info.device];
	std::optional<RunComparison> listed;
	if (st.prev) {
		RunComparison cmp;
		cmp.device = run->info.device;
		cmp.run = run->id;
		cmp.started_at = run->info.started_at;
		cmp.against = st.prev->id;
		cmp.against_started_at = st.prev->info.started_at;
		cmp.changes = compare_stacks(*st.prev, *run);
		cmp.not_run = run->info.not_run;
		std::set<std::string> seen;
		std::map<const StoredRun *, bool> same; // earlier run -> same stack as this one
		for (const auto &c : run->cases) {
			if (c.status == Status::skip || !seen.insert(c.name).second)
				continue;
			auto it = st.latest.find(c.name);
			if (it == st.latest.end())
				continue;
			const StoredRun &from = *it->second.run;
			const StoredCase &before = from.cases[it->second.index];
			CaseDelta d;
			d.case_name = c.name;
			d.from_run = from.id;
			d.from_status = status_name(before.status);
			d.to_status = status_name(c.status);
			auto [sit, fresh] = same.try_emplace(&from, false);
			if (fresh)
				sit->second = compare_stacks(from, *run).empty();
			d.same_stack = sit->second;
			if (before.status != c.status) {
				d.regression = before.status == Status::pass && is_failure(c.status);
			} else {
				const auto a = before.throughput(), b = c.throughput();
				if (!(c.status == Status::pass && !d.same_stack && a && b && *a > 0 &&
				      *b < *a * (1.0 - threshold_)))
					continue;
				d.regression = d.throughput = true;
				d.from_value = *a;
				d.to_value = *b;
				d.drop = 1.0 - *b / *a;
				d.unit = c.gflops ? "GFLOP/s" : "GB/s";
			}
			if (d.regression)
				regressions_.push_back(regression(d, from, *run));
			cmp.cases.push_back(std::move(d));
		}
		if (!cmp.same_stack() || !cmp.cases.empty())
			listed = std::move(cmp);
	}
	st.prev = run;
	for (std::size_t i = 0; i < run->cases.size(); ++i)
		if (run->cases[i].status != Status::skip)
			st.latest[run->cases[i].name] = {run, i};
	return listed;
}

Regression RunComparer::regression(const CaseDelta &d, const StoredRun &from, const StoredRun &to)
{
	Regression r;
	r.kind = d.throughput ? Regression::Kind::throughput : Regression::Kind::status;
	r.device = to.info.device;
	r.case_name = d.case_name;
	r.from_run = d.from_run;
	r.to_run = to.id;
	r.from_kernel = from.info.kernel_release;
	r.to_kernel = to.info.kernel_release;
	r.from_status = d.from_status;
	r.to_status = d.to_status;
	r.from_value = d.from_value;
	r.to_value = d.to_value;
	r.drop = d.drop;
	r.changes = compare_stacks(from, to);
	return r;
}

std::vector<RunComparison> compare_runs(const std::vector<StoredRun> &runs, double threshold)
{
	RunComparer cmp(threshold);
	std::vector<RunComparison> out;
	for (const auto &run : runs)
		if (auto c = cmp.add(run))
			out.push_back(std::move(*c));
	return out;
}

std::string Regression::describe() const
{
	const std::string where = changes.empty() ? "on the same stack" : "after " + joined(changes);
	if (kind == Kind::status)
		return fmt::format("{}: {} -> {} {} (runs {} -> {})", case_name, from_status, to_status, where,
				   from_run, to_run);
	return fmt::format("{}: throughput {:.4g} -> {:.4g} ({:.1f} % lower) {} (runs {} -> {})", case_name, from_value,
			   to_value, drop * 100.0, where, from_run, to_run);
}

std::vector<Regression> find_regressions(const std::vector<StoredRun> &runs, double threshold)
{
	RunComparer cmp(threshold);
	for (const auto &run : runs)
		cmp.add(run);
	return cmp.regressions();
}

} // namespace rdnafix::validate
