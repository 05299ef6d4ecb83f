// Fuzz target: the text shaping of the terminal output and the report's
// anonymizer (core/text_wrap.hpp, core/anonymize.hpp).  The first input byte
// picks a width (0..79), the first line names personal values (user, home,
// host, serial, separated by tabs), the rest is the text.  Invariants: no
// wrapped line is wider than the width (width > 0); head + sep + rest of a
// split headline give the sentence back; anonymizing twice and the environ
// check never crash.  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "core/anonymize.hpp"
#include "core/parse.hpp"
#include "core/text_wrap.hpp"
#include "fuzz.hpp"

#include <string>
#include <vector>

using namespace rdnafix;

namespace {

std::vector<std::string_view> fields(std::string_view line)
{
	std::vector<std::string_view> out;
	while (true) {
		const auto tab = line.find('\t');
		out.push_back(line.substr(0, tab));
		if (tab == std::string_view::npos)
			return out;
		line.remove_prefix(tab + 1);
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	if (size == 0)
		return 0;
	const std::size_t width = data[0] % 80;
	const auto in = fuzz::text(data + 1, size - 1);
	const auto nl = in.find('\n');
	const auto head = in.substr(0, nl);
	const auto body = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);

	const std::string wrapped = core::wrap_text(body, width, data[0] % 7);
	if (width > 0) {
		std::size_t start = 0;
		while (start <= wrapped.size()) {
			auto end = wrapped.find('\n', start);
			if (end == std::string::npos)
				end = wrapped.size();
			fuzz::check(core::display_width(std::string_view(wrapped).substr(start, end - start)) <= width,
				    "a wrapped line is wider than the width");
			start = end + 1;
		}
	} else {
		fuzz::check(wrapped == body, "width 0 changed the text");
	}
	(void)core::strip_citations(body);
	const auto [h, rest] = core::split_headline(body);
	fuzz::check(body.starts_with(h) && body.ends_with(rest) && h.size() + rest.size() <= body.size(),
		    "split_headline lost or invented text");

	const auto f = fields(head);
	core::Anonymizer a;
	a.add_user(f.size() > 0 ? f[0] : "", f.size() > 1 ? f[1] : "");
	if (f.size() > 2)
		a.add_host(f[2]);
	if (f.size() > 3)
		a.add_serial(f[3]);
	const std::string once = a.apply(body);
	(void)a.apply(once);
	(void)core::is_environ_block(body);
	return 0;
}
