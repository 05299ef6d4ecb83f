// JSON of results is a document whatever bytes the machine supplied: strings
// are made valid UTF-8, captured tails start on a sequence boundary, and the
// printer replaces what is left instead of throwing.
#include <catch2/catch_test_macros.hpp>

#include <nlohmann/json.hpp>

#include "render.hpp"
#include "history/result.hpp"

using namespace rdnafix::validate;

TEST_CASE("a CaseResult with non-UTF-8 text serialises, each bad byte as U+FFFD", "[render][utf8]")
{
	CaseResult r;
	r.name = "selftest.pass";
	r.status = Status::crash;
	r.reason = "signal 11 \xff";
	r.output_tail = "\x82\xac tail \xc3"; // starts inside a sequence (cut), ends inside one
	r.kernel_log.push_back({LogKind::gpu_reset, "amdgpu: \xfe", std::nullopt});
	const nlohmann::json j = r;
	const std::string text = j.dump(); // throws type_error 316 on invalid UTF-8
	CHECK(j["reason"] == "signal 11 \xef\xbf\xbd");
	CHECK(j["output_tail"] == " tail \xef\xbf\xbd");
	CHECK(j["kernel_log"][0]["text"] == "amdgpu: \xef\xbf\xbd");
	CHECK(nlohmann::json::parse(text)["name"] == "selftest.pass");
}

TEST_CASE("json_text replaces invalid bytes instead of throwing", "[render][utf8]")
{
	nlohmann::json j{{"device", "GP\xff"}};
	CHECK_THROWS(j.dump());
	CHECK(json_text(j) == "{\n  \"device\": \"GP\xef\xbf\xbd\"\n}\n");
}

TEST_CASE("utf8_tail cuts on a sequence boundary", "[render][utf8]")
{
	const std::string s = "ab\xe2\x82\xac"; // "ab€"
	CHECK(utf8_tail(s, 5) == s);
	CHECK(utf8_tail(s, 3) == "\xe2\x82\xac");
	CHECK(utf8_tail(s, 2).empty()); // the last 2 bytes are the inside of "€": nothing whole
	CHECK(utf8_tail(s, 4) == "b\xe2\x82\xac");
	CHECK(utf8_tail("y\x80\x80\x80\x80x", 5) == "\x80x"); // at most 3 continuation bytes skipped
}
