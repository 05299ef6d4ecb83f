// Fuzz target: `rdnactl explain` below its I/O: the log reader
// (explain/read_log.cpp), the matcher (match*.cpp) with the built-in
// knowledge base (userspace/data/knowledge, embedded as in rdnactl), the
// judge against a machine with one RDNA2 GPU (judge*.cpp) and both
// renderers.  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "explain/model.hpp"
#include "fuzz.hpp"
#include "knowledge/builtin.hpp"
#include "machine/snapshot.hpp"

#include <memory>

#include <nlohmann/json.hpp>

using namespace rdnafix;

namespace {

// The GPU of tests/fixtures/rx6750xt-raphael (RX 6750 XT, gfx1031).
machine::Snapshot one_gpu()
{
	machine::Snapshot s;
	s.root = "/";
	machine::Device d;
	d.pci_bdf = "0000:03:00.0";
	d.vendor_id = 0x1002;
	d.device_id = 0x73df;
	d.driver = "amdgpu";
	d.is_amd = true;
	d.gfx_target = "gfx1031";
	s.devices.push_back(d);
	return s;
}

// The built-in knowledge base and its matcher, as rdnactl builds them
// without overlays (explain/knowledge_load.cpp, which also reads /etc).
struct Knowledge {
	knowledge::Base base;
	std::unique_ptr<knowledge::Matcher> matcher;
	Knowledge()
	{
		std::vector<knowledge::Problem> problems;
		knowledge::parse(knowledge::builtin_files(), &base, &problems);
		fuzz::check(problems.empty(), "the built-in knowledge files parse");
		matcher = std::make_unique<knowledge::Matcher>(base, explain::block_literals());
	}
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	static const machine::Snapshot snap = one_gpu();
	static const Knowledge kb;
	const explain::Log log = explain::read_log(fuzz::text(data, size));
	fuzz::check(log.bytes == size, "Log::bytes is the input's size");
	const auto matches = explain::match_log(log, *kb.matcher);
	for (const auto &m : matches)
		fuzz::check(m.entry && m.sig < kb.base.entries.size() && m.entry == &kb.base.entries[m.sig],
			    "a match names an entry of the base");
	const explain::Report r = explain::judge(matches, snap, nullptr, kb.base);
	(void)explain::render_text(r);
	// `explain --json` must print valid JSON for any input (issue N4).
	const std::string json = explain::render_json(r);
	fuzz::check(nlohmann::json::accept(json), "render_json gives valid JSON");
	return 0;
}
