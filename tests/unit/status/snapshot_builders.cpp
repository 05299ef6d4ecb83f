// Hand-built snapshots shared by the decision tests (see snapshot_builders.hpp).
#include "snapshot_builders.hpp"

#include "machine/interpret.hpp"
#include "machine/variables.hpp"

#include "knowledge/builtin.hpp"

#include "core/gpudb.hpp"
#include "core/parse.hpp"

namespace rdnafix::test {

using namespace rdnafix::machine;

Device amd(std::string bdf, std::string gfx, std::string gen, bool apu, std::optional<int> kfd_node,
	   std::optional<int> index)
{
	Device d;
	d.pci_bdf = std::move(bdf);
	d.vendor_id = 0x1002;
	d.device_id = 0x73df;
	d.revision = 0xc0;
	d.pci_class = 0x030000;
	d.is_amd = true;
	d.driver = "amdgpu";
	d.card = "card0";
	d.render_node = "renderD128";
	d.gfx_target = std::move(gfx);
	d.gfx_target_source = GfxTargetSource::kfd;
	d.generation = rdnafix::gpudb::generation_from_string(gen);
	d.apu = apu;
	d.kfd_node = kfd_node;
	d.kfd_gpu_index = index;
	return d;
}

Snapshot base()
{
	Snapshot s;
	s.root = "/";
	s.collector = CollectorKind::root;
	s.driver.amdgpu_loaded = true;
	s.driver.initstate = "live";
	s.access.subject = AccessSubject::user;
	s.access.user = "alice";
	DevNode kfd;
	kfd.path = "/dev/kfd";
	kfd.exists = true;
	kfd.mode = 0666; // anyone may open it
	kfd.owner = "root";
	kfd.group = "render";
	kfd.gid = 105;
	s.access.nodes.push_back(kfd);
	return s;
}

std::shared_ptr<const core::VarTable> builtin_variables()
{
	static const auto table = load_variables(knowledge::builtin_files(), false).table;
	return table;
}

void set_env(Snapshot &s, const std::string &text)
{
	const auto t = builtin_variables();
	s.environment = build_environment(
		rdnafix::core::parse_env_file(text, [&](std::string_view n) { return is_relevant_env(n, *t); }), "test",
		t);
}

} // namespace rdnafix::test
