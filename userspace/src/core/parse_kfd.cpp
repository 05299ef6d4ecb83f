// KFD topology parsers (docs/rocm-facts.md §5: "<key> <decimal>\n" per line).
#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

std::optional<std::uint64_t> KfdProperties::get(std::string_view key) const
{
	std::optional<std::uint64_t> v;
	for (const auto &[k, val] : entries)
		if (k == key)
			v = val;
	return v;
}

Result<KfdProperties> parse_kfd_properties(std::string_view text)
{
	KfdProperties props;
	unsigned no = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++no;
		if (trim(line).empty())
			continue;
		auto words = detail::split_words(line);
		bool ok = words.size() == 2;
		std::uint64_t value = 0;
		if (ok) {
			// The kernel prints every value with %llu/%u: plain decimal only.
			for (char c : words[1])
				ok = ok && c >= '0' && c <= '9';
			if (ok) {
				auto v = parse_u64(words[1]);
				ok = v.ok();
				if (ok)
					value = *v;
			}
			for (char c : words[0]) {
				auto u = static_cast<unsigned char>(c);
				ok = ok && (u > 0x20 && u < 0x7f);
			}
		}
		if (!ok) {
			props.problems.push_back(
				fmt::format("line {}: expected '<key> <decimal>', got '{}'", no, detail::shown(line)));
			continue;
		}
		props.entries.emplace_back(std::string(words[0]), value);
	}
	if (props.entries.empty()) {
		if (trim(text).empty())
			return Error{"KFD properties: the file is empty (expected '<key> <decimal>' lines)"};
		return Error{fmt::format("KFD properties: no '<key> <decimal>' line found ({})",
					 props.problems.empty() ? std::string("no lines") : props.problems.front())};
	}
	return props;
}

std::string KfdNode::pci_bdf() const
{
	// location_id = pci_dev_id() = bus << 8 | devfn; devfn = slot << 3 | function.
	unsigned bus = static_cast<unsigned>((location_id >> 8) & 0xff);
	unsigned devfn = static_cast<unsigned>(location_id & 0xff);
	return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", static_cast<unsigned>(domain), bus, devfn >> 3, devfn & 7);
}

KfdNode kfd_node_from(const KfdProperties &p)
{
	KfdNode n;
	auto g = [&](std::string_view key) { return p.get(key).value_or(0); };
	n.cpu_cores_count = g("cpu_cores_count");
	n.simd_count = g("simd_count");
	n.gfx_target_version = g("gfx_target_version");
	n.vendor_id = g("vendor_id");
	n.device_id = g("device_id");
	n.location_id = g("location_id");
	n.domain = g("domain");
	n.drm_render_minor = g("drm_render_minor");
	n.unique_id = g("unique_id");
	n.mem_banks_count = g("mem_banks_count");
	return n;
}

Result<KfdMemBank> parse_kfd_mem_bank(std::string_view text)
{
	auto props = parse_kfd_properties(text);
	if (!props)
		return Error{"KFD mem_bank: " + props.error().message};
	auto size = props->get("size_in_bytes");
	if (!size)
		return Error{"KFD mem_bank: no 'size_in_bytes' line (expected heap_type, size_in_bytes, flags, width, "
			     "mem_clk_max)"};
	KfdMemBank b;
	b.heap_type = props->get("heap_type").value_or(0);
	b.size_in_bytes = *size;
	b.flags = props->get("flags").value_or(0);
	b.width = props->get("width").value_or(0);
	b.mem_clk_max = props->get("mem_clk_max").value_or(0);
	return b;
}

} // namespace rdnafix::core
