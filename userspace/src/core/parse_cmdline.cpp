// Kernel command line and module-option tokenizer with the kernel's rules
// (lib/cmdline.c next_arg() and kernel/params.c parse_args(), as documented
// in Documentation/admin-guide/kernel-parameters.rst: double quotes group,
// "--" ends the kernel's arguments, '-' and '_' are equivalent in names).
#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

namespace {

bool kspace(char c)
{
	return detail::is_space(c) || c == '\0';
}

struct RawArg {
	std::string param;
	std::optional<std::string> value;
};

// One argument starting at `pos` (not a space); advances `pos` past it.
RawArg next_arg(std::string_view args, std::size_t &pos)
{
	std::size_t start = pos;
	bool in_quote = false;
	bool quoted = false;
	if (args[start] == '"') {
		++start;
		in_quote = true;
		quoted = true;
	}
	std::size_t i = start;
	std::size_t equals = std::string_view::npos;
	for (; i < args.size(); ++i) {
		if (kspace(args[i]) && !in_quote)
			break;
		// As in the kernel, an '=' in the first position does not split.
		if (equals == std::string_view::npos && args[i] == '=' && i > start)
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	pos = i;
	std::string_view tok = args.substr(start, i - start);
	RawArg out;
	bool strip_end = quoted;
	if (equals != std::string_view::npos) {
		std::size_t eq = equals - start;
		out.param = std::string(tok.substr(0, eq));
		std::string_view val = tok.substr(eq + 1);
		if (!val.empty() && val.front() == '"') {
			val.remove_prefix(1);
			strip_end = true;
		}
		if (strip_end && !val.empty() && val.back() == '"')
			val.remove_suffix(1);
		out.value = std::string(val);
	} else {
		std::string_view p = tok;
		if (strip_end && !p.empty() && p.back() == '"')
			p.remove_suffix(1);
		out.param = std::string(p);
	}
	return out;
}

bool name_eq(std::string_view a, std::string_view b)
{
	if (a.size() != b.size())
		return false;
	for (std::size_t i = 0; i < a.size(); ++i) {
		char x = a[i] == '-' ? '_' : a[i];
		char y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return false;
	}
	return true;
}

// "amdgpu.noretry" -> ("amdgpu", "noretry"); no '.' -> nullopt.
std::optional<std::pair<std::string_view, std::string_view>> split_module(std::string_view param)
{
	auto dot = param.find('.');
	if (dot == std::string_view::npos || dot == 0 || dot + 1 == param.size())
		return std::nullopt;
	return std::make_pair(param.substr(0, dot), param.substr(dot + 1));
}

} // namespace

std::string normalize_module_name(std::string_view name)
{
	std::string out(name);
	for (char &c : out)
		if (c == '-')
			c = '_';
	return out;
}

KernelCmdline parse_kernel_cmdline(std::string_view text)
{
	KernelCmdline out;
	std::size_t pos = 0;
	bool after_dashes = false;
	std::size_t index = 0;
	while (true) {
		while (pos < text.size() && kspace(text[pos]))
			++pos;
		if (pos >= text.size())
			break;
		if (after_dashes) {
			std::size_t start = pos;
			while (pos < text.size() && !kspace(text[pos]))
				++pos;
			out.init_args.emplace_back(text.substr(start, pos - start));
			continue;
		}
		RawArg a = next_arg(text, pos);
		if (!a.value && a.param == "--") {
			after_dashes = true;
			continue;
		}
		out.args.push_back(CmdlineArg{std::move(a.param), std::move(a.value), index++});
	}
	return out;
}

std::optional<CmdlineArg> KernelCmdline::module_param(std::string_view module, std::string_view param) const
{
	std::optional<CmdlineArg> found;
	for (const auto &a : args) {
		auto mp = split_module(a.param);
		if (!mp || !name_eq(mp->first, module) || !name_eq(mp->second, param))
			continue;
		found = a;
		if (!found->value)
			found->value = std::string();
	}
	return found;
}

std::vector<std::pair<std::string, CmdlineArg>> KernelCmdline::module_params(std::string_view module) const
{
	std::vector<std::pair<std::string, CmdlineArg>> out;
	for (const auto &a : args) {
		auto mp = split_module(a.param);
		if (!mp || !name_eq(mp->first, module))
			continue;
		std::string name = normalize_module_name(mp->second);
		CmdlineArg v = a;
		if (!v.value)
			v.value = std::string();
		bool replaced = false;
		for (auto &[n, existing] : out)
			if (n == name) {
				existing = v;
				replaced = true;
			}
		if (!replaced)
			out.emplace_back(std::move(name), std::move(v));
	}
	return out;
}

std::optional<CmdlineArg> KernelCmdline::param(std::string_view name) const
{
	std::optional<CmdlineArg> found;
	for (const auto &a : args)
		if (name_eq(a.param, name))
			found = a;
	return found;
}

std::vector<ModuleParam> split_module_params(std::string_view text)
{
	std::vector<ModuleParam> out;
	std::size_t pos = 0;
	while (true) {
		while (pos < text.size() && kspace(text[pos]))
			++pos;
		if (pos >= text.size())
			break;
		RawArg a = next_arg(text, pos);
		out.push_back(ModuleParam{normalize_module_name(a.param), std::move(a.value)});
	}
	return out;
}

} // namespace rdnafix::core
