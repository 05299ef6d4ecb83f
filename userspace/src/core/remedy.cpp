// The spelling of RemedyKind, and the kind of a Remedy.
#include "core/remedy.hpp"

namespace rdnafix::core {

RemedyKind kind_of(const Remedy &r)
{
	// The alternatives of Remedy in declaration order.
	static_assert(std::variant_size_v<Remedy> == 8);
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
	}
	return "none";
}

} // namespace rdnafix::core
