// --if-stack-changed and --brief (run_brief.hpp).
#include "run_brief.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text_safe.hpp"

namespace rdnafix::validate {

StackCheck check_stack(const std::vector<StoredRun> &runs, const Stack &now)
{
	StackCheck c;
	if (runs.empty())
		return c;
	c.last = runs.back();
	StoredRun current;
	current.info.stack = now;
	c.changes = compare_stacks(*c.last, current);
	// A run recorded before stacks were (schema < 5) knows only the kernel and
	// the parameters: never "the same", so the whole stack gets recorded once.
	c.same = !c.last->stack_legacy && c.changes.empty();
	return c;
}

std::string describe_changes(const std::vector<StackChange> &changes, std::size_t max)
{
	std::string out;
	const std::size_t shown = std::min(max, changes.size());
	for (std::size_t i = 0; i < shown; ++i)
		out += (i ? ", " : "") + changes[i].describe();
	if (changes.size() > shown)
		out += fmt::format(" and {} more", changes.size() - shown);
	return out;
}

std::string not_run_text(const std::string &reason)
{
	if (reason == "no_runtime")
		return "no GPU runtime";
	if (reason == "runtime_no_device")
		return "the GPU runtime sees no device";
	if (reason == "init_failed")
		return "the GPU runtime failed to initialise";
	if (reason == "no_backend")
		return "no GPU runtime for this device";
	if (reason == "probe_failed")
		return "probing the GPU runtime failed";
	return core::terminal_safe(reason);
}

std::string results_text(const std::vector<CaseResult> &results)
{
	const Tally t = tally(results);
	return fmt::format("{} passed, {} failed{}", t.passed, t.failed,
			   t.skipped ? fmt::format(", {} skipped", t.skipped) : std::string());
}

std::string brief_line(const StackCheck &c, const std::string &verdict, std::optional<std::int64_t> recorded)
{
	std::string stack;
	if (!c.last)
		stack = "first recorded stack";
	else if (c.same)
		stack = fmt::format("same stack as run {}", c.last->id);
	else if (c.changes.empty()) // after a run recorded without its stack
		stack = fmt::format("new stack (run {} recorded only the kernel and parameters)", c.last->id);
	else
		stack = fmt::format("new stack ({})", describe_changes(c.changes));
	return fmt::format("rdnafix validate: {}: {}; {}", stack, verdict,
			   recorded ? fmt::format("recorded as run {}", *recorded) : "not recorded");
}

std::string unchanged_line(const StoredRun &last)
{
	return fmt::format("rdnafix validate: stack unchanged since run {} ({}): not run", last.id,
			   core::terminal_safe(last.info.started_at));
}

} // namespace rdnafix::validate
