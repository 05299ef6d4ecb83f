#include "usage.hpp"

#include "parse_error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::app {

namespace {

std::string path_of(const CLI::App &sub)
{
	return command_path(sub);
}

std::vector<std::string> subcommand_names(const CLI::App &app)
{
	std::vector<std::string> out;
	for (const CLI::App *s : app.get_subcommands([](const CLI::App *) { return true; }))
		out.push_back(s->get_name());
	return out;
}

std::vector<std::string> option_names(const CLI::App &app)
{
	std::vector<std::string> out;
	for (const CLI::Option *o : app.get_options()) {
		for (const auto &l : o->get_lnames())
			out.push_back("--" + l);
		for (const auto &s : o->get_snames())
			out.push_back("-" + s);
	}
	return out;
}

std::string join(const std::vector<std::string> &v)
{
	std::string out;
	for (const auto &s : v)
		out += (out.empty() ? "" : ", ") + s;
	return out;
}

std::string unknown_option(const CLI::App &sub, const std::string &word)
{
	const std::string name = word.substr(0, word.find('='));
	const std::string guess = closest(name, option_names(sub));
	return fmt::format("{}: unknown option '{}'{}\nValid options of '{}': {}\n", path_of(sub), name,
			   guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess), path_of(sub),
			   option_list(sub));
}

// unknown_option with the trailer: a line that stops at the first bad word.
std::string unknown_option_line(const CLI::App &sub, const std::string &word)
{
	return unknown_option(sub, word) + help_trailer(sub);
}

bool is_option_of(const CLI::App &app, const std::string &word)
{
	const std::string name = word.substr(0, word.find('='));
	const auto names = option_names(app);
	return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

std::size_t edit_distance(std::string_view a, std::string_view b)
{
	const std::size_t n = a.size(), m = b.size();
	std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
	for (std::size_t i = 0; i <= n; ++i)
		d[i][0] = i;
	for (std::size_t j = 0; j <= m; ++j)
		d[0][j] = j;
	for (std::size_t i = 1; i <= n; ++i)
		for (std::size_t j = 1; j <= m; ++j) {
			const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
		}
	return d[n][m];
}

std::string closest(std::string_view word, const std::vector<std::string> &candidates)
{
	const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(2, word.size() / 3));
	std::string best;
	std::size_t best_d = limit + 1;
	for (const auto &c : candidates) {
		const std::size_t d = edit_distance(word, c);
		if (d < best_d) {
			best = c;
			best_d = d;
		}
	}
	if (!best.empty())
		return best;
	std::vector<std::string> starts;
	for (const auto &c : candidates)
		if (word.size() >= 2 && c.size() > word.size() && c.compare(0, word.size(), word) == 0)
			starts.push_back(c);
	return starts.size() == 1 ? starts.front() : "";
}

std::vector<std::string> help_to_flag(std::vector<std::string> args)
{
	if (args.empty() || args.front() != "help")
		return args;
	args.erase(args.begin());
	args.emplace_back("--help");
	return args;
}

std::string check_subcommands(const CLI::App &app, const std::vector<std::string> &args)
{
	const CLI::App *cur = &app;
	for (const auto &word : args) {
		if (cur->get_require_subcommand_min() == 0)
			return "";
		if (word == "--")
			break;
		if (!word.empty() && word.front() == '-') {
			if (!is_option_of(*cur, word))
				return unknown_option_line(*cur, word);
			if (word == "--help" || word == "-h" || word == "--version")
				return "";
			continue;
		}
		const CLI::App *next = nullptr;
		for (const CLI::App *s : cur->get_subcommands([](const CLI::App *) { return true; }))
			if (s->check_name(word))
				next = s;
		if (next == nullptr) {
			const std::string guess = closest(word, subcommand_names(*cur));
			return fmt::format("{}: unknown subcommand '{}'{}\nValid subcommands of '{}': {}\n{}",
					   path_of(*cur), word,
					   guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess),
					   path_of(*cur), join(subcommand_names(*cur)), help_trailer(*cur));
		}
		cur = next;
	}
	if (cur->get_require_subcommand_min() > 0)
		return fmt::format("{}: a subcommand is required: {}\n{}", path_of(*cur), join(subcommand_names(*cur)),
				   help_trailer(*cur));
	return "";
}

std::string extras_message(CLI::App &app)
{
	CLI::App *owner = &app;
	for (CLI::App *a = &app;;) {
		if (!a->remaining(false).empty())
			owner = a;
		const auto chosen = a->get_subcommands();
		if (chosen.empty())
			break;
		a = chosen.front();
	}
	std::string out;
	for (const auto &word : owner->remaining(false)) {
		if (!word.empty() && word.front() == '-')
			out += unknown_option(*owner, word);
		else
			out += fmt::format("{}: unexpected argument '{}'\nValid options of '{}': {}\n", path_of(*owner),
					   word, path_of(*owner), option_list(*owner));
	}
	return (out.empty() ? "rdnactl: unexpected arguments\n" : out) + help_trailer(*owner);
}

std::string option_list(const CLI::App &sub)
{
	std::vector<std::string> names;
	for (const CLI::Option *o : sub.get_options()) {
		std::string n;
		for (const auto &l : o->get_lnames())
			n += (n.empty() ? "--" : ", --") + l;
		std::string shorts;
		for (const auto &s : o->get_snames())
			shorts += (shorts.empty() ? "-" : ", -") + s;
		if (n.empty() && shorts.empty())
			continue;
		names.push_back(n.empty() ? shorts : shorts.empty() ? n : n + " (" + shorts + ")");
	}
	return join(names);
}

} // namespace rdnafix::app
