#pragma once
// What rdnactl says about a command line it cannot run: an unknown subcommand
// or option is named, with the closest valid word and the valid ones;
// `rdnactl help VERB...` is `rdnactl VERB... --help`.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::app {

// Optimal string alignment distance: insertions, deletions, substitutions and
// swaps of two neighbours cost 1 ("stauts" -> "status" is 1).
std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate a typo most likely meant: the nearest within distance 2 (at
// most a third of the word, at least 1), else the only one that starts with
// `word`; "" when none fits.
std::string closest(std::string_view word, const std::vector<std::string> &candidates);

// `help A B` -> `A B --help`, `help` -> `--help`; anything else unchanged.
std::vector<std::string> help_to_flag(std::vector<std::string> args);

// Walks `args` (argv without argv[0]) through the verbs of `app` that require a
// subcommand (rdnactl, rdnactl config) before CLI11 parses them.  Returns the
// message for an unknown or missing subcommand, or an unknown option of such a
// verb; "" when the line is fine so far.
std::string check_subcommands(const CLI::App &app, const std::vector<std::string> &args);

// After CLI11 threw ExtrasError: which verb got which unexpected words, the
// closest valid option and the verb's options.
std::string extras_message(CLI::App &app);

// "--help (-h), --root, --env" (long names; a short name in parentheses).
std::string option_list(const CLI::App &sub);

} // namespace rdnafix::app
