// explain at any size: the reader fed in pieces of any length gives the
// lines of the whole text; the fold keeps the first and last kKeep distinct
// matches of a signature and counts the rest; each fault of a block gets its
// own lines.  (The binary at 200,000 faults: scaling.py.)
#include "explain/knowledge_load.hpp"
#include "explain/model.hpp"

#include "knowledge/builtin.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <sstream>

using namespace rdnafix::explain;

namespace {

// The built-in knowledge base (userspace/data/knowledge), built once.
const Loaded &kb()
{
	static const auto k = load_knowledge(rdnafix::knowledge::builtin_files(), false);
	return *k;
}

std::string id_of(Sig s)
{
	return kb().base.entries.at(s).id;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	REQUIRE(f);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

// The reader over `text` cut into pieces of `size` bytes.
Log read_in_pieces(std::string_view text, std::size_t size)
{
	std::size_t at = 0;
	LogReader r([&]() -> std::string_view {
		const auto piece = text.substr(std::min(at, text.size()), size);
		at += piece.size();
		return piece;
	});
	std::vector<LogLine> lines;
	while (auto l = r.next())
		lines.push_back(std::move(*l));
	Log log = r.summary();
	log.lines = std::move(lines);
	return log;
}

void same(const Log &a, const Log &b)
{
	REQUIRE(a.lines.size() == b.lines.size());
	for (std::size_t i = 0; i < a.lines.size(); ++i) {
		INFO(i);
		REQUIRE(a.lines[i].number == b.lines[i].number);
		REQUIRE(a.lines[i].text == b.lines[i].text);
		REQUIRE(a.lines[i].format == b.lines[i].format);
	}
	REQUIRE(a.problems == b.problems);
	REQUIRE(a.bytes == b.bytes);
}

// Fault block number n: distinct PASID and status word.
std::string fault(int n, int pasid_base = 32768)
{
	const std::string dev = "[ 1.0] amdgpu 0000:c2:00.0: amdgpu: ";
	return dev + "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:" + std::to_string(pasid_base + n) + ")\n" +
	       dev + " Process python pid " + std::to_string(100 + n) + " thread python pid 1\n" + dev +
	       "  in page starting at address 0x00007f5e85f94000 from client 10\n" + dev +
	       "GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n" + dev + "\t Faulty UTCL2 client ID: TCP (0x8)\n";
}

} // namespace

TEST_CASE("reader: pieces of 1, 7 and 4096 bytes give the lines of the whole text", "[explain]")
{
	std::string text =
		slurp(std::string(RDNAFIX_TOP) + "/tests/fixtures/logs/rocm-legacy-rocm-build-5051-journal.txt");
	text += "\r\n  \t\nCRLF line\r\n\rleading CR\nno newline at the end\r";
	const Log whole = read_log(text);
	for (std::size_t size : {1u, 7u, 4096u}) {
		INFO(size);
		same(read_in_pieces(text, size), whole);
	}
	// a 200 KiB line split over pieces: cut at 64 KiB, its whole length reported
	const std::string huge = "x" + std::string(200 * 1024, 'a') + "\r\nHIP error: invalid device function\n";
	const Log cut = read_in_pieces(huge, 1000);
	same(cut, read_log(huge));
	REQUIRE(cut.lines[0].text.size() == 64 * 1024);
	REQUIRE(cut.problems.front() == "line 1: 204801 bytes, only the first 65536 were read");
}

TEST_CASE("fold: 25 distinct faults keep the first and last 10, the 5 between are counted", "[explain]")
{
	std::string log;
	for (int i = 0; i < 25; ++i)
		log += fault(i);
	log += fault(0) + fault(12) + fault(12) + fault(24); // repeats: of kept, omitted, omitted, kept
	const auto m = read_log(log);
	struct Src : LineSource {
		const Log &l;
		std::size_t at = 0;
		explicit Src(const Log &x) : l(x) {}
		std::optional<LogLine> next() override
		{
			return at < l.lines.size() ? std::optional<LogLine>(l.lines[at++]) : std::nullopt;
		}
	} src(m);
	const Matches r = match_lines(src, *kb().matcher);
	REQUIRE(r.matches.size() == 20);
	for (std::size_t i = 0; i < 20; ++i) {
		INFO(i);
		const int n = i < 10 ? int(i) : int(i) + 5;
		REQUIRE(*r.matches[i].fault->pasid == unsigned(32768 + n));
		// its own five lines, not the block's
		REQUIRE(r.matches[i].first_line == std::size_t(5 * n + 1));
		REQUIRE(r.matches[i].last_line == std::size_t(5 * n + 5));
		REQUIRE(r.matches[i].excerpt.size() == 5);
		REQUIRE(r.matches[i].count == (n == 0 || n == 24 ? 2u : 1u));
	}
	REQUIRE(r.omitted.size() == 1);
	REQUIRE(id_of(r.omitted[0].sig) == "RDNA-LOG-007");
	REQUIRE(r.omitted[0].matches == 5);
	REQUIRE(r.omitted[0].occurrences == 7);
	// the report counts every distinct fault
	Report rep;
	rep.omitted = r.omitted;
	rep.explanations.resize(20);
	for (std::size_t i = 0; i < 20; ++i)
		rep.explanations[i].match = r.matches[i];
	REQUIRE(rep.errors() == 25);
	REQUIRE(rep.harmless() == 0);
}

TEST_CASE("fold: the order of first appearance is kept across signatures", "[explain]")
{
	const auto m = match_log(read_log("HIP error: invalid device function\n" + fault(1) + "x\ny\nz\n" +
					  "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n" +
					  fault(2) + "HIP error: invalid device function\n"),
				 *kb().matcher);
	REQUIRE(m.size() == 4);
	REQUIRE(id_of(m[0].sig) == "RDNA-LOG-001");
	REQUIRE(m[0].count == 2);
	REQUIRE(id_of(m[1].sig) == "RDNA-LOG-007");
	REQUIRE(id_of(m[2].sig) == "RDNA-LOG-013");
	REQUIRE(id_of(m[3].sig) == "RDNA-LOG-007");
	REQUIRE(m[3].first_line == 11);
}

TEST_CASE("reader: a prefilter's rejected lines are counted, never returned", "[explain][prefilter]")
{
	const std::string text = "[    1.000000] usb 1-4: new high-speed USB device\n"
				 "\n"
				 "[    2.000000] amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0)\n"
				 "   \t\n"
				 "[    3.000000] r8169 0000:04:00.0 enp4s0: Link is Up\n"
				 "6,123,456,-;amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (pasid:9)\r\n"
				 "[    4.000000] \n"
				 "the last line, no newline at its end";
	std::vector<std::string> seen; // what the prefilter was given
	std::size_t at = 0;
	LogReader r(
		[&]() -> std::string_view {
			const auto piece = std::string_view(text).substr(std::min(at, text.size()), 5);
			at += piece.size();
			return piece;
		},
		[&](std::string_view line) {
			seen.emplace_back(line);
			return line.find("page fault") != std::string_view::npos;
		});
	std::vector<LogLine> got;
	while (auto l = r.next())
		got.push_back(std::move(*l));
	// only the candidates, with the input's line numbers, their prefixes removed
	REQUIRE(got.size() == 2);
	CHECK(got[0].number == 3);
	CHECK(got[0].text == "amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0)");
	CHECK(got[0].format == LineFormat::dmesg);
	CHECK(got[1].number == 6);
	CHECK(got[1].text == "amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (pasid:9)");
	CHECK(got[1].format == LineFormat::kmsg);
	// the prefilter saw each non-blank line as read (prefix kept, line end removed), once
	const std::vector<std::string> expected_seen = {
		"[    1.000000] usb 1-4: new high-speed USB device",
		"[    2.000000] amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0)",
		"[    3.000000] r8169 0000:04:00.0 enp4s0: Link is Up",
		"6,123,456,-;amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (pasid:9)",
		"[    4.000000] ",
		"the last line, no newline at its end",
	};
	CHECK(seen == expected_seen);
	// lines(): every non-blank line read, candidate or not
	CHECK(r.lines() == 6);
	CHECK(r.summary().bytes == text.size());
	// without a prefilter: the same lines as read_log, every one
	const Log all = read_log(text);
	REQUIRE(all.lines.size() == 5);
	CHECK(all.lines[1].number == 3);
	CHECK(all.lines[4].number == 8);
}

TEST_CASE("reader: a prefilter that rejects everything yields nothing and counts every line", "[explain][prefilter]")
{
	std::string text;
	for (int i = 0; i < 1000; ++i)
		text += "[ 1.0] line " + std::to_string(i) + "\n\n";
	bool given = false;
	LogReader r(
		[&]() -> std::string_view {
			if (given)
				return {};
			given = true;
			return text;
		},
		[](std::string_view) { return false; });
	CHECK_FALSE(r.next());
	CHECK(r.lines() == 1000);
	CHECK(r.summary().problems.empty());
}

TEST_CASE("reader: every control byte becomes '?' wherever it stands in the line", "[explain]")
{
	// each byte value at each offset of an 8-byte word (the replacement works a word at a time)
	for (std::size_t offset = 0; offset < 9; ++offset) {
		INFO(offset);
		std::string line = "x" + std::string(offset, 'a');
		for (int b = 1; b < 256; ++b)
			if (b != '\n' && b != '\r')
				line += static_cast<char>(b);
		line += std::string(1, '\0') + "tail";
		const Log log = read_log(line + "\n");
		REQUIRE(log.lines.size() == 1);
		std::string expected = line;
		for (char &c : expected) {
			const unsigned char u = static_cast<unsigned char>(c);
			if ((u < 0x20 && c != '\t') || u == 0x7f)
				c = '?';
		}
		CHECK(log.lines[0].text == expected);
	}
}
