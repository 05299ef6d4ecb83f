// The stack's pure half: facts, key, JSON, differences, and the facts a
// Snapshot gives without reading a file (stack.hpp).
#include "software/stack.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_safe.hpp"
#include "machine/facts.hpp"

namespace rdnafix::validate {

namespace {

// Valid UTF-8, at most `max` bytes; a cut value ends in "…" (3 bytes) so that
// a reader sees it was cut.
std::string capped(std::string_view s, std::size_t max)
{
	std::string v = core::utf8_valid(s);
	if (v.size() <= max)
		return v;
	v.resize(core::utf8_prefix_len(v, max - 3));
	return v + "\xe2\x80\xa6";
}

} // namespace

void Stack::set(std::string_view name, std::string_view value)
{
	std::string n = capped(name, kStackNameMax);
	if (n.empty())
		return;
	if (facts.size() >= kStackMaxFacts && !facts.count(n))
		return;
	facts[std::move(n)] = capped(value, kStackValueMax);
}

const std::string *Stack::get(const std::string &name) const
{
	auto it = facts.find(name);
	return it == facts.end() ? nullptr : &it->second;
}

std::string Stack::key() const
{
	// FNV-1a 64 over "name\0value\0" for each fact in name order.  Names and
	// values are UTF-8 without NUL (utf8_valid keeps NUL, so it is escaped
	// here as \0\1, which no other byte sequence produces).
	std::uint64_t h = 0xcbf29ce484222325ULL;
	auto feed = [&h](unsigned char c) {
		h ^= c;
		h *= 0x100000001b3ULL;
	};
	auto feed_text = [&feed](const std::string &s) {
		for (unsigned char c : s) {
			feed(c);
			if (c == 0)
				feed(1);
		}
		feed(0);
		feed(0);
	};
	for (const auto &[n, v] : facts) {
		feed_text(n);
		feed_text(v);
	}
	return fmt::format("{:016x}", h);
}

nlohmann::json Stack::to_json() const
{
	nlohmann::json j = nlohmann::json::object();
	for (const auto &[n, v] : facts)
		j[n] = v;
	return j;
}

Stack Stack::from_json(const nlohmann::json &j)
{
	Stack s;
	if (!j.is_object())
		return s;
	for (const auto &[n, v] : j.items())
		if (v.is_string())
			s.set(n, v.get_ref<const std::string &>());
	return s;
}

Stack Stack::from_text(std::string_view text)
{
	return from_json(parse_stored_json(text));
}

nlohmann::json parse_stored_json(std::string_view text)
{
	if (text.size() > kStoredJsonMaxBytes)
		return nullptr;
	// The nesting depth, counted outside strings, before anything is built.
	int depth = 0;
	bool in_string = false, escaped = false;
	for (char c : text) {
		if (in_string) {
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			if (++depth > kStoredJsonMaxDepth)
				return nullptr;
		} else if (c == ']' || c == '}') {
			--depth;
		}
	}
	auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
	return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

std::string StackChange::describe() const
{
	auto side = [](const std::optional<std::string> &v, const char *none) {
		return v ? core::terminal_safe(*v) : std::string(none);
	};
	// An environment variable is "unset"; any other fact is "absent".
	const char *none = name.starts_with("env.") ? "unset" : "absent";
	return fmt::format("{} {} \u2192 {}", core::terminal_safe(name), side(from, none), side(to, none));
}

namespace {

// What a reader wants to see first when a stack changed (a kernel upgrade
// brings new amdgpu parameters too; they must not push the kernel out of a
// one-line summary): kernel, runtime libraries, PyTorch, rdnafix's version,
// GPUs, environment, then module parameters.
int change_rank(const std::string &name)
{
	const auto starts = [&name](std::string_view p) { return name.starts_with(p); };
	if (name == "kernel")
		return 0;
	if (name == "hip" || name == "cuda" || name == "nvrtc")
		return 1;
	if (starts("torch"))
		return 2;
	if (name == "rdnafix.version")
		return 3;
	if (starts("gpu."))
		return 4;
	if (starts("env."))
		return 5;
	if (starts("rdnafix."))
		return 6;
	if (starts("amdgpu."))
		return 7;
	return 8;
}

} // namespace

std::vector<StackChange> diff_stacks(const Stack &before, const Stack &after)
{
	std::vector<StackChange> out;
	auto a = before.facts.begin(), b = after.facts.begin();
	while (a != before.facts.end() || b != after.facts.end()) {
		if (b == after.facts.end() || (a != before.facts.end() && a->first < b->first)) {
			out.push_back({a->first, a->second, std::nullopt});
			++a;
		} else if (a == before.facts.end() || b->first < a->first) {
			out.push_back({b->first, std::nullopt, b->second});
			++b;
		} else {
			if (a->second != b->second)
				out.push_back({a->first, a->second, b->second});
			++a;
			++b;
		}
	}
	std::stable_sort(out.begin(), out.end(), [](const StackChange &x, const StackChange &y) {
		return change_rank(x.name) < change_rank(y.name);
	});
	return out;
}

// The variables that change what a validation run does, and so make another
// stack (the variables table, userspace/data/knowledge/variables.toml, names the upstream code
// that reads each):
//   HSA_OVERRIDE_GFX_VERSION(_<N>)  the ISA the runtime reports: which code
//                                   objects load, and whether they fault
//   HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES,
//   GPU_DEVICE_ORDINAL              which GPU the cases run on (HIP reads
//                                   CUDA_VISIBLE_DEVICES too)
//   HSA_XNACK                       XNACK mode: code object choice, page faults
//   HSA_ENABLE_SDMA                 which engine copies (the transfer cases)
//   AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, HIP_LAUNCH_BLOCKING,
//   CUDA_LAUNCH_BLOCKING            serialisation: throughput, hidden races
//   PYTORCH_*ALLOC_CONF, PYTORCH_NO_*_MEMORY_CACHING  the torch case's allocator
// Not part of the stack: ROCM_PATH / HIP_PATH (the runtime they select is the
// "hip" fact: a path that loads the same version is the same stack),
// AMD_LOG_LEVEL (logging only), HIP_PLATFORM (build time only), variables
// copied from CUDA or TensorFlow guides and misspelt names (they do nothing).
const std::vector<std::string_view> &stack_env_names()
{
	static const std::vector<std::string_view> names{
		"HSA_OVERRIDE_GFX_VERSION",
		"HIP_VISIBLE_DEVICES",
		"ROCR_VISIBLE_DEVICES",
		"CUDA_VISIBLE_DEVICES",
		"GPU_DEVICE_ORDINAL",
		"HSA_XNACK",
		"HSA_ENABLE_SDMA",
		"AMD_SERIALIZE_KERNEL",
		"AMD_SERIALIZE_COPY",
		"HIP_LAUNCH_BLOCKING",
		"CUDA_LAUNCH_BLOCKING",
		"PYTORCH_HIP_ALLOC_CONF",
		"PYTORCH_CUDA_ALLOC_CONF",
		"PYTORCH_ALLOC_CONF",
		"PYTORCH_NO_HIP_MEMORY_CACHING",
		"PYTORCH_NO_CUDA_MEMORY_CACHING",
	};
	return names;
}

bool is_stack_env(std::string_view name)
{
	const auto &n = stack_env_names();
	return std::find(n.begin(), n.end(), name) != n.end() || core::hsa_override_node(name).has_value();
}

bool is_stack_param(std::string_view module, std::string_view name)
{
	// The same list as machine/collect_driver.cpp's kernel_root_only
	// (drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c registers them with mode 0600).
	return !(module == "amdgpu" &&
		 (name == "vramlimit" || name == "gartsize" || name == "gttsize" || name == "moverate"));
}

Stack stack_of_snapshot(const machine::Snapshot &snap)
{
	Stack s;
	if (!snap.driver.kernel_release.empty())
		s.set("kernel", snap.driver.kernel_release);
	for (const auto &p : snap.driver.params)
		if (p.live_value && is_stack_param(p.module, p.name))
			s.set(p.module + "." + p.name, *p.live_value);
	for (const auto &[n, v] : snap.rdnafix.params)
		s.set("rdnafix." + n, v);
	if (snap.rdnafix.loaded && snap.rdnafix.version)
		s.set("rdnafix.version", *snap.rdnafix.version);
	for (const auto &[n, v] : snap.environment.vars)
		if (is_stack_env(n))
			s.set("env." + n, v);
	for (const auto &d : snap.devices) {
		if (!d.is_amd || d.pci_bdf.empty())
			continue;
		std::string v = d.gfx_target.value_or("unknown");
		if (auto id = machine::pci_id(d); !id.empty())
			v += " " + id;
		s.set("gpu." + d.pci_bdf, v);
	}
	return s;
}

std::string library_version(std::string_view soname, std::string_view resolved_name)
{
	// "libamdhip64.so.6" -> stem "libamdhip64.so."
	const auto so = soname.find(".so");
	if (so != std::string_view::npos) {
		const std::string_view stem = soname.substr(0, so + 3);
		if (resolved_name.starts_with(stem) && resolved_name.size() > stem.size() + 1 &&
		    resolved_name[stem.size()] == '.')
			return std::string(resolved_name.substr(stem.size() + 1));
	}
	return std::string(resolved_name);
}

} // namespace rdnafix::validate
