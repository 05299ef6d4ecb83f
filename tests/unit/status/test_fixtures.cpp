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
	else // expected.txt holds lines of every section: the facts --verbose prints
		a.insert(a.end(), {"--color", "never", "--verbose"});
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
				WARN("fixture "
				     << e.path().filename().string()
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
			auto d = json_diff(expected, actual, {"/root", "/rdnactl_version", "/environment/source"});
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

TEST_CASE("fixture reports: the summary first, one line per finding", "[fixtures]")
{
	for (const auto &dir : fixtures_with_goldens()) {
		DYNAMIC_SECTION(dir.filename().string())
		{
			auto a = fixture_args(dir, true);
			const auto j = nlohmann::json::parse(run_rdnactl(a).out);
			a.back() = "--color";
			a.push_back("never");
			const auto r = run_rdnactl(a);
			std::istringstream in(r.out);
			std::vector<std::string> lines;
			for (std::string l; std::getline(in, l);)
				lines.push_back(l);
			const auto &fs = j.at("findings");
			REQUIRE(lines.size() > fs.size() + 3);
			// Line 3: the count; then one line per finding, in order: severity, id, subject.
			CHECK(lines[2].find(fs.empty() ? "No findings" : "Findings: ") == 0);
			for (size_t i = 0; i < fs.size(); ++i) {
				const auto &f = fs[i];
				const std::string subject = f.at("subject").get<std::string>();
				const std::string want = "  [" + f.at("severity").get<std::string>() + "] " +
							 f.at("id").get<std::string>() +
							 (subject.empty() ? "" : " " + subject) + ": ";
				INFO(lines[3 + i]);
				CHECK(lines[3 + i].rfind(want, 0) == 0);
			}
			CHECK(lines[3 + fs.size()].empty());
			CHECK(r.exit_code == j.at("exit_code").get<int>());
		}
	}
}

TEST_CASE("rdnactl env on fixture machines", "[fixtures][env]")
{
	auto env_of = [](const std::string &m, const std::string &shell) {
		fs::path dir = fs::path(RDNAFIX_FIXTURES) / m;
		std::vector<std::string> a{
			"env", "--shell", shell, "--root", (dir / "root").string(), "--env", (dir / "env").string()};
		return run_rdnactl(a);
	};
	auto r = env_of("rx6750xt-raphael", "sh");
	CHECK(r.exit_code == 0);
	CHECK(r.out.find("export HSA_OVERRIDE_GFX_VERSION='10.3.0'\n") != std::string::npos);
	CHECK(r.out.find("unset HIP_VISIBLE_DEVICES\n") != std::string::npos);
	CHECK(r.out.find("export ROCR_VISIBLE_DEVICES='0'\n") != std::string::npos);
	// Every command line is preceded by a one-line comment.
	std::istringstream in(r.out);
	std::string prev, line;
	while (std::getline(in, line)) {
		if (line.rfind("export ", 0) == 0 || line.rfind("unset ", 0) == 0)
			CHECK(prev.rfind("# ", 0) == 0);
		prev = line;
	}
	auto fish = env_of("rx5600xt-k614", "fish");
	CHECK(fish.out.find("set -e HSA_OVERRIDE_GFX_VERSION\n") != std::string::npos);
	auto none = env_of("no-amd-gpu", "sh");
	CHECK(none.exit_code == 0);
	CHECK(none.out == "# rdnactl env: nothing to set for this machine\n");
	auto strix = env_of("strix-halo", "sh");
	CHECK(strix.out.find("unset HSA_OVERRIDE_GFX_VERSION\n") != std::string::npos);
	CHECK(strix.out.find("export") == std::string::npos);
}
