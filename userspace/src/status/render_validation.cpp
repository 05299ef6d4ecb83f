// "Last validation on this stack": the Validation section of the text report
// and the `validation` object of the JSON one.  Pure.
#include "render.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using nlohmann::ordered_json;

std::string_view to_string(ValidationResult r)
{
	switch (r) {
	case ValidationResult::never:
		return "never";
	case ValidationResult::pass:
		return "pass";
	case ValidationResult::fail:
		return "fail";
	case ValidationResult::not_run:
		return "not_run";
	case ValidationResult::unreadable:
		return "unreadable";
	}
	return "never";
}

namespace {

std::string join(const std::vector<std::string> &v, const char *sep)
{
	std::string out;
	for (const auto &x : v)
		out += (out.empty() ? "" : sep) + x;
	return out;
}

// Why there is no run: what was read and what does not exist.
std::string never_reason(const LastValidation &v)
{
	std::vector<std::string> parts;
	if (!v.read.empty())
		parts.push_back("no run on this stack in " + join(v.read, ", "));
	if (!v.missing.empty())
		parts.push_back("no history database at " + join(v.missing, ", "));
	if (parts.empty())
		parts.push_back("no history database to read");
	return join(parts, "; ");
}

std::string figure(const ValidationCase &c)
{
	if (c.gflops)
		return fmt::format("  {:.1f} GFLOP/s", *c.gflops);
	if (c.gbs)
		return fmt::format("  {:.1f} GB/s", *c.gbs);
	return "";
}

ordered_json opt(const std::optional<double> &x)
{
	return x ? ordered_json(*x) : ordered_json(nullptr);
}

ordered_json str_or_null(const std::string &s, bool has)
{
	return has ? ordered_json(s) : ordered_json(nullptr);
}

} // namespace

std::vector<std::string> validation_lines(const LastValidation &v)
{
	std::vector<std::string> out;
	const std::string head = "  last validation on this stack: ";
	switch (v.result) {
	case ValidationResult::never:
		out.push_back(head + "never (" + never_reason(v) + ")");
		break;
	case ValidationResult::unreadable:
		out.push_back(head + "unknown (no history database could be read)");
		break;
	case ValidationResult::pass:
	case ValidationResult::fail:
	case ValidationResult::not_run: {
		std::string what =
			v.result == ValidationResult::not_run
				? "not run (" + (v.not_run.empty() ? std::string("no reason recorded") : v.not_run) +
					  ")"
				: std::string(to_string(v.result));
		out.push_back(head + fmt::format("{} — {}, run {}, {}", what, v.started_at, v.run, v.database));
		if (!v.device.empty())
			out.push_back("    device        " + v.device);
		for (const auto &c : v.cases)
			out.push_back(
				fmt::format("    {:<28} {}{}", c.name, validate::status_name(c.status), figure(c)));
		break;
	}
	}
	for (const auto &u : v.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

ordered_json validation_json(const LastValidation &v)
{
	const bool run = v.run != 0;
	ordered_json cases = ordered_json::array();
	for (const auto &c : v.cases)
		cases.push_back({{"name", c.name},
				 {"status", validate::status_name(c.status)},
				 {"gflops", opt(c.gflops)},
				 {"gbs", opt(c.gbs)},
				 {"seconds", opt(c.seconds)}});
	ordered_json unreadable = ordered_json::array();
	for (const auto &u : v.unreadable)
		unreadable.push_back({{"item", u.item}, {"path", u.path}, {"reason", u.reason}});
	return {{"result", std::string(to_string(v.result))},
		{"stack_key", str_or_null(v.stack_key, !v.stack_key.empty())},
		{"database", str_or_null(v.database, run)},
		{"run", run ? ordered_json(v.run) : ordered_json(nullptr)},
		{"started_at", str_or_null(v.started_at, run)},
		{"started_epoch", v.started_epoch ? ordered_json(*v.started_epoch) : ordered_json(nullptr)},
		{"device", str_or_null(v.device, run && !v.device.empty())},
		{"not_run", str_or_null(v.not_run, v.result == ValidationResult::not_run)},
		{"cases", cases},
		{"databases_read", v.read},
		{"databases_missing", v.missing},
		{"unreadable", unreadable}};
}

} // namespace rdnafix::status
