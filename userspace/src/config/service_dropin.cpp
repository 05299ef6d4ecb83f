// The validate.user drop-in of rdnafix-validate.service (service_dropin.hpp).
#include "config/service_dropin.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

// The lines of `text` without their newline.
std::vector<std::string_view> lines_of(std::string_view text)
{
	std::vector<std::string_view> out;
	while (!text.empty()) {
		const std::size_t nl = text.find('\n');
		out.push_back(text.substr(0, nl));
		text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
	}
	return out;
}

std::vector<std::string> words(std::string_view s)
{
	std::vector<std::string> out;
	std::size_t i = 0;
	while (i < s.size()) {
		const std::size_t b = s.find_first_not_of(" \t", i);
		if (b == std::string_view::npos)
			break;
		const std::size_t e = s.find_first_of(" \t", b);
		out.emplace_back(s.substr(b, e == std::string_view::npos ? e : e - b));
		i = e == std::string_view::npos ? s.size() : e;
	}
	return out;
}

bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       c == '-';
}

} // namespace

ValidateDropin parse_validate_dropin(std::string_view text)
{
	ValidateDropin d;
	unsigned n = 0;
	bool in_service = false;
	for (const auto raw : lines_of(text)) {
		++n;
		const std::string_view l = trim(raw);
		if (l.empty() || l == kOwnedHeader || l == kOwnedUndoLine)
			continue;
		if (l.front() == '#' || l.front() == ';') {
			d.comments.push_back({n, std::string(l)});
			continue;
		}
		if (l.front() == '[') { // a section: only [Service] is rdnactl's
			in_service = l == "[Service]";
			if (!in_service)
				d.foreign.push_back({n, std::string(l)});
			continue;
		}
		const std::size_t eq = l.find('=');
		const std::string_view key = eq == std::string_view::npos ? l : trim(l.substr(0, eq));
		const std::string_view value =
			eq == std::string_view::npos ? std::string_view{} : trim(l.substr(eq + 1));
		if (in_service && key == "User" && !value.empty() &&
		    value.find_first_of(" \t") == std::string_view::npos)
			d.user = std::string(value);
		else if (in_service && key == "SupplementaryGroups")
			d.groups = words(value);
		else
			d.foreign.push_back({n, std::string(l)});
	}
	return d;
}

std::optional<std::string> render_validate_dropin(const std::optional<std::string> &user,
						  const std::vector<std::string> &groups)
{
	if (!user)
		return std::nullopt;
	std::string out = fmt::format("{}\n{}\n[Service]\nUser={}\n", kOwnedHeader, kOwnedUndoLine, *user);
	if (!groups.empty()) {
		out += "SupplementaryGroups=";
		for (std::size_t i = 0; i < groups.size(); ++i)
			out += (i ? " " : "") + groups[i];
		out += "\n";
	}
	return out;
}

std::optional<std::string> check_validate_user(std::string_view name, std::string_view passwd, std::string_view where)
{
	const bool syntax = !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), name_char) &&
			    name.front() != '-' && !(name.front() >= '0' && name.front() <= '9');
	if (!syntax)
		return fmt::format("invalid value '{}' for validate.user: a user name (letters, digits, _ . -; not "
				   "starting with - or a digit; at most 32 characters), e.g. validate.user=alice",
				   name);
	for (const auto line : lines_of(passwd)) {
		// name:password:uid:gid:gecos:home:shell
		const std::size_t c1 = line.find(':');
		if (c1 == std::string_view::npos || line.substr(0, c1) != name)
			continue;
		const std::size_t c2 = line.find(':', c1 + 1);
		const std::size_t c3 = c2 == std::string_view::npos ? c2 : line.find(':', c2 + 1);
		long uid = -1;
		if (c3 != std::string_view::npos) {
			const auto f = line.substr(c2 + 1, c3 - c2 - 1);
			if (std::from_chars(f.data(), f.data() + f.size(), uid).ec != std::errc())
				uid = -1;
		}
		if (uid == 0)
			return fmt::format("validate.user={}: {} has uid 0 (root); the validation runs GPU code and "
					   "should run as the user who does the GPU work, e.g. validate.user=alice",
					   name, name);
		if (uid == 65534 || name == "nobody")
			return fmt::format("validate.user={}: {} owns nothing and is in no device group; name the "
					   "user who does the GPU work, e.g. validate.user=alice",
					   name, name);
		if (uid < 0)
			return fmt::format("validate.user={}: the line of {} in {} has no numeric uid", name, name,
					   where);
		return std::nullopt;
	}
	return fmt::format("validate.user={}: no user '{}' in {} (create the user first, or name one listed "
			   "there; users only a directory service such as LDAP knows are not accepted)",
			   name, name, where);
}

std::vector<std::string> device_groups(std::string_view group)
{
	std::vector<std::string> out;
	for (const std::string_view want : {"render", "video"})
		for (const auto line : lines_of(group))
			if (line.substr(0, line.find(':')) == want && line.find(':') != std::string_view::npos) {
				out.emplace_back(want);
				break;
			}
	return out;
}

std::string validate_dropin_note(bool user_set)
{
	if (user_set)
		return fmt::format("systemd reads the drop-in at 'systemctl daemon-reload'; then {} validates at "
				   "every boot where the GPU stack changed ('systemctl start {}' now, and 'systemctl "
				   "start rdnafix-validate.path' to follow package changes before the next boot)",
				   kValidateUnit, kValidateUnit);
	return fmt::format("systemd reads the change at 'systemctl daemon-reload'; without the drop-in {} no "
			   "longer starts",
			   kValidateUnit);
}

} // namespace rdnafix::config
