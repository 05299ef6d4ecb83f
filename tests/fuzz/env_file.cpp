// Fuzz target: the environment readers (core/parse_env_file.cpp: the --env
// FILE format, shell start-up files; /proc/<pid>/environ) and the value
// parsers status applies to what they find (core/parse_env.cpp:
// HSA_OVERRIDE_GFX_VERSION[_N], *_VISIBLE_DEVICES, PYTORCH_*_ALLOC_CONF).
// Seeds: tests/fuzz/corpus/SOURCE.md.
#include "core/parse.hpp"
#include "fuzz.hpp"

using namespace rdnafix;

namespace {

void values(const core::Environment &env)
{
	for (const auto &v : env.vars) {
		(void)core::hsa_override_node(v.name);
		(void)core::parse_hsa_override(v.value);
		(void)core::parse_visible_devices(v.value, v.name);
		(void)core::alloc_conf_expandable(v.value);
		(void)core::parse_alloc_conf(v.value);
		(void)env.get(v.name);
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const auto in = fuzz::text(data, size);
	values(core::parse_env_file(in));
	values(core::parse_env_file(in,
				    [](std::string_view n) { return n.starts_with("HSA_") || n.starts_with("HIP_"); }));
	values(core::parse_environ(in));
	return 0;
}
