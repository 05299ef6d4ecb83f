// Reader: the KFD topology (sys/class/kfd/kfd/topology/nodes).
#include "machine/collect.hpp"
#include "machine/collect_internal.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace rdnafix::machine {

namespace detail {

std::vector<KfdNodeInfo> collect_kfd(io::RootFs &fs, std::vector<Unreadable> &u)
{
	std::vector<KfdNodeInfo> out;
	const std::string base = "sys/class/kfd/kfd/topology/nodes";
	auto names = fs.list_dir(base);
	if (!names) {
		if (names.error().kind != io::FsErrorKind::not_found)
			note(u, "kfd_topology", names.error());
		return out;
	}
	std::size_t seen = 0;
	for (const auto &n : *names) {
		auto id = core::parse_u64(n);
		if (!id || *id > 100000)
			continue;
		if (++seen > kMaxDevices)
			continue;
		std::string dir = base + "/" + n;
		auto t = fs.read_text(dir + "/properties");
		if (!t) {
			note(u, "kfd_node_" + n, t.error());
			continue;
		}
		auto props = core::parse_kfd_properties(*t);
		if (!props) {
			u.push_back({"kfd_node_" + n, dir + "/properties", "unreadable: " + props.error().message});
			continue;
		}
		KfdNodeInfo k;
		k.node_id = int(*id);
		k.props = core::kfd_node_from(*props);
		if (k.props.is_gpu()) {
			if (auto g = fs.read_value(dir + "/gpu_id"))
				if (auto v = core::parse_u64(*g); v && *v <= 0xffffffffu)
					k.gpu_id = std::uint32_t(*v);
			if (auto banks = fs.list_dir(dir + "/mem_banks")) {
				std::uint64_t sum = 0;
				bool any = false, wrapped = false;
				for (const auto &b : *banks) {
					auto bt = fs.read_text(dir + "/mem_banks/" + b + "/properties");
					if (!bt)
						continue;
					auto bank = core::parse_kfd_mem_bank(*bt);
					if (bank && (bank->heap_type == 1 || bank->heap_type == 2)) {
						wrapped = wrapped || bank->size_in_bytes > UINT64_MAX - sum;
						sum += bank->size_in_bytes;
						any = true;
					}
				}
				if (wrapped)
					u.push_back(
						{"kfd_node_" + n + ".local_mem_bytes", dir + "/mem_banks",
						 "unreadable: out of range: the memory banks' size_in_bytes add up to "
						 "more than 2^64 bytes"});
				else if (any)
					k.local_mem_bytes = sum;
			}
		}
		out.push_back(k);
	}
	if (seen > kMaxDevices)
		u.push_back({"device_count", base,
			     fmt::format("unreadable: out of range: {} KFD nodes (only the first {} are read)", seen,
					 kMaxDevices)});
	std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.node_id < b.node_id; });
	return out;
}

} // namespace detail

} // namespace rdnafix::machine
