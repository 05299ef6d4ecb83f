// --color and the text style of a run (see text_style.hpp).
#include "text_style.hpp"

#include "option_checks.hpp"

#include "io/process.hpp"
#include "io/terminal.hpp"

namespace rdnafix::app {

void add_colour_option(CLI::App &sub, std::string *when)
{
	sub.add_option("--color", *when,
		       "Colour the text output: auto (a TTY, NO_COLOR unset or empty, TERM not dumb), always, never")
		->check(one_of({"auto", "always", "never"}))
		->type_name("WHEN");
}

core::TextStyle text_style(const std::string &when, bool machine_readable)
{
	core::TextStyle s;
	if (machine_readable)
		return s;
	const auto no_color = io::env_value("NO_COLOR"), term = io::env_value("TERM");
	s.colour = core::colour_wanted(core::parse_colour_when(when).value_or(core::ColourWhen::automatic),
				       io::stdout_is_terminal(),
				       no_color ? std::optional<std::string_view>(*no_color) : std::nullopt,
				       term ? std::optional<std::string_view>(*term) : std::nullopt);
	s.width = io::output_columns().value_or(0);
	return s;
}

} // namespace rdnafix::app
