// The amdgpu events of a kernel log (see parse_kernel_log.hpp).
#include "core/parse_kernel_log.hpp"

#include <cctype>

namespace rdnafix::core {

namespace {

bool has(std::string_view s, std::string_view n)
{
	return s.find(n) != std::string_view::npos;
}

// A /dev/kmsg record's prefix "<prio>,<seq>,<usec>,<flags>;": its length
// (0 when `l` is not a record) and the syslog facility (prio >> 3).
struct KmsgPrefix {
	std::size_t length = 0;
	unsigned facility = 0;
};
KmsgPrefix kmsg_prefix(std::string_view l)
{
	const auto semi = l.find(';');
	if (semi == std::string_view::npos || semi >= 64 || l.empty() ||
	    !std::isdigit(static_cast<unsigned char>(l[0])))
		return {};
	// digits and commas (flags may hold '-', 'c', '+') up to ';'
	for (std::size_t i = 0; i < semi; ++i)
		if (!std::isdigit(static_cast<unsigned char>(l[i])) && l[i] != ',' && l[i] != '-' && l[i] != 'c' &&
		    l[i] != '+')
			return {};
	unsigned prio = 0;
	for (std::size_t i = 0; i < semi && std::isdigit(static_cast<unsigned char>(l[i])) && prio < 1u << 20; ++i)
		prio = prio * 10 + unsigned(l[i] - '0');
	return {semi + 1, prio >> 3};
}

std::string_view strip_prefix(std::string_view l)
{
	l.remove_prefix(kmsg_prefix(l).length);
	if (l.starts_with("[")) {
		const auto close = l.find(']');
		if (close != std::string_view::npos && close < 40) {
			bool ts = true;
			for (char c : l.substr(1, close - 1))
				ts = ts && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ' ');
			if (ts)
				l.remove_prefix(close + 1 < l.size() && l[close + 1] == ' ' ? close + 2 : close + 1);
		}
	}
	return l;
}

} // namespace

KernelLogEvents parse_kernel_log(std::string_view text)
{
	KernelLogEvents ev;
	// Faults are counted as the parser completes them; only the last
	// kKeptFaults are kept (a storm of any length costs no memory).
	amdgpu_fault::VmFaultParser faults;
	std::size_t fault_index = 0;
	const auto keep = [&ev](std::vector<amdgpu_fault::VmFault> done) {
		for (auto &f : done) {
			++ev.vm_faults;
			if (ev.last_faults.size() == KernelLogEvents::kKeptFaults)
				ev.last_faults.erase(ev.last_faults.begin());
			ev.last_faults.push_back(std::move(f));
		}
	};
	std::size_t pos = 0;
	while (pos < text.size()) {
		auto nl = text.find('\n', pos);
		if (nl == std::string_view::npos)
			nl = text.size();
		std::string_view l = text.substr(pos, nl - pos);
		pos = nl + 1;
		if (l.starts_with(" ")) // kmsg continuation (" SUBSYSTEM=pci")
			continue;
		// A record a process wrote into /dev/kmsg has a facility other than
		// LOG_KERN (0): the kernel never accepts facility 0 from user space
		// (kernel/printk/printk.c: devkmsg_write, Linux 6.12: "we enforce LOG_USER"), so only the kernel's
		// own lines are amdgpu events.
		if (const auto k = kmsg_prefix(l); k.length && k.facility != 0) {
			++ev.user_records;
			continue;
		}
		++ev.lines;
		l = strip_prefix(l);
		amdgpu_fault::VmFault scratch;
		if (amdgpu_fault::parse_page_fault_line(l, &scratch) || amdgpu_fault::find_status(l) ||
		    amdgpu_fault::parse_fault_address(l) ||
		    (has(l, "amdgpu") && amdgpu_fault::parse_process_line(l, &scratch)) ||
		    has(l, "Faulty UTCL2 client ID")) {
			faults.feed(l, fault_index++);
			keep(faults.take_complete());
			continue;
		}
		if (!has(l, "amdgpu") && !has(l, "[drm"))
			continue;
		if (has(l, "ring ") && has(l, " timeout") && !has(l, "uses VM inv")) {
			++ev.ring_timeouts;
			ev.last_ring_timeout = std::string(l);
		} else if (has(l, "GPU reset begin") || has(l, "GPU reset(") || has(l, "GPU recovery")) {
			++ev.gpu_resets;
			ev.last_gpu_reset = std::string(l);
		} else if (has(l, "Not enough memory for command submission")) {
			++ev.alloc_failures;
			ev.last_alloc_failure = std::string(l);
		} else if (has(l, "MES failed to respon")) {
			++ev.mes_failures;
			ev.last_mes_failure = std::string(l);
		} else if ((has(l, "Direct firmware load for amdgpu/") && has(l, "failed")) ||
			   has(l, "Fatal error during GPU init")) {
			++ev.firmware_failures;
			ev.last_firmware_failure = std::string(l);
		}
	}
	keep(faults.finish());
	return ev;
}

} // namespace rdnafix::core
