// The spelling of RemedyKind, and the kind of a Remedy.
#include "core/remedy.hpp"

namespace rdnafix::core {

std::string shell_word(std::string_view s)
{
	auto plain = [](char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       std::string_view("._-+@%/:=,").find(c) != std::string_view::npos;
	};
	bool safe = !s.empty() && s.front() != '-';
	for (char c : s)
		safe = safe && plain(c);
	if (safe)
		return std::string(s);
	std::string out = "'";
	for (char c : s)
		out += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return out + "'";
}

RemedyKind kind_of(const Remedy &r)
{
	// The alternatives of Remedy in declaration order.
	static_assert(std::variant_size_v<Remedy> == 9);
	return static_cast<RemedyKind>(r.index());
}

std::string_view to_string(RemedyKind k)
{
	switch (k) {
	case RemedyKind::none:
		return "none";
	case RemedyKind::set_env:
		return "set_env";
	case RemedyKind::unset_env:
		return "unset_env";
	case RemedyKind::module_option:
		return "module_option";
	case RemedyKind::kernel_param:
		return "kernel_param";
	case RemedyKind::join_group:
		return "join_group";
	case RemedyKind::install_package:
		return "install_package";
	case RemedyKind::bios_setting:
		return "bios_setting";
	case RemedyKind::container_option:
		return "container_option";
	}
	return "none";
}

} // namespace rdnafix::core
