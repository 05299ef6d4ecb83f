// Kernel command-line words (config/cmdline_tokens.hpp).
#include "config/cmdline_tokens.hpp"

#include <fmt/format.h>

namespace rdnafix::config::detail {

namespace {

bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool value_char(char c)
{
	return name_char(c) || c == '.' || c == ',' || c == ':' || c == '+' || c == '/' || c == '=';
}

constexpr std::string_view kModules[] = {"amdgpu.", "rdnafix.", "ttm.", "amdttm."};
constexpr std::size_t kMaxWord = 256;

} // namespace

std::string normalize_param(std::string_view param)
{
	std::string out(param);
	for (char &c : out)
		if (c == '-')
			c = '_';
	return out;
}

std::string word_param(std::string_view word)
{
	return normalize_param(word.substr(0, word.find('=')));
}

std::vector<std::string> split_cmdline(std::string_view text)
{
	std::vector<std::string> out;
	std::size_t i = 0;
	while (i < text.size()) {
		while (i < text.size() && blank(text[i]))
			++i;
		std::size_t j = i;
		while (j < text.size() && !blank(text[j]))
			++j;
		if (j > i)
			out.emplace_back(text.substr(i, j - i));
		i = j;
	}
	return out;
}

std::vector<std::string> words_for(std::string_view text, std::string_view param)
{
	std::vector<std::string> out;
	const std::string key = normalize_param(param);
	for (auto &w : split_cmdline(text))
		if (word_param(w) == key)
			out.push_back(std::move(w));
	return out;
}

std::string word_of(const CmdlineChange &c)
{
	return c.value ? fmt::format("{}={}", c.param, *c.value) : std::string();
}

std::string invalid_change(const CmdlineChange &c)
{
	std::string_view p = c.param;
	bool known = false;
	for (std::string_view m : kModules)
		if (p.size() > m.size() && p.substr(0, m.size()) == m) {
			known = true;
			for (char ch : p.substr(m.size()))
				if (!name_char(ch))
					return fmt::format(
						"kernel parameter '{}': the name after '{}' may hold only letters, "
						"digits, '_' and '-'",
						c.param, m);
		}
	if (!known)
		return fmt::format("kernel parameter '{}': only amdgpu.*, rdnafix.*, ttm.* and amdttm.* parameters are "
				   "managed (e.g. amdgpu.noretry)",
				   c.param);
	if (c.value) {
		if (c.value->empty())
			return fmt::format(
				"kernel parameter '{}': the value is empty; give one, or remove the parameter",
				c.param);
		for (char ch : *c.value)
			if (!value_char(ch))
				return fmt::format(
					"kernel parameter '{}={}': a value may hold only letters, digits and "
					"_ - . , : + / = (no spaces or quotes)",
					c.param, *c.value);
	}
	if (c.param.size() + (c.value ? c.value->size() + 1 : 0) > kMaxWord)
		return fmt::format("kernel parameter '{}': longer than {} characters", c.param, kMaxWord);
	return {};
}

std::string invalid_changes(const std::vector<CmdlineChange> &all)
{
	for (std::size_t i = 0; i < all.size(); ++i) {
		if (auto why = invalid_change(all[i]); !why.empty())
			return why;
		for (std::size_t j = 0; j < i; ++j)
			if (normalize_param(all[j].param) == normalize_param(all[i].param))
				return fmt::format("kernel parameter '{}' is given twice", all[i].param);
	}
	return {};
}

std::string edit_cmdline(std::string_view text, const std::vector<CmdlineChange> &changes)
{
	std::vector<std::string> words = split_cmdline(text);
	for (const auto &c : changes) {
		const std::string key = normalize_param(c.param);
		std::vector<std::string> kept;
		std::optional<std::size_t> first;
		for (auto &w : words) {
			if (word_param(w) == key) {
				if (!first)
					first = kept.size();
				continue;
			}
			kept.push_back(std::move(w));
		}
		if (c.value) {
			std::size_t at = first.value_or(kept.size());
			kept.insert(kept.begin() + static_cast<std::ptrdiff_t>(at), word_of(c));
		}
		words = std::move(kept);
	}
	std::string out;
	for (const auto &w : words) {
		if (!out.empty())
			out += ' ';
		out += w;
	}
	return out;
}

WordEdit edit_words(std::string_view text, const std::vector<CmdlineChange> &changes)
{
	WordEdit e;
	for (const auto &c : changes) {
		const std::string want = word_of(c);
		bool present = false;
		for (auto &w : words_for(text, c.param)) {
			if (w == want)
				present = true;
			else
				e.remove.push_back(std::move(w));
		}
		if (c.value && !present)
			e.add.push_back(want);
	}
	return e;
}

} // namespace rdnafix::config::detail
