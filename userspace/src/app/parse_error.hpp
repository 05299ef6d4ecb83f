#pragma once
// rdnactl's own words for a command line CLI11 refused: the option (or
// argument) by name, what it needs and what is valid, then one trailer,
// "See 'rdnactl VERB --help'.", the same for every usage error.
#include <CLI/CLI.hpp>

#include <string>

namespace rdnafix::app {

// "rdnactl config set": the verbs from the top down, always named rdnactl.
std::string command_path(const CLI::App &sub);

// The one trailer of every usage error: "See 'rdnactl status --help'.\n".
std::string help_trailer(const CLI::App &sub);

// The deepest subcommand CLI11 had reached when it threw.
CLI::App &parsed_subcommand(CLI::App &app);

// The whole message for a ParseError that is not a request for --help or
// --version: "rdnactl explain: --pid needs a value: PID, ...", trailer included.
std::string parse_error_message(CLI::App &app, const CLI::ParseError &e);

} // namespace rdnafix::app
