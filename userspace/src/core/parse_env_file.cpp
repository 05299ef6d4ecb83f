// The --env FILE parser: KEY=VALUE files and the shell start-up files users
// copy variables into (~/.bashrc, ~/.profile, launcher scripts).  A small
// POSIX-shell word splitter: quotes, escapes, $(...), `...`, comments,
// ';' '&&' '||' '|' '&' separators and line continuations.  Assignments are
// taken in file order whatever the surrounding `if`/function (conditions are
// not evaluated); commands, aliases, `source`, `set -x` are skipped silently.
#include <fmt/format.h>

#include <map>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

namespace {

bool name_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view n)
{
	if (n.empty() || !name_char(n[0], true))
		return false;
	for (char c : n)
		if (!name_char(c, false))
			return false;
	return true;
}

// One shell word, raw (quotes kept), with the line it starts on.
struct Word {
	std::string raw;
	unsigned line = 0;
	bool unterminated = false; // a quote or $( that never closes: the rest of the file is in it
};
using Command = std::vector<Word>;

bool separator(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n';
}

// Splits the text into simple commands.
std::vector<Command> split_commands(std::string_view t)
{
	std::vector<Command> out;
	Command cur;
	unsigned line = 1;
	std::size_t i = 0;
	auto end_command = [&] {
		if (!cur.empty())
			out.push_back(std::move(cur));
		cur.clear();
	};
	while (i < t.size()) {
		char c = t[i];
		if (c == ' ' || c == '\t' || c == '\r') {
			++i;
		} else if (c == '\\' && i + 1 < t.size() && t[i + 1] == '\n') {
			i += 2;
			++line;
		} else if (c == '#') {
			while (i < t.size() && t[i] != '\n')
				++i;
		} else if (separator(c)) {
			if (c == '\n')
				++line;
			end_command();
			++i;
		} else {
			Word w;
			w.line = line;
			int paren = 0; // $( ... ) depth
			while (i < t.size()) {
				c = t[i];
				if (paren == 0 && (c == ' ' || c == '\t' || c == '\r' || separator(c)))
					break;
				if (c == '\\' && i + 1 < t.size()) {
					if (t[i + 1] == '\n') {
						i += 2;
						++line;
						continue;
					}
					w.raw.append(t.substr(i, 2));
					i += 2;
					continue;
				}
				if (c == '\'' || c == '"' || c == '`') {
					std::size_t j = i + 1;
					while (j < t.size() && t[j] != c) {
						if (c != '\'' && t[j] == '\\' && j + 1 < t.size())
							++j;
						++j;
					}
					if (j >= t.size()) {
						w.unterminated = true;
						j = t.size() - 1;
					}
					for (std::size_t k = i; k <= j; ++k)
						line += t[k] == '\n';
					w.raw.append(t.substr(i, j - i + 1));
					i = j + 1;
					continue;
				}
				if (c == '$' && i + 1 < t.size() && t[i + 1] == '(') {
					++paren;
					w.raw.append("$(");
					i += 2;
					continue;
				}
				if (paren > 0 && c == ')')
					--paren;
				if (c == '\n')
					++line;
				w.raw.push_back(c);
				++i;
			}
			if (paren > 0)
				w.unterminated = true;
			cur.push_back(std::move(w));
		}
	}
	end_command();
	return out;
}

bool is_keyword(std::string_view w)
{
	for (std::string_view k : {"if", "then", "else", "elif", "fi", "do", "done", "while",    "until", "for",
				   "in", "case", "esac", "{",    "}",  "!",  "time", "function", "[[",    "]]"})
		if (w == k)
			return true;
	return false;
}

// "NAME=..." -> NAME, else "".
std::string_view assignment_name(std::string_view w)
{
	std::size_t eq = w.find('=');
	if (eq == std::string_view::npos || eq == 0)
		return {};
	std::string_view n = w.substr(0, eq);
	if (n.back() == '+') // NAME+=value
		n.remove_suffix(1);
	return valid_name(n) ? n : std::string_view{};
}

// The end (one past the ')') of the $( ... ) starting at i, or npos.
std::size_t substitution_end(std::string_view v, std::size_t i)
{
	int depth = 0;
	for (std::size_t k = i; k < v.size(); ++k) {
		if (v[k] == '(')
			++depth;
		else if (v[k] == ')' && --depth == 0)
			return k + 1;
	}
	return std::string_view::npos;
}

// Removes the quoting of a raw word (the value side of an assignment); a
// command substitution $( ... ) is kept as written (it is not run).
Result<std::string> unquote(std::string_view v)
{
	std::string out;
	std::size_t i = 0;
	bool unmatched = false; // after one unmatched $( no later one is tried: linear time on any input
	auto substitution = [&](std::size_t at) {
		if (unmatched || v[at] != '$' || at + 1 >= v.size() || v[at + 1] != '(')
			return false;
		std::size_t end = substitution_end(v, at + 1);
		if (end == std::string_view::npos) {
			unmatched = true;
			return false;
		}
		out.append(v.substr(at, end - at));
		i = end;
		return true;
	};
	while (i < v.size()) {
		char c = v[i];
		if (substitution(i))
			continue;
		if (c == '\'') {
			std::size_t end = v.find('\'', i + 1);
			if (end == std::string_view::npos)
				return Error{"unterminated single quote"};
			out.append(v.substr(i + 1, end - i - 1));
			i = end + 1;
		} else if (c == '"') {
			++i;
			bool closed = false;
			while (i < v.size()) {
				if (substitution(i))
					continue;
				char d = v[i];
				if (d == '"') {
					closed = true;
					++i;
					break;
				}
				if (d == '\\' && i + 1 < v.size() &&
				    (v[i + 1] == '"' || v[i + 1] == '\\' || v[i + 1] == '$' || v[i + 1] == '`')) {
					out.push_back(v[i + 1]);
					i += 2;
					continue;
				}
				out.push_back(d);
				++i;
			}
			if (!closed)
				return Error{"unterminated double quote"};
		} else if (c == '\\' && i + 1 < v.size()) {
			out.push_back(v[i + 1]);
			i += 2;
		} else {
			out.push_back(c);
			++i;
		}
	}
	return out;
}

// A word that starts a command (a program, a path, a shell builtin) rather
// than the rest of a value that lost its quotes.
bool looks_like_command(std::string_view w)
{
	if (w.empty() || w.find_first_of(":,=") != std::string_view::npos)
		return false;
	char c = w.front();
	return name_char(c, true) || c == '/' || c == '.' || c == '~' || c == '$' || c == '"' || c == '\'';
}

class Parser {
public:
	Parser(Environment &env, const EnvRelevance &relevant) : env_(env), relevant_(relevant) {}

	void command(const Command &words)
	{
		std::size_t i = 0;
		while (i < words.size() && is_keyword(words[i].raw))
			++i;
		// Leading assignments: the shell's own (NAME=v) or a command's (NAME=v cmd).
		std::string last_relevant;
		while (i < words.size() && !assignment_name(words[i].raw).empty()) {
			if (assign(words[i]))
				last_relevant = std::string(assignment_name(words[i].raw));
			++i;
		}
		if (i >= words.size())
			return;
		const Word &w = words[i];
		if (!last_relevant.empty() && !looks_like_command(w.raw)) {
			problem(w.line,
				fmt::format("{}: the value ends at the space before '{}' (the shell runs '{}' as a "
					    "command); quote the whole value: {}=\"...\"",
					    last_relevant, detail::shown(w.raw, 30), detail::shown(w.raw, 30),
					    last_relevant));
			return;
		}
		if (i + 1 < words.size() && valid_name(w.raw) && !words[i + 1].raw.empty() &&
		    words[i + 1].raw.front() == '=') {
			if (relevant(w.raw))
				problem(w.line,
					fmt::format("{}: spaces around '=' (the shell runs a command named {}); "
						    "write {}=VALUE",
						    w.raw, w.raw, w.raw));
			return;
		}
		if (w.raw == "export" || w.raw == "declare" || w.raw == "typeset" || w.raw == "readonly")
			declaration(words, i + 1);
		else if (w.raw == "env")
			for (std::size_t k = i + 1; k < words.size() && !assignment_name(words[k].raw).empty(); ++k)
				assign(words[k]);
		else if (w.raw == "unset")
			for (std::size_t k = i + 1; k < words.size(); ++k) {
				if (valid_name(words[k].raw))
					push(EnvVar{words[k].raw, "", words[k].line, true});
			}
		else if (w.raw == "set")
			fish_set(words, i + 1);
		// Anything else (a program, alias, source, a function definition) sets nothing.
	}

	void unterminated(const Word &w)
	{
		env_.problems.push_back(fmt::format("line {}: unterminated quote or $( in '{}': the shell reads the "
						    "rest of the file into it",
						    w.line, detail::shown(w.raw, 40)));
	}

private:
	bool relevant(std::string_view name) const { return !relevant_ || relevant_(name); }

	void problem(unsigned line, const std::string &what)
	{
		env_.problems.push_back(fmt::format("line {}: {}", line, what));
	}

	// Records NAME=VALUE; true when NAME is relevant and the value parsed.
	bool assign(const Word &w)
	{
		std::string_view name = assignment_name(w.raw);
		const bool append = w.raw[name.size()] == '+';
		std::string_view rest = std::string_view(w.raw).substr(name.size() + (append ? 2 : 1));
		auto value = unquote(rest);
		if (!value) {
			if (relevant(name))
				problem(w.line, fmt::format("{}: {}", name, value.error().message));
			return false;
		}
		std::string v = std::move(value).value();
		if (append) {
			// NAME+=VALUE extends the last assignment in place (linear time and
			// memory however many appends a file has).
			auto last = last_.find(std::string(name));
			if (last != last_.end() && !env_.vars[last->second].unset) {
				env_.vars[last->second].value += v;
				return relevant(name);
			}
		}
		push(EnvVar{std::string(name), std::move(v), w.line});
		return relevant(name);
	}

	// export/declare/typeset/readonly [-options] NAME[=VALUE]...
	void declaration(const Command &words, std::size_t i)
	{
		std::string last_relevant;
		for (; i < words.size(); ++i) {
			const Word &w = words[i];
			if (w.raw.empty() || w.raw.front() == '-')
				continue;
			if (!assignment_name(w.raw).empty()) {
				last_relevant = assign(w) ? std::string(assignment_name(w.raw)) : "";
				continue;
			}
			if (valid_name(w.raw)) {
				// export NAME = VALUE
				if (i + 1 < words.size() && !words[i + 1].raw.empty() &&
				    words[i + 1].raw.front() == '=' && relevant(w.raw)) {
					problem(w.line,
						fmt::format("{}: spaces around '=' (export sees the name, '=' and the "
							    "value as three words); write export {}=VALUE",
							    w.raw, w.raw));
					return;
				}
				last_relevant.clear();
				continue; // export of a variable set elsewhere
			}
			if (!last_relevant.empty())
				problem(w.line,
					fmt::format("{}: the value ends at the space before '{}' (export takes it as "
						    "another name); quote the whole value: export {}=\"...\"",
						    last_relevant, detail::shown(w.raw, 30), last_relevant));
			return;
		}
	}

	// fish: set -gx NAME VALUE...  (bash's `set -x` alone turns on tracing).
	void fish_set(const Command &words, std::size_t i)
	{
		bool exported = false;
		for (; i < words.size() && !words[i].raw.empty() && words[i].raw.front() == '-'; ++i) {
			const std::string &o = words[i].raw;
			if (o == "--export" || (o.size() > 1 && o[1] != '-' && o.find('x') != std::string::npos))
				exported = true;
		}
		if (!exported || i + 1 >= words.size() || !valid_name(words[i].raw))
			return;
		std::string value;
		for (std::size_t k = i + 1; k < words.size(); ++k) {
			auto v = unquote(words[k].raw);
			if (!v)
				return;
			value += (value.empty() ? "" : " ") + *v;
		}
		push(EnvVar{words[i].raw, value, words[i].line});
	}

	void push(EnvVar v)
	{
		last_[v.name] = env_.vars.size();
		env_.vars.push_back(std::move(v));
	}

	Environment &env_;
	const EnvRelevance &relevant_;
	std::map<std::string, std::size_t> last_; // name -> index of its last record in env_.vars
};

} // namespace

Environment parse_env_file(std::string_view text, const EnvRelevance &relevant)
{
	Environment env;
	env.last_wins = true;
	Parser p(env, relevant);
	for (const Command &c : split_commands(text)) {
		for (const Word &w : c)
			if (w.unterminated) {
				p.unterminated(w);
				return env;
			}
		p.command(c);
	}
	return env;
}

Environment parse_env_file(std::string_view text)
{
	return parse_env_file(text, EnvRelevance{});
}

} // namespace rdnafix::core
