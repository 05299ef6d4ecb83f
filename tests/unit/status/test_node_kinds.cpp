// /dev/kfd and render nodes that are not the kernel's character devices
// (a directory as `docker -v /dev/kfd:/dev/kfd` creates, a FIFO, a wrong
// major:minor), nodes owned by groups that must never be proposed (root,
// nogroup), user names that need shell quoting and numeric uids: a copy of a
// real captured machine (tests/fixtures/not-in-render-group), read by the
// real binary.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using nlohmann::json;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

namespace {

const std::string kKfd = "dev/kfd c 235:0 0660 root render\n";
const std::string kCard = "dev/dri/card0 c 226:0 0660 root video\n";
const std::string kRender = "dev/dri/renderD128 c 226:128 0660 root render\n";

fs::path copy_fixture(const TempDir &t)
{
	const fs::path dst = t.path() / "root";
	fs::copy(fs::path(RDNAFIX_FIXTURES) / "not-in-render-group/root", dst,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	return dst;
}

void write(const fs::path &p, const std::string &text, bool append = false)
{
	std::ofstream out(p, append ? std::ios::app : std::ios::trunc);
	out << text;
	REQUIRE(out.good());
}

json run_status(const fs::path &root, const std::string &user = "bob")
{
	auto r = run_rdnactl({"status", "--json", "--root", root.string(), "--user", user});
	INFO(r.out << r.err);
	REQUIRE((r.exit_code == 0 || r.exit_code == 1));
	return json::parse(r.out);
}

std::vector<json> findings(const json &j, const std::string &id, const std::string &subject = "")
{
	std::vector<json> out;
	for (const auto &f : j["findings"])
		if (f["id"] == id && (subject.empty() || f["subject"] == subject))
			out.push_back(f);
	return out;
}

std::string dump(const json &j)
{
	std::string out;
	for (const auto &f : j["findings"])
		out += f["id"].get<std::string>() + " " + f["subject"].get<std::string>() + ": " +
		       f["finding"].get<std::string>() + " | fix: " + f["fix"].get<std::string>() + "\n";
	return out;
}

} // namespace

TEST_CASE("/dev/kfd that is not the KFD character device is reported as such", "[access][nodes]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	std::string expect;
	SECTION("a directory (docker -v /dev/kfd:/dev/kfd on a host without it)")
	{
		fs::remove(root / "dev/kfd");
		fs::create_directory(root / "dev/kfd");
		write(root / "dev/.devnodes", kCard + kRender);
		expect = "directory";
	}
	SECTION("a FIFO")
	{
		fs::remove(root / "dev/kfd");
		REQUIRE(::mkfifo((root / "dev/kfd").c_str(), 0660) == 0);
		write(root / "dev/.devnodes", kCard + kRender);
		expect = "FIFO";
	}
	SECTION("a character device with another major:minor than sys/class/kfd/kfd/dev")
	{
		write(root / "dev/.devnodes", "dev/kfd c 236:0 0660 root render\n" + kCard + kRender);
		expect = "character device 236:0, but sys/class/kfd/kfd/dev says 235:0";
	}
	SECTION("a block device")
	{
		write(root / "dev/.devnodes", "dev/kfd b 235:0 0660 root render\n" + kCard + kRender);
		expect = "block device";
	}
	json j = run_status(root);
	INFO(dump(j));
	auto wrong = findings(j, "RDNA-ACC-005", "/dev/kfd");
	REQUIRE(wrong.size() == 1);
	CHECK_THAT(wrong[0]["finding"].get<std::string>(), ContainsSubstring(expect));
	CHECK(wrong[0]["severity"] == "error");
	CHECK(findings(j, "RDNA-ACC-002", "/dev/kfd").empty()); // not "join group root"
	CHECK_THAT(dump(j), !ContainsSubstring("-aG root"));
	if (expect == "directory")
		CHECK_THAT(wrong[0]["fix"].get<std::string>(), ContainsSubstring("--device=/dev/kfd"));
}

TEST_CASE("a render node with the wrong major:minor is reported", "[access][nodes]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	write(root / "dev/.devnodes", kKfd + kCard + "dev/dri/renderD128 c 226:129 0660 root render\n");
	json j = run_status(root);
	INFO(dump(j));
	auto wrong = findings(j, "RDNA-ACC-005", "/dev/dri/renderD128");
	REQUIRE(wrong.size() == 1);
	CHECK_THAT(wrong[0]["finding"].get<std::string>(),
		   ContainsSubstring("226:129, but sys/class/drm/renderD128/dev says 226:128"));
	CHECK(findings(j, "RDNA-ACC-005", "/dev/kfd").empty()); // the right one is not reported
}

TEST_CASE("never propose joining group root or nogroup", "[access][nodes]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	write(root / "dev/.devnodes",
	      "dev/kfd c 235:0 0660 root root\n" + kCard + "dev/dri/renderD128 c 226:128 0660 nobody nogroup\n");
	json j = run_status(root);
	INFO(dump(j));
	for (const char *node : {"/dev/kfd", "/dev/dri/renderD128"}) {
		auto f = findings(j, "RDNA-ACC-002", node);
		REQUIRE(f.size() == 1);
		const std::string fix = f[0]["fix"].get<std::string>();
		CHECK_THAT(fix, !ContainsSubstring("usermod"));
		CHECK_THAT(fix, ContainsSubstring("udev rule"));
	}
	CHECK_THAT(dump(j), !ContainsSubstring("-aG root"));
	CHECK_THAT(dump(j), !ContainsSubstring("-aG nogroup"));
	CHECK(findings(j, "RDNA-ACC-003").empty());
	// `rdnactl fix` must not turn it into a group change either.
	auto r = run_rdnactl({"fix", "--dry-run", "--root", root.string(), "--user", "bob"});
	CHECK_THAT(r.out + r.err, !ContainsSubstring("-aG root"));
	CHECK_THAT(r.out + r.err, !ContainsSubstring("-aG nogroup"));
}

TEST_CASE("user names in fix commands are shell-quoted", "[access][nodes]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	write(root / "etc/passwd", "o'brien;rm -rf ~:x:1002:1002::/home/o:/bin/sh\n", true);
	json j = run_status(root, "o'brien;rm -rf ~");
	INFO(dump(j));
	auto f = findings(j, "RDNA-ACC-002", "/dev/kfd");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0]["fix"].get<std::string>(), ContainsSubstring("usermod -aG render 'o'\\''brien;rm -rf ~'"));
	// `rdnactl fix` prints the same change as a command.
	auto r = run_rdnactl({"fix", "--dry-run", "--root", root.string(), "--user", "o'brien;rm -rf ~"});
	INFO(r.out << r.err);
	CHECK_THAT(r.out, ContainsSubstring("usermod -aG render 'o'\\''brien;rm -rf ~'"));
	CHECK_THAT(r.out, !ContainsSubstring("usermod -aG render o'brien"));
}

TEST_CASE("a numeric --user is resolved through etc/passwd", "[access][nodes]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	json j = run_status(root, "1001");
	INFO(dump(j));
	CHECK(j["access"]["user"] == "bob");
	CHECK(j["access"]["uid"] == 1001);
	CHECK(j["access"]["unreadable"].empty());
	auto f = findings(j, "RDNA-ACC-002", "/dev/kfd");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0]["fix"].get<std::string>(), ContainsSubstring("usermod -aG render bob"));
}
