// errno_name / errno_text: glibc's locale-independent names and
// descriptions (strerrorname_np, strerrordesc_np; glibc 2.32 and later).
#include "io/errno_text.hpp"

#include <cstring>

namespace rdnafix::io {

std::string errno_name(int e)
{
	if (const char *n = ::strerrorname_np(e))
		return n;
	return "errno " + std::to_string(e);
}

std::string errno_description(int e)
{
	const char *d = ::strerrordesc_np(e);
	std::string text = d ? d : "unknown error";
	// "No such file or directory" -> "no such ..."; "RPC struct is bad" keeps its capitals.
	if (text.size() > 1 && text[0] >= 'A' && text[0] <= 'Z' && !(text[1] >= 'A' && text[1] <= 'Z'))
		text[0] = char(text[0] - 'A' + 'a');
	return text;
}

std::string errno_text(int e)
{
	return errno_description(e) + " (" + errno_name(e) + ")";
}

} // namespace rdnafix::io
