// The "Kernel log (this boot)" part of `rdnactl status`: the amdgpu VM
// faults, ring timeouts, resets, MES and firmware failures of the current
// boot (machine::KernelLog), as text lines and as the `kernel_log` object.
// Shown only when there is a log to read (live, or a root with a captured
// dmesg file).  The details are `rdnactl explain`'s job.
#include "render.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace af = core::amdgpu_fault;

namespace {

std::string fault_line(const af::VmFault &f)
{
	std::string s = fmt::format("{}{} page fault", af::hub_name(f.hub), f.retry ? " retry" : "");
	if (!f.device.empty())
		s += " on " + f.device;
	if (f.vmid)
		s += fmt::format(", vmid {}", *f.vmid);
	if (f.pasid)
		s += fmt::format(", pasid {}", *f.pasid);
	if (!f.process.empty() || f.pid)
		s += fmt::format(", process {} pid {}", f.process.empty() ? "(none)" : f.process,
				 f.pid ? std::to_string(*f.pid) : "?");
	if (f.address)
		s += fmt::format(", address 0x{:x}", *f.address);
	if (f.status)
		s += fmt::format(", {}=0x{:08X}{}", f.status->reg, f.status->raw,
				 f.status->client.empty() ? "" : " client " + f.status->client);
	return s;
}

} // namespace

std::vector<std::string> kernel_log_lines(const Snapshot &s)
{
	const auto &k = s.kernel_log;
	std::vector<std::string> out;
	if (!k.events) {
		out.push_back("not readable: " + k.error);
		return out;
	}
	const auto &e = *k.events;
	if (e.vm_faults + e.ring_timeouts + e.gpu_resets + e.mes_failures + e.firmware_failures + e.alloc_failures ==
	    0) {
		out.push_back(fmt::format(
			"no amdgpu faults, ring timeouts, resets, MES or firmware failures ({} lines)", e.lines));
		return out;
	}
	if (e.vm_faults) {
		out.push_back(fmt::format("{} amdgpu VM fault(s){}", e.vm_faults,
					  e.vm_faults > e.last_faults.size()
						  ? fmt::format(", the last {}:", e.last_faults.size())
						  : ":"));
		for (const auto &f : e.last_faults)
			out.push_back("  " + fault_line(f));
	}
	auto count = [&](std::size_t n, const char *what, const std::string &last) {
		if (n)
			out.push_back(fmt::format("{} {}: last \"{}\"", n, what, core::expand_tabs(last)));
	};
	count(e.ring_timeouts, "ring timeout(s)", e.last_ring_timeout);
	count(e.gpu_resets, "GPU reset(s)", e.last_gpu_reset);
	count(e.mes_failures, "MES failure(s)", e.last_mes_failure);
	count(e.firmware_failures, "firmware failure(s)", e.last_firmware_failure);
	count(e.alloc_failures, "allocation failure(s)", e.last_alloc_failure);
	out.push_back(k.source == machine::KernelLogSource::kmsg ? "explained by: sudo dmesg | rdnactl explain -"
								 : "explained by: rdnactl explain <the dmesg file>");
	if (k.truncated)
		out.push_back("(only the first 16 MiB of the log were read)");
	return out;
}

nlohmann::ordered_json kernel_log_json(const Snapshot &s)
{
	const auto &k = s.kernel_log;
	nlohmann::ordered_json j;
	j["source"] = std::string(to_string(k.source));
	j["path"] = k.path;
	j["error"] = k.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(k.error);
	if (!k.events)
		return j;
	const auto &e = *k.events;
	j["lines"] = e.lines;
	j["truncated"] = k.truncated;
	j["vm_faults"] = e.vm_faults;
	auto faults = nlohmann::ordered_json::array();
	for (const auto &f : e.last_faults) {
		nlohmann::ordered_json x;
		x["device"] = f.device;
		x["hub"] = std::string(af::hub_name(f.hub));
		x["vmid"] = f.vmid ? nlohmann::ordered_json(*f.vmid) : nlohmann::ordered_json(nullptr);
		x["pasid"] = f.pasid ? nlohmann::ordered_json(*f.pasid) : nlohmann::ordered_json(nullptr);
		x["process"] = f.process;
		x["pid"] = f.pid ? nlohmann::ordered_json(*f.pid) : nlohmann::ordered_json(nullptr);
		x["address"] = f.address ? nlohmann::ordered_json(fmt::format("0x{:x}", *f.address))
					 : nlohmann::ordered_json(nullptr);
		x["status"] = f.status ? nlohmann::ordered_json(fmt::format("0x{:08X}", f.status->raw))
				       : nlohmann::ordered_json(nullptr);
		x["client"] = f.status ? f.status->client : "";
		faults.push_back(std::move(x));
	}
	j["last_faults"] = faults;
	j["ring_timeouts"] = e.ring_timeouts;
	j["gpu_resets"] = e.gpu_resets;
	j["mes_failures"] = e.mes_failures;
	j["firmware_failures"] = e.firmware_failures;
	j["alloc_failures"] = e.alloc_failures;
	return j;
}

} // namespace rdnafix::status
