// The installed documentation covers the catalogue: rdnactl's --help points
// users to rdnactl(1) CHECKS (installed), not to docs/ (not installed).
#include "model.hpp"
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <string_view>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("the man page's CHECKS section lists exactly the catalogue, with severities and titles", "[findings]")
{
	std::string man = rdnafix::test::read_file(std::string(RDNAFIX_FIXTURES) + "/../../userspace/man/rdnactl.1");
	const auto start = man.find(".SH CHECKS\n");
	REQUIRE(start != std::string::npos);
	const auto end = man.find("\n.SH ", start + 1);
	const std::string sec = man.substr(start, end + 1 - start); // with the last entry's newline
	auto roff = [](std::string_view t) {
		std::string o;
		for (char ch : t) {
			if (ch == '-' || ch == '\\')
				o += '\\';
			o += ch;
		}
		return o;
	};
	std::size_t listed = 0;
	for (auto p = sec.find(".BR RDNA"); p != std::string::npos; p = sec.find(".BR RDNA", p + 1))
		++listed;
	CHECK(listed == catalogue().size());
	for (const auto &c : catalogue()) {
		INFO(c.id);
		const std::string entry = ".TP\n.BR " + roff(c.id) + " \" (" + std::string(severity_name(c.severity)) +
					  ")\"\n" + roff(c.title) + "\n";
		CHECK_THAT(sec, ContainsSubstring(entry));
	}
}
