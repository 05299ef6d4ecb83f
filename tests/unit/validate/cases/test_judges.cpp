// The judges of the GPU case kinds (cases/stream.cpp, capacity.cpp,
// transfers.cpp) on figures as the GPU halves return them: pass only when the
// device-side checks found nothing, and a reason with the figures otherwise.
#include <catch2/catch_test_macros.hpp>

#include "cases/kinds.hpp"

using namespace rdnafix::validate;

namespace {
const CaseDef &def(const char *name)
{
	const CaseDef *c = find_case(name);
	REQUIRE(c);
	return *c;
}
} // namespace

TEST_CASE("stream judge: every element must equal its analytic value", "[cases][judge]")
{
	rdnafix::gpu::StreamResult s;
	s.elements = 1 << 20;
	s.triad.gbs = 900;
	auto r = judge_stream(def("stream.copy-triad"), s);
	REQUIRE(r.status == Status::pass);
	REQUIRE(r.gbs == 900);
	s.bad_elements = 3;
	s.max_abs_error = 0.25;
	r = judge_stream(def("stream.copy-triad"), s);
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "3 of 1048576 elements differ from the analytic values (max abs error 0.25)");
	// sizing: 2^25 elements at most, 1/8 of free memory for three fp64 arrays, at least 2^16
	REQUIRE(stream_elements(std::uint64_t(1) << 40, 0) == std::size_t(1) << 25);
	REQUIRE(stream_elements(std::uint64_t(192) << 20, 0) == std::size_t(1) << 20);
	REQUIRE(stream_elements(0, std::uint64_t(192) << 20) == std::size_t(1) << 20);
	REQUIRE(stream_elements(1, 1) == std::size_t(1) << 16);
}

TEST_CASE("capacity judge: the whole target allocated and read back", "[cases][judge]")
{
	rdnafix::gpu::CapacityResult c;
	c.reported_total = std::uint64_t(16) << 30;
	c.target_bytes = std::uint64_t(8) << 30;
	c.allocated = c.target_bytes;
	REQUIRE(judge_capacity(def("capacity"), c, 0.5).status == Status::pass);
	c.bad_words = 7;
	auto r = judge_capacity(def("capacity"), c, 0.5);
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "7 32-bit words did not read back in 8.00 GiB");
	c.bad_words = 0;
	c.allocated = std::uint64_t(3) << 30;
	c.stop_reason = "hipMalloc: 2 hipErrorOutOfMemory";
	r = judge_capacity(def("capacity"), c, 0.5);
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "allocated only 3.00 of 8.00 GiB (50 % of the 16.00 GiB reported): "
			    "hipMalloc: 2 hipErrorOutOfMemory");
}

TEST_CASE("transfers judge: every size round-trips bit-exactly", "[cases][judge]")
{
	std::vector<rdnafix::gpu::TransferPoint> pts(3);
	for (auto &p : pts) {
		p.verified = true;
		p.h2d.gbs = 20;
		p.d2h.gbs = 25;
	}
	auto r = judge_transfers(def("transfer.pinned"), pts);
	REQUIRE(r.status == Status::pass);
	REQUIRE(r.gbs == 20);
	pts[1].verified = false;
	r = judge_transfers(def("transfer.pinned"), pts);
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "1 of 3 transfer sizes did not round-trip bit-exactly");
	r = judge_transfers(def("transfer.pageable"), {});
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "no transfer sizes ran");
}
