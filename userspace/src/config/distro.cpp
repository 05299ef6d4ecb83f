// Distribution families (config/distro.hpp).
#include "config/distro.hpp"

#include "core/text_util.hpp"

#include <fmt/format.h>

namespace rdnafix::config::detail {

bool os_is(const core::OsRelease &os, std::string_view family)
{
	if (os.id == family)
		return true;
	for (auto w : core::detail::split_words(os.id_like))
		if (w == family)
			return true;
	return false;
}

bool debian_like(const core::OsRelease &os)
{
	return os_is(os, "debian") || os_is(os, "ubuntu");
}

bool fedora_like(const core::OsRelease &os)
{
	return os_is(os, "fedora") || os_is(os, "rhel") || os_is(os, "centos");
}

std::string kernel_image(const core::OsRelease &os, std::string_view rel)
{
	return debian_like(os) ? fmt::format("/boot/vmlinuz-{}", rel) : fmt::format("/lib/modules/{}/vmlinuz", rel);
}

std::string os_name(const core::OsRelease &os)
{
	if (!os.pretty_name.empty())
		return os.pretty_name;
	return os.id.empty() ? std::string("this system") : os.id;
}

} // namespace rdnafix::config::detail
