// Captured machines (tests/fixtures/<machine>/): the real binary's JSON is
// compared field by field with the reviewed golden expected.json, and the text
// output must contain every line of expected.txt.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;
using rdnafix::test::json_diff;
using rdnafix::test::read_file;
using rdnafix::test::run_rdnactl;

namespace {

std::vector<std::string> fixture_args(const fs::path &dir, bool json)
{
	std::vector<std::string> a{"status", "--root", (dir / "root").string()};
	if (fs::exists(dir / "env"))
		a.insert(a.end(), {"--env", (dir / "env").string()});
	std::istringstream in(read_file(dir / "args"));
	std::string w;
	while (in >> w)
		a.push_back(w);
	if (json)
		a.push_back("--json");
	else
		a.insert(a.end(), {"--color", "never"});
	return a;
}

std::vector<fs::path> fixtures_with_goldens()
{
	std::vector<fs::path> out;
	for (const auto &e : fs::directory_iterator(RDNAFIX_FIXTURES))
		if (e.is_directory() && fs::exists(e.path() / "root")) {
			if (fs::exists(e.path() / "expected.json"))
				out.push_back(e.path());
			else
				WARN("fixture " << e.path().filename().string()
						<< " has no expected.json yet: generate it with rdnactl status --json and "
						   "review every field against SOURCE.md");
		}
	std::sort(out.begin(), out.end());
	return out;
}

} // namespace

TEST_CASE("fixture goldens: JSON field by field", "[fixtures]")
{
	auto dirs = fixtures_with_goldens();
	REQUIRE(dirs.size() >= 3);
	for (const auto &dir : dirs) {
		DYNAMIC_SECTION(dir.filename().string())
		{
			auto r = run_rdnactl(fixture_args(dir, true));
			INFO(r.err);
			auto actual = nlohmann::json::parse(r.out);
			auto expected = nlohmann::json::parse(read_file(dir / "expected.json"));
			auto d = json_diff(expected, actual,
					   {"/root", "/rdnactl_version", "/environment/source"});
			for (const auto &x : d)
				UNSCOPED_INFO(x);
			CHECK(d.empty());
			CHECK(r.exit_code == expected.at("exit_code").get<int>());
		}
	}
}

TEST_CASE("fixture goldens: key text lines", "[fixtures]")
{
	for (const auto &dir : fixtures_with_goldens()) {
		if (!fs::exists(dir / "expected.txt"))
			continue;
		DYNAMIC_SECTION(dir.filename().string())
		{
			auto r = run_rdnactl(fixture_args(dir, false));
			CHECK(r.out.find("\033[") == std::string::npos); // --color never
			std::istringstream in(read_file(dir / "expected.txt"));
			std::string line;
			int n = 0;
			while (std::getline(in, line)) {
				if (line.empty() || line[0] == '#')
					continue;
				++n;
				INFO("expected line: " << line);
				CHECK(r.out.find(line) != std::string::npos);
			}
			CHECK(n > 0);
		}
	}
}
