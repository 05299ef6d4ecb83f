// "Last validation on this stack" (status/read_validation.cpp): history
// databases written with the real validate::History in a temporary root, read
// back by read_last_validation and by the real binary (text, JSON,
// Prometheus).  Also the one writer of the rdnafix-loaded fixture's history
// database (hidden case [.regenerate-fixture-history]).
#include "render.hpp"
#include "support.hpp"
#include "validation_fixture.hpp"

#include "status/validation.hpp"

#include "machine/collect.hpp"
#include "history/history.hpp"
#include "software/stack.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <fstream>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::read_file;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;
namespace fs = std::filesystem;
namespace validate = rdnafix::validate;

namespace {

const fs::path &kFixture = rdnafix::test::kValidationFixture;

using rdnafix::test::validation_fixture_snapshot;

std::vector<std::string> status_args(const fs::path &root, const std::string &format)
{
	return {"status", "--root", root.string(), "--env", (kFixture / "env").string(),
		"--user", "grace",  "--format",    format};
}

validate::CaseResult result(const std::string &name, validate::Status s, std::optional<double> gflops,
			    std::optional<double> gbs, double seconds)
{
	validate::CaseResult r;
	r.name = name;
	r.status = s;
	r.gflops = gflops;
	r.gbs = gbs;
	r.seconds = seconds;
	return r;
}

validate::RunInfo info(const validate::Stack &stack, const std::string &when)
{
	validate::RunInfo i;
	i.started_at = when;
	i.kernel_release = stack.get("kernel") ? *stack.get("kernel") : "";
	i.device = "AMD Radeon RX 5700 XT (gfx1010)";
	i.api = "HIP";
	i.rdnactl_version = "0.1.0";
	i.selection = "quick";
	i.stack = stack;
	return i;
}

// The fixture's history: run 1 on an older stack (kernel 6.1) that could not
// run its cases, run 2 on this stack that passed, run 3 on yet another stack
// (an environment variable set) that failed.
void write_fixture_history(const fs::path &db, const validate::Stack &here)
{
	validate::History h(db.string());
	validate::Stack older = here;
	older.set("kernel", "6.1.0-28-amd64");
	auto i1 = info(older, "2026-11-18T09:12:00Z");
	i1.not_run = "no_runtime";
	h.record(i1, {});
	h.record(info(here, "2026-11-20T23:59:00Z"),
		 {result("conv.resnet50-conv1.fp32", validate::Status::pass, 3712.5, std::nullopt, 1.75),
		  result("stream.triad", validate::Status::pass, std::nullopt, 402.25, 0.5),
		  result("capacity.vram", validate::Status::skip, std::nullopt, std::nullopt, 0.01)});
	validate::Stack other = here;
	other.set("env.HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	h.record(info(other, "2026-11-22T08:00:00Z"),
		 {result("conv.resnet50-conv1.fp32", validate::Status::crash, std::nullopt, std::nullopt, 0.3)});
}

// A copy of the fixture's root without its history database.
fs::path copy_root(const TempDir &t)
{
	return rdnafix::test::copy_validation_root(t);
}

} // namespace

TEST_CASE("validation: never, pass, not run and the newest run across databases", "[validation]")
{
	TempDir t;
	const fs::path root = copy_root(t);
	const auto snap = validation_fixture_snapshot(root);
	const auto here = validate::collect_stack(snap);
	const auto dbs = validation_databases(root.string());
	REQUIRE(dbs.size() == 2); // under --root: the two system databases, not the caller's

	// No database: never, both named as missing.
	auto v = read_last_validation(snap, dbs);
	CHECK(v.result == ValidationResult::never);
	CHECK(v.stack_key == here.key());
	CHECK(v.missing ==
	      std::vector<std::string>{"/var/lib/rdnafix/history.db", "/var/lib/rdnafix/validate/history.db"});
	CHECK_THAT(validation_lines(v).at(0),
		   ContainsSubstring("never (no history database at /var/lib/rdnafix/history.db"));

	// Root's database: runs on this stack and others; the pass on this stack is taken.
	fs::create_directories(root / "var/lib/rdnafix/validate");
	write_fixture_history(root / "var/lib/rdnafix/history.db", here);
	v = read_last_validation(snap, dbs);
	CHECK(v.result == ValidationResult::pass);
	CHECK(v.run == 2);
	CHECK(v.database == "/var/lib/rdnafix/history.db");
	CHECK(v.started_epoch == 1795219140);
	REQUIRE(v.cases.size() == 3);
	CHECK(v.cases[0].gflops == 3712.5);
	CHECK(v.cases[1].gbs == 402.25);

	// The service's database has a newer not-run run on this stack: it wins.
	{
		validate::History h((root / "var/lib/rdnafix/validate/history.db").string());
		auto i = info(here, "2026-11-23T07:00:00Z");
		i.not_run = "no_runtime";
		h.record(i, {});
	}
	v = read_last_validation(snap, dbs);
	CHECK(v.result == ValidationResult::not_run);
	CHECK(v.database == "/var/lib/rdnafix/validate/history.db");
	CHECK(v.not_run == "no_runtime");
	CHECK_THAT(validation_lines(v).at(0),
		   ContainsSubstring(
			   "not run (no_runtime) — 2026-11-23T07:00:00Z, run 1, /var/lib/rdnafix/validate/history.db"));

	// Another stack (an environment variable changed): no run on it.
	auto snap2 = snap;
	snap2.environment.vars["HSA_OVERRIDE_GFX_VERSION"] = "10.1.0";
	snap2.environment.locate["HSA_OVERRIDE_GFX_VERSION"] = "10.1.0";
	auto other = validate::collect_stack(snap2);
	if (other.key() != here.key()) {
		v = read_last_validation(snap2, dbs);
		CHECK(v.result == ValidationResult::never);
		CHECK(v.read.size() == 2);
		CHECK_THAT(validation_lines(v).at(0),
			   ContainsSubstring("no run on this stack in /var/lib/rdnafix/history.db"));
	}
}

TEST_CASE("validation: a damaged database is an unreadable item, never a failure", "[validation]")
{
	TempDir t;
	const fs::path root = copy_root(t);
	fs::create_directories(root / "var/lib/rdnafix");
	std::ofstream(root / "var/lib/rdnafix/history.db") << "this is not an SQLite database\n";
	const auto snap = validation_fixture_snapshot(root);
	auto v = read_last_validation(snap, validation_databases(root.string()));
	CHECK(v.result == ValidationResult::unreadable);
	REQUIRE(v.unreadable.size() == 1);
	CHECK(v.unreadable[0].path == "/var/lib/rdnafix/history.db");
	CHECK_THAT(v.unreadable[0].reason, ContainsSubstring("unreadable"));
	auto lines = validation_lines(v);
	CHECK_THAT(lines.at(0), ContainsSubstring("unknown (no history database could be read)"));
	CHECK_THAT(lines.at(1), ContainsSubstring("/var/lib/rdnafix/history.db: unreadable"));

	// The real binary: exit code as without a database, the reason shown, metrics still valid.
	auto text_args = status_args(root, "text");
	text_args.push_back("--verbose"); // the unreadable database's reason is a detail
	auto text = run_rdnactl(text_args);
	auto prom = run_rdnactl(status_args(root, "prometheus"));
	auto plain = run_rdnactl(status_args(kFixture / "root", "text"));
	CHECK(text.exit_code == plain.exit_code);
	CHECK_THAT(text.out, ContainsSubstring("/var/lib/rdnafix/history.db: unreadable"));
	CHECK_THAT(prom.out, ContainsSubstring("rdnafix_validation_last_result{result=\"unreadable\"} 1\n"));
	CHECK_THAT(prom.out, ContainsSubstring("rdnafix_validation_databases_unreadable 1\n"));
	// Read only: the damaged file is untouched, nothing created beside it.
	CHECK(read_file(root / "var/lib/rdnafix/history.db") == "this is not an SQLite database\n");
	CHECK(!fs::exists(root / "var/lib/rdnafix/validate"));
}

TEST_CASE("validation: the rdnafix-loaded fixture's history database", "[validation][fixtures]")
{
	// tests/fixtures/rdnafix-loaded/root/var/lib/rdnafix/history.db (SOURCE.md):
	// its run 2 is on the fixture's stack, as this rdnactl computes it.
	const auto snap = validation_fixture_snapshot(kFixture / "root");
	auto v = read_last_validation(snap, validation_databases((kFixture / "root").string()));
	INFO("stale? regenerate: metrics_tests '[.regenerate-fixture-history]' "
	     "(tests/fixtures/rdnafix-loaded/SOURCE.md)");
	CHECK(v.result == ValidationResult::pass);
	CHECK(v.run == 2);
	auto r = run_rdnactl(status_args(kFixture / "root", "text"));
	CHECK_THAT(r.out, ContainsSubstring("last validation on this stack: pass — 2026-11-20T23:59:00Z, run 2, "
					    "/var/lib/rdnafix/history.db"));
}

TEST_CASE("validation: regenerate the rdnafix-loaded fixture's history database", "[.regenerate-fixture-history]")
{
	const fs::path db = kFixture / "root/var/lib/rdnafix/history.db";
	fs::remove(db);
	fs::create_directories(db.parent_path());
	write_fixture_history(db, validate::collect_stack(validation_fixture_snapshot(kFixture / "root")));
	WARN("wrote " << db.string());
}
