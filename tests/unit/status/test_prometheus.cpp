// `rdnactl status --format prometheus` (render_prometheus.cpp): the output
// is text exposition format 0.0.4 whatever the machine holds.  A strict
// reader of that format (below) takes every line apart; hostile label values
// (quotes, backslashes, line feeds, ESC/BEL, bytes that are not UTF-8) must
// come back after unescaping as core::terminal_safe spells them (one-to-one:
// values that differ only in such bytes stay distinct series), every family
// must be announced once by HELP and TYPE before its samples, and no series
// may appear twice.  promtool, when installed, checks the same text.
#include "model.hpp"
#include "render.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "core/text_safe.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;

namespace {

struct Sample {
	std::string name;
	std::map<std::string, std::string> labels; // unescaped
	std::string value;
};

bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

// One sample line of format 0.0.4, strictly: name, optional {label="value",...}
// with only \\, \" and \n escapes, one space, a value.  Fails the test otherwise.
Sample parse_sample(const std::string &line)
{
	Sample s;
	size_t i = 0;
	while (i < line.size() && name_char(line[i], i == 0))
		s.name += line[i++];
	REQUIRE(!s.name.empty());
	if (i < line.size() && line[i] == '{') {
		++i;
		while (line.at(i) != '}') {
			std::string key;
			while (name_char(line.at(i), key.empty()))
				key += line[i++];
			REQUIRE(!key.empty());
			REQUIRE(line.at(i++) == '=');
			REQUIRE(line.at(i++) == '"');
			std::string value;
			while (line.at(i) != '"') {
				char c = line[i++];
				if (c == '\\') {
					char e = line.at(i++);
					REQUIRE((e == '\\' || e == '"' || e == 'n'));
					value += e == 'n' ? '\n' : e;
				} else {
					value += c;
				}
			}
			++i;
			REQUIRE(s.labels.count(key) == 0);
			s.labels[key] = value;
			if (line.at(i) == ',')
				++i;
		}
		++i;
	}
	REQUIRE(line.at(i++) == ' ');
	s.value = line.substr(i);
	REQUIRE(!s.value.empty());
	std::size_t used = 0;
	if (s.value != "NaN" && s.value != "+Inf" && s.value != "-Inf") {
		(void)std::stod(s.value, &used);
		REQUIRE(used == s.value.size());
	}
	return s;
}

// The whole exposition: HELP then TYPE then the family's samples, each family
// once, each series once, the text valid UTF-8.  Returns the samples.
std::vector<Sample> parse_exposition(const std::string &text)
{
	REQUIRE(rdnafix::core::utf8_valid(text) == text);
	REQUIRE((text.empty() || text.back() == '\n'));
	std::vector<Sample> out;
	std::set<std::string> families, series;
	std::string current, help_for;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		INFO("line: " << line);
		if (line.rfind("# HELP ", 0) == 0) {
			std::string name = line.substr(7, line.find(' ', 7) - 7);
			REQUIRE(families.insert(name).second); // a family is never split
			help_for = name;
			continue;
		}
		if (line.rfind("# TYPE ", 0) == 0) {
			std::string name = line.substr(7, line.find(' ', 7) - 7);
			REQUIRE(name == help_for);
			REQUIRE(line.substr(7 + name.size()) == " gauge");
			current = name;
			continue;
		}
		REQUIRE(line.front() != '#');
		Sample s = parse_sample(line);
		REQUIRE(s.name == current);
		REQUIRE(s.name.rfind("rdnafix_", 0) == 0);
		std::string key = s.name;
		for (const auto &[k, v] : s.labels)
			key += "\x1f" + k + "\x1e" + v;
		REQUIRE(series.insert(key).second); // no duplicate series
		out.push_back(std::move(s));
	}
	return out;
}

const Sample *find(const std::vector<Sample> &v, const std::string &name,
		   const std::map<std::string, std::string> &labels = {})
{
	for (const auto &s : v) {
		if (s.name != name)
			continue;
		bool all = true;
		for (const auto &[k, x] : labels)
			all = all && s.labels.count(k) && s.labels.at(k) == x;
		if (all)
			return &s;
	}
	return nullptr;
}

// promtool check metrics on `text`; -1 when promtool is not installed.
int promtool(const std::string &text)
{
	if (std::system("command -v promtool >/dev/null 2>&1") != 0)
		return -1;
	rdnafix::test::TempDir t;
	std::ofstream(t.path() / "m.prom") << text;
	return std::system(("promtool check metrics < '" + (t.path() / "m.prom").string() + "'").c_str());
}

const std::string kEvil = "A \"quoted\" name \\ with\nline feed, \xff\xfe bytes, \xe2\x82 cut, and \xc3\xa9";

} // namespace

TEST_CASE("prometheus: hostile label values round-trip as valid exposition", "[prometheus]")
{
	auto snap = rdnafix::test::base();
	auto d = rdnafix::test::amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0);
	d.marketing_name = kEvil;
	snap.devices.push_back(d);
	snap.rdnafix.loaded = true;
	snap.rdnafix.version = "0.1.0\"}\nrdnafix_fake 1";
	snap.rdnafix.hooks[kEvil] = "active";
	snap.rdnafix.hooks["noretry_set"] = "inactive: symbol not found";
	snap.driver.kernel_release = "6.12.0\\";
	auto a = assess(snap);
	std::vector<Finding> findings{{"RDNA-ENV-001", Severity::error, kEvil, "f", "w", "x", {}},
				      {"RDNA-ENV-001", Severity::error, kEvil, "again", "w", "x", {}}};
	LastValidation v;
	v.result = ValidationResult::fail;
	v.run = 7;
	v.database = "/home/\"x\"/history.db";
	v.started_at = "2026-11-20T23:59:00Z";
	v.started_epoch = 1795219140;
	v.cases.push_back({kEvil, rdnafix::validate::Status::fail, 12.5, std::nullopt, 0.25});

	const std::string text = render_prometheus(snap, a, findings, v, 1795740000);
	auto samples = parse_exposition(text);
	const std::string evil = rdnafix::core::terminal_safe(kEvil);
	REQUIRE(evil != kEvil); // the invalid bytes were spelt out
	CHECK_THAT(evil, ContainsSubstring("\\xff\\xfe bytes"));

	auto *gpu = find(samples, "rdnafix_gpu_info", {{"bdf", "0000:03:00.0"}});
	REQUIRE(gpu);
	CHECK(gpu->labels.at("name") == evil);
	CHECK(gpu->labels.at("gfx_target") == "gfx1031");
	CHECK(gpu->labels.at("apu") == "false");
	REQUIRE(find(samples, "rdnafix_hook_active", {{"hook", evil}}));
	CHECK(find(samples, "rdnafix_hook_active", {{"hook", evil}})->value == "1");
	CHECK(find(samples, "rdnafix_hook_active", {{"hook", "noretry_set"}})->value == "0");
	CHECK(find(samples, "rdnafix_module_info")->labels.at("version") == "0.1.0\"}\\nrdnafix_fake 1");
	CHECK(find(samples, "rdnafix_fake") == nullptr);
	CHECK(find(samples, "rdnafix_status_info")->labels.at("kernel_release") == "6.12.0\\\\");
	// Two findings with one id, severity and subject: one series, value 2.
	auto *f = find(samples, "rdnafix_finding", {{"id", "RDNA-ENV-001"}});
	REQUIRE(f);
	CHECK(f->labels.at("subject") == evil);
	CHECK(f->value == "2");
	CHECK(find(samples, "rdnafix_findings", {{"severity", "error"}})->value == "2");
	CHECK(find(samples, "rdnafix_validation_case_status", {{"case", evil}})->labels.at("status") == "fail");
	CHECK(find(samples, "rdnafix_validation_last_run_info")->labels.at("database") == "/home/\"x\"/history.db");
	// The raw text: escapes as the format spells them.
	CHECK_THAT(text, ContainsSubstring("name=\"A \\\"quoted\\\" name \\\\\\\\ with\\\\nline feed, \\\\xff\\\\xfe"));
	const int rc = promtool(text);
	if (rc == -1)
		WARN("promtool not installed (Debian package prometheus): the exposition was checked by this test's "
		     "reader only");
	else
		CHECK(rc == 0);
}

// Raw values that differ only in bytes that are not UTF-8 or in control
// characters: made valid UTF-8 by replacing those bytes with U+FFFD, they
// became one label set twice (a duplicate series promtool refuses).  Spelt
// one-to-one they stay two series, with the raw escape and bell made visible.
TEST_CASE("prometheus: values that differ only in invalid bytes or controls are distinct series", "[prometheus]")
{
	auto snap = rdnafix::test::base();
	snap.rdnafix.loaded = true;
	snap.rdnafix.hooks["dup\xff"] = "active";
	snap.rdnafix.hooks["dup\xfe"] = "inactive: symbol not found";
	snap.rdnafix.hooks["bell\x07\x1b[2J"] = "active";
	auto a = assess(snap);
	std::vector<Finding> findings{{"RDNA-ENV-015", Severity::warn, "X\xff", "f", "w", "x", {}},
				      {"RDNA-ENV-015", Severity::warn, "X\xfe", "f", "w", "x", {}}};
	LastValidation v;
	v.result = ValidationResult::fail;
	v.run = 3;
	v.cases.push_back({"case\xff", rdnafix::validate::Status::pass, 1.0, std::nullopt, 0.5});
	v.cases.push_back({"case\xfe", rdnafix::validate::Status::fail, 2.0, std::nullopt, 0.5});
	const std::string text = render_prometheus(snap, a, findings, v, 100);
	INFO(text);
	auto samples = parse_exposition(text); // no series twice
	CHECK(find(samples, "rdnafix_hook_active", {{"hook", "dup\\xff"}})->value == "1");
	CHECK(find(samples, "rdnafix_hook_active", {{"hook", "dup\\xfe"}})->value == "0");
	REQUIRE(find(samples, "rdnafix_hook_active", {{"hook", "bell\\x07\\e[2J"}}));
	CHECK(text.find('\x1b') == std::string::npos);
	CHECK(text.find('\x07') == std::string::npos);
	CHECK(find(samples, "rdnafix_finding", {{"subject", "X\\xff"}})->value == "1");
	CHECK(find(samples, "rdnafix_finding", {{"subject", "X\\xfe"}})->value == "1");
	CHECK(find(samples, "rdnafix_validation_case_status", {{"case", "case\\xff"}})->labels.at("status") == "pass");
	CHECK(find(samples, "rdnafix_validation_case_status", {{"case", "case\\xfe"}})->labels.at("status") == "fail");
	const int rc = promtool(text);
	if (rc == -1)
		WARN("promtool not installed (Debian package prometheus)");
	else
		CHECK(rc == 0);
}

TEST_CASE("prometheus: validation result, time and figures", "[prometheus]")
{
	auto snap = rdnafix::test::base();
	auto a = assess(snap);
	LastValidation v;
	auto text = render_prometheus(snap, a, {}, v, 100);
	auto s = parse_exposition(text);
	CHECK(find(s, "rdnafix_validation_last_result", {{"result", "never"}})->value == "1");
	CHECK(find(s, "rdnafix_validation_last_result", {{"result", "pass"}})->value == "0");
	CHECK(find(s, "rdnafix_validation_last_timestamp_seconds") == nullptr);
	CHECK(find(s, "rdnafix_status_collect_timestamp_seconds")->value == "100");
	CHECK(find(s, "rdnafix_status_success")->value == "1");

	v.result = ValidationResult::pass;
	v.run = 3;
	v.started_at = "2026-11-20T23:59:00Z";
	v.started_epoch = parse_utc_timestamp(v.started_at);
	v.cases.push_back({"conv2d.fp32", rdnafix::validate::Status::pass, 1234.5, std::nullopt, 0.5});
	v.cases.push_back({"stream.triad", rdnafix::validate::Status::pass, std::nullopt, 410.25, std::nullopt});
	s = parse_exposition(render_prometheus(snap, a, {}, v, 100));
	int ones = 0;
	for (const char *r : {"pass", "fail", "not_run", "never", "unreadable"})
		ones += find(s, "rdnafix_validation_last_result", {{"result", r}})->value == "1";
	CHECK(ones == 1);
	CHECK(find(s, "rdnafix_validation_last_result", {{"result", "pass"}})->value == "1");
	CHECK(find(s, "rdnafix_validation_last_timestamp_seconds")->value == "1795219140");
	CHECK(std::stod(find(s, "rdnafix_validation_case_flops_per_second", {{"case", "conv2d.fp32"}})->value) ==
	      1234.5e9);
	CHECK(std::stod(find(s, "rdnafix_validation_case_bytes_per_second", {{"case", "stream.triad"}})->value) ==
	      410.25e9);
	CHECK(find(s, "rdnafix_validation_case_bytes_per_second", {{"case", "conv2d.fp32"}}) == nullptr);
	CHECK(find(s, "rdnafix_validation_case_duration_seconds", {{"case", "conv2d.fp32"}})->value == "0.5");

	snap.nothing_readable = true;
	s = parse_exposition(render_prometheus(snap, a, {}, v, 100));
	CHECK(find(s, "rdnafix_status_success")->value == "0");
	CHECK(find(s, "rdnafix_status_exit_code")->value == "2");
	CHECK(find(s, "rdnafix_gpu_info") == nullptr);
}

TEST_CASE("prometheus: label value escaping", "[prometheus]")
{
	CHECK(prometheus_label_value("plain") == "plain");
	CHECK(prometheus_label_value("a\\b") == "a\\\\\\\\b"); // terminal_safe doubles it, the format again
	CHECK(prometheus_label_value("say \"hi\"") == "say \\\"hi\\\"");
	CHECK(prometheus_label_value("two\nlines") == "two\\\\nlines");
	CHECK(prometheus_label_value("tab\there") == "tab\\\\there");
	CHECK(prometheus_label_value("\xff") == "\\\\xff");
	CHECK(prometheus_label_value("\xfe") == "\\\\xfe"); // not the same value as \xff
	CHECK(prometheus_label_value("esc\x1b[2J bel\x07") == "esc\\\\e[2J bel\\\\x07");
	CHECK(prometheus_label_value("caf\xc3\xa9") == "caf\xc3\xa9"); // valid UTF-8 is kept
}

TEST_CASE("validation: UTC timestamps as validate records them", "[validation]")
{
	CHECK(parse_utc_timestamp("1970-01-01T00:00:00Z") == 0);
	CHECK(parse_utc_timestamp("2026-11-20T23:59:00Z") == 1795219140);
	CHECK(parse_utc_timestamp("2000-02-29T12:00:00Z") == 951825600);
	for (const char *bad : {"", "2026-11-20", "2026-11-20T23:59:00", "2026-11-20 23:59:00Z", "2026-13-20T23:59:00Z",
				"2026-11-20T24:00:00Z", "2026-11-2xT23:59:00Z", "2026-11-20T23:59:00+01:00"})
		CHECK_FALSE(parse_utc_timestamp(bad));
}
