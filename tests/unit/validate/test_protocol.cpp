// The internal child protocol: requests and replies round-trip through JSON,
// the child argv has the form main() routes, and malformed records are
// rejected with the field named.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers.hpp>

#include "protocol.hpp"
#include "history/result.hpp"

using namespace rdnafix::validate;

TEST_CASE("protocol: a case request round-trips and forms `__child case <json>`", "[protocol]")
{
	CaseRequest r;
	r.case_name = "conv.resnet50-conv2x-3x3.f16";
	r.inject_error = true;
	r.capacity_fraction = 0.25;
	r.device = 3;
	r.api = "cuda";
	const auto args = child_args(r);
	REQUIRE(args.size() == 3);
	REQUIRE(args[0] == "__child");
	REQUIRE(args[1] == "case");
	const auto back = nlohmann::json::parse(args[2]).get<CaseRequest>();
	REQUIRE(back.case_name == r.case_name);
	REQUIRE(back.inject_error);
	REQUIRE(back.capacity_fraction == 0.25);
	REQUIRE(back.device == 3);
	REQUIRE(back.api == "cuda");
	REQUIRE_THROWS_WITH(nlohmann::json::parse(R"({"device":1})").get<CaseRequest>(),
			    "case request: field 'case' is missing or not a string");
	REQUIRE_THROWS(nlohmann::json::parse("[1]").get<CaseRequest>());
}

TEST_CASE("protocol: probe request and reply round-trip; an unknown state is refused", "[protocol]")
{
	ProbeRequest q;
	q.api = "hip";
	const auto args = child_args(q);
	REQUIRE(args[1] == "probe");
	REQUIRE(nlohmann::json::parse(args[2]).get<ProbeRequest>().api == "hip");

	ProbeReply r;
	r.state = ProbeReply::State::runtime_no_device;
	r.report = "HIP runtime 6.4.43484 but no device";
	const nlohmann::json j = r;
	REQUIRE(j["state"] == "runtime_no_device");
	const auto back = j.get<ProbeReply>();
	REQUIRE(back.state == ProbeReply::State::runtime_no_device);
	REQUIRE(back.report == r.report);
	for (auto s : {ProbeReply::State::ok, ProbeReply::State::no_runtime, ProbeReply::State::init_failed,
		       ProbeReply::State::no_backend}) {
		r.state = s;
		REQUIRE(nlohmann::json(r).get<ProbeReply>().state == s);
	}
	REQUIRE_THROWS_WITH(nlohmann::json::parse(R"({"state":"great"})").get<ProbeReply>(),
			    "probe reply: state 'great' is unknown");
	REQUIRE_THROWS_WITH(nlohmann::json::parse(R"({"report":"x"})").get<ProbeReply>(),
			    "probe reply: field 'state' is missing or not a string");
}

TEST_CASE("protocol: a case reply round-trips with its figures", "[protocol]")
{
	CaseResult r;
	r.name = "stream.copy-triad";
	r.status = Status::fail;
	r.reason = "3 of 1024 elements differ";
	r.max_abs = 0.5;
	r.gbs = 812.5;
	r.details = {{"elements", 1024}};
	const auto back = nlohmann::json(r).get<CaseResult>();
	REQUIRE(back.name == r.name);
	REQUIRE(back.status == Status::fail);
	REQUIRE(back.reason == r.reason);
	REQUIRE(back.max_abs == 0.5);
	REQUIRE_FALSE(back.gflops);
	REQUIRE(back.gbs == 812.5);
	REQUIRE(back.details["elements"] == 1024);
	REQUIRE_THROWS_WITH(nlohmann::json::parse(R"({"status":"pass","gbs":"fast"})").get<CaseResult>(),
			    "field 'gbs' is not a number");
}
