// The reader removes HIP's AMD_LOG_LEVEL prefix (rocclr's ClPrint:
// ":LEVEL:FILE:LINE: TIME us: [PID: ][tid / pid+tid] ") like the kernel's
// prefixes, in each form the runtime has printed, and leaves every line that
// only looks like one as it is.
#include "explain/model.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>

using namespace rdnafix::explain;

namespace {

LogLine one(const std::string &line)
{
	const Log log = read_log(line + "\n");
	REQUIRE(log.lines.size() == 1);
	return log.lines[0];
}

} // namespace

TEST_CASE("reader: HIP's AMD_LOG_LEVEL prefix is removed in every form HIP printed", "[explain][hip]")
{
	struct Case {
		const char *line, *text;
	};
	const Case cases[] = {
		// "PID: [tid:0x…]" (ROCm 5.x), the hipErrorNoBinaryForGpu lists keep their indentation:
		// https://github.com/ROCm/rccl/issues/876
		{":1:hip_code_object.cpp      :507 : 221750325580 us: 1255284: [tid:0x7fcc46391bc0]   Devices:",
		 "  Devices:"},
		{":1:hip_code_object.cpp      :509 : 221750325584 us: 1255284: [tid:0x7fcc46391bc0]     "
		 "amdgcn-amd-amdhsa--gfx1036 - [Not Found]",
		 "    amdgcn-amd-amdhsa--gfx1036 - [Not Found]"},
		{":1:hip_code_object.cpp      :505 : 221750325578 us: 1255284: [tid:0x7fcc46391bc0] "
		 "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
		 "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"},
		// "[pid:PID tid:0x…]" (ROCm 6.x): https://github.com/ROCm/clr/issues/126
		{":3:rocdevice.cpp            :468 : 14902569084 us: [pid:32899 tid:0x71038c239180] Initializing HSA "
		 "stack.",
		 "Initializing HSA stack."},
		// a four-digit source line fills its field: https://github.com/ROCm/clr/issues/126
		{":3:rocdevice.cpp            :1809: 14902584865 us: [pid:32899 tid:0x71038c239180] Gfx "
		 "Major/Minor/Stepping: 9/0/6",
		 "Gfx Major/Minor/Stepping: 9/0/6"},
		// "[pid:PID tid: 0x…]": https://github.com/iree-org/iree/issues/20766
		{":3:rocdevice.cpp            :465 : 159550074485 us: [pid:740193 tid: 0x778c75a53740] Initializing "
		 "HSA stack.",
		 "Initializing HSA stack."},
		// no pid, no tid (ROCm 4.3): https://github.com/ROCm/ROCm/issues/1587
		{":1:hip_code_object.cpp      :458 : 1885938540 us:   Devices:", "  Devices:"},
		{":4:rocdevice.cpp            :1858: 1885937272 us: Allocate hsa host memory 0x7fa4e0002000, size 0x28",
		 "Allocate hsa host memory 0x7fa4e0002000, size 0x28"},
	};
	for (const auto &c : cases) {
		INFO(c.line);
		const LogLine l = one(c.line);
		CHECK(l.text == c.text);
		CHECK(l.format == LineFormat::hip);
	}
	// every level HIP has (0 none … 5 extra debug)
	for (char level = '0'; level <= '5'; ++level) {
		std::string line = ":3:rocdevice.cpp            :468 : 14902569084 us: [pid:32899 tid:0x71038c239180] "
				   "Initializing HSA stack.";
		line[1] = level;
		INFO(line);
		CHECK(one(line).text == "Initializing HSA stack.");
	}
	// a file name longer than the 25-column field, and no padding at all
	CHECK(one(":3:hip_graph_internal_very_long.cpp:1234: 123 us: [tid:0x1] a").text == "a");
	// a prefix with nothing after it is a blank line
	CHECK(read_log(":1:hip_code_object.cpp      :507 : 221750325580 us: 1255284: [tid:0x7fcc46391bc0] \n")
		      .lines.empty());
}

TEST_CASE("reader: lines that only look like HIP's prefix are left as they are", "[explain][hip]")
{
	const std::string big(30, '9');
	const std::string hostile[] = {
		":",
		"::",
		":1:",
		":::::::::::::::::::::::::::::::::::::::",
		":1:hip_code_object.cpp",
		":1:hip_code_object.cpp      :507 :",
		":1:hip_code_object.cpp      :507 : 221750325580",
		":1:hip_code_object.cpp      :507 : 221750325580 us",
		// no closing bracket
		":1:hip_code_object.cpp      :507 : 221750325580 us: [pid:224   tid:0x7ff81ad1d740 Devices:",
		":1:hip_code_object.cpp      :507 : 221750325580 us: 1255284: [tid:0x7fcc46391bc0",
		// a bracket with more than a pid and a tid in it
		":1:hip_code_object.cpp      :507 : 221750325580 us: [tid:0x7f; rm -rf /] x",
		// huge numbers
		":1:hip_code_object.cpp      :" + big + " : 221750325580 us: [tid:0x7f] Devices:",
		":1:hip_code_object.cpp      :507 : " + big + " us: [tid:0x7f] Devices:",
		// a level HIP does not have, a missing level, a file name with a space or a slash
		":6:rocdevice.cpp            :468 : 14902569084 us: [pid:32899 tid:0x71038c239180] x",
		"::rocdevice.cpp            :468 : 14902569084 us: x",
		":3:roc device.cpp :468 : 14902569084 us: x",
		":3:/src/rocdevice.cpp :468 : 14902569084 us: x",
		// the prefix past the first 192 bytes of the line
		":3:" + std::string(200, 'f') + ".cpp :468 : 14902569084 us: x",
	};
	for (const auto &line : hostile) {
		INFO(line);
		const LogLine l = one(line);
		CHECK(l.text == line);
		CHECK(l.format == LineFormat::plain);
	}
	// ':' and digits in the place of the message: the prefix ends where HIP's ends
	CHECK(one(":1:a.cpp :1 : 1 us: 2: 3: [tid:0x1] m").text == "3: [tid:0x1] m");
}
