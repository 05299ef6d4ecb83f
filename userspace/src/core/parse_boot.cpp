// Shell-assignment files (os-release, /etc/default/grub).
#include "core/parse_boot.hpp"

#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <fmt/format.h>

namespace rdnafix::core {

namespace {

bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

// The index just past a command substitution starting at v[i] ("`...`" or
// "$(...)", nested parentheses counted), or npos when it is not closed.
std::size_t skip_substitution(std::string_view v, std::size_t i)
{
	if (v[i] == '`') {
		std::size_t e = v.find('`', i + 1);
		return e == std::string_view::npos ? e : e + 1;
	}
	int depth = 0;
	for (std::size_t k = i + 1; k < v.size(); ++k) {
		if (v[k] == '(')
			++depth;
		else if (v[k] == ')' && --depth == 0)
			return k + 1;
	}
	return std::string_view::npos;
}

// Unquotes the value `v` (everything after '=' up to an unquoted comment or the
// end).  Returns false on an unterminated quote.
bool unquote(std::string_view v, std::string &out, std::string &raw, bool &expands)
{
	std::size_t i = 0;
	char quote = 0;
	for (; i < v.size(); ++i) {
		char c = v[i];
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else
				out += c;
			continue;
		}
		if (c == '`' || (c == '$' && i + 1 < v.size() && v[i + 1] == '(')) {
			// a command substitution is kept as written
			std::size_t e = skip_substitution(v, i);
			if (e == std::string_view::npos)
				return false;
			out.append(v.substr(i, e - i));
			expands = true;
			i = e - 1;
			continue;
		}
		if (quote == '"') {
			if (c == '"') {
				quote = 0;
			} else if (c == '\\' && i + 1 < v.size() &&
				   (v[i + 1] == '"' || v[i + 1] == '\\' || v[i + 1] == '$' || v[i + 1] == '`')) {
				out += v[++i];
			} else {
				if (c == '$' || c == '`')
					expands = true;
				out += c;
			}
			continue;
		}
		if (c == ' ' || c == '\t') {
			// the end of the word: the rest must be a comment or blank
			std::string_view rest = trim(v.substr(i));
			if (!rest.empty() && rest[0] != '#' && rest[0] != ';')
				return false;
			break;
		}
		if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '\\' && i + 1 < v.size()) {
			out += v[++i];
		} else {
			if (c == '$' || c == '`')
				expands = true;
			out += c;
		}
	}
	raw = std::string(trim(v.substr(0, i)));
	return quote == 0;
}

} // namespace

ShellAssignments parse_shell_assignments(std::string_view text)
{
	ShellAssignments out;
	unsigned lineno = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++lineno;
		std::string_view l = trim(line);
		if (l.empty() || l[0] == '#')
			continue;
		if (l.substr(0, 7) == "export ")
			l = trim(l.substr(7));
		std::size_t n = 0;
		while (n < l.size() && name_char(l[n], n == 0))
			++n;
		if (n == 0 || n >= l.size() || l[n] != '=') {
			out.problems.push_back(fmt::format("line {}: not a NAME=value assignment", lineno));
			continue;
		}
		ShellAssignment a;
		a.name = std::string(l.substr(0, n));
		a.line = lineno;
		if (!unquote(l.substr(n + 1), a.value, a.raw, a.expands)) {
			out.problems.push_back(
				fmt::format("line {}: {}: unterminated quote or more than one word", lineno, a.name));
			continue;
		}
		if (a.expands) {
			std::string self = "$" + a.name, self_braced = "${" + a.name + "}";
			a.appends_self = a.value.find(self_braced) != std::string::npos ||
					 (a.value.find(self) != std::string::npos &&
					  (a.value.size() == a.value.find(self) + self.size() ||
					   !name_char(a.value[a.value.find(self) + self.size()], false)));
		}
		out.assignments.push_back(std::move(a));
	}
	return out;
}

OsRelease parse_os_release(std::string_view text)
{
	OsRelease r;
	for (const auto &a : parse_shell_assignments(text).assignments) {
		if (a.name == "ID")
			r.id = a.value;
		else if (a.name == "ID_LIKE")
			r.id_like = a.value;
		else if (a.name == "VERSION_ID")
			r.version_id = a.value;
		else if (a.name == "VARIANT_ID")
			r.variant_id = a.value;
		else if (a.name == "PRETTY_NAME")
			r.pretty_name = a.value;
		else if (a.name == "VERSION_CODENAME")
			r.version_codename = a.value;
	}
	return r;
}

} // namespace rdnafix::core
