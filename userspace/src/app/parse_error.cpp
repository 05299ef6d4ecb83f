#include "parse_error.hpp"

#include <fmt/format.h>

namespace rdnafix::app {

namespace {

// The first sentence-like part of an option's description: up to the
// first "; " (the rest is detail that --help shows).
std::string short_description(const std::string &d)
{
	const auto cut = d.find("; ");
	return cut == std::string::npos ? d : d.substr(0, cut);
}

// "DIR", "PID (INT in [1 - 4194304])", "FORMAT (one of text, json, prometheus)".
std::string value_form(const CLI::Option &o)
{
	std::string t = o.get_type_name();
	const auto colon = t.find(':');
	if (colon == std::string::npos)
		return t;
	std::string kind = t.substr(colon + 1);
	if (kind.size() > 2 && kind.front() == '{' && kind.back() == '}') {
		kind = "one of " + kind.substr(1, kind.size() - 2);
		for (std::size_t p = 0; (p = kind.find(',', p)) != std::string::npos; p += 2)
			kind.replace(p, 1, ", ");
	}
	const std::string name = t.substr(0, colon);
	if (kind.compare(0, name.size() + 1, name + " ") == 0) // "FLOAT:FLOAT in [0.1 - 86400]"
		return kind;
	return name + " (" + kind + ")";
}

// "--root" for an option, "RELEASE" for a positional.
std::string display_name(const CLI::Option &o)
{
	return o.get_lnames().empty() && o.get_snames().empty() ? o.get_name(true, false) : o.get_name();
}

} // namespace

std::string command_path(const CLI::App &sub)
{
	std::vector<std::string> names;
	for (const CLI::App *a = &sub; a->get_parent() != nullptr; a = a->get_parent())
		names.push_back(a->get_name());
	std::string out = "rdnactl";
	for (auto it = names.rbegin(); it != names.rend(); ++it)
		out += " " + *it;
	return out;
}

std::string help_trailer(const CLI::App &sub)
{
	return fmt::format("See '{} --help'.\n", command_path(sub));
}

CLI::App &parsed_subcommand(CLI::App &app)
{
	CLI::App *a = &app;
	while (!a->get_subcommands().empty())
		a = a->get_subcommands().front();
	return *a;
}

std::string parse_error_message(CLI::App &app, const CLI::ParseError &e)
{
	CLI::App &sub = parsed_subcommand(app);
	const std::string path = command_path(sub);
	const std::string msg = e.what();
	// CLI11 names the option first ("--root: 1 required DIR missing",
	// "--device: <the validator's text>") or the argument ("RELEASE is required").
	const CLI::Option *opt = nullptr;
	std::string rest = msg;
	if (const auto colon = msg.find(": "); !msg.empty() && msg.front() == '-' && colon != std::string::npos) {
		opt = sub.get_option_no_throw(msg.substr(0, colon));
		rest = msg.substr(colon + 2);
	} else if (const auto sp = msg.find(' '); sp != std::string::npos) {
		opt = sub.get_option_no_throw(msg.substr(0, sp));
		rest = msg.substr(sp + 1);
	}
	std::string out;
	if (opt != nullptr && dynamic_cast<const CLI::ArgumentMismatch *>(&e) != nullptr)
		out = fmt::format("{}: {} needs a value: {}\n  {}: {}\n", path, display_name(*opt), value_form(*opt),
				  display_name(*opt), short_description(opt->get_description()));
	else if (opt != nullptr && dynamic_cast<const CLI::RequiredError *>(&e) != nullptr)
		out = fmt::format("{}: {} is missing\n  {}: {}\n", path, display_name(*opt), display_name(*opt),
				  short_description(opt->get_description()));
	else if (opt != nullptr)
		out = fmt::format("{}: {} {}\n", path, display_name(*opt), rest);
	else
		out = fmt::format("{}: {}\n", path, msg);
	return out + help_trailer(sub);
}

} // namespace rdnafix::app
