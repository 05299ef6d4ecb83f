#include "kmsg.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/parse.hpp"

namespace rdnafix::validate {

namespace {

// A decimal field of a record: digits only (core::parse_u64 also takes 0x-hex and blanks).
bool parse_dec(std::string_view s, std::uint64_t *out)
{
	if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos)
		return false;
	const auto v = core::parse_u64(s);
	if (!v)
		return false;
	*out = *v;
	return true;
}

bool contains(std::string_view hay, std::string_view needle)
{
	return hay.find(needle) != std::string_view::npos;
}

} // namespace

std::optional<KmsgRecord> parse_kmsg_record(std::string_view raw)
{
	const auto semi = raw.find(';');
	if (semi == std::string_view::npos)
		return std::nullopt;
	std::string_view head = raw.substr(0, semi);
	std::string_view body = raw.substr(semi + 1);
	// head: prio,seq,usec,flags[,more...]
	std::array<std::string_view, 4> f{};
	for (std::size_t i = 0; i < 4; ++i) {
		const auto comma = head.find(',');
		f[i] = head.substr(0, comma);
		if (comma == std::string_view::npos) {
			if (i < 3)
				return std::nullopt;
			head = {};
		} else {
			head = head.substr(comma + 1);
		}
	}
	std::uint64_t prio = 0;
	KmsgRecord r;
	if (!parse_dec(f[0], &prio) || !parse_dec(f[1], &r.seq) || !parse_dec(f[2], &r.usec))
		return std::nullopt;
	r.level = int(prio & 7);
	r.facility = int(prio >> 3);
	const auto nl = body.find('\n');
	r.message = std::string(body.substr(0, nl));
	return r;
}

std::string gfx10_client_name(unsigned cid)
{
	// UTCL2 client ids of the GFX10 gfxhub, in id order (Linux
	// drivers/gpu/drm/amd/amdgpu/gfxhub_v2_0.c and gfxhub_v2_1.c, identical lists).
	static const char *const names[] = {"CB/DB",    "Reserved", "GE1",   "GE2",        "CPF",        "CPC",
					    "CPG",      "RLC",      "TCP",   "SQC (inst)", "SQC (data)", "SQG",
					    "Reserved", "SDMA0",    "SDMA1", "GCR",        "SDMA2",      "SDMA3"};
	return cid < std::size(names) ? names[cid] : "unknown";
}

FaultStatus decode_fault_status(std::uint32_t raw, std::string_view reg)
{
	FaultStatus f;
	f.raw = raw;
	f.reg = std::string(reg);
	f.more_faults = raw & 0x1u;
	f.walker_error = (raw >> 1) & 0x7u;
	f.permission_faults = (raw >> 4) & 0xfu;
	f.mapping_error = (raw >> 8) & 0x1u;
	f.cid = (raw >> 9) & 0x1ffu;
	f.write = (raw >> 18) & 0x1u;
	f.vmid = (raw >> 20) & 0xfu;
	if (reg.starts_with("GCVM"))
		f.client = gfx10_client_name(f.cid);
	return f;
}

std::string FaultStatus::explain() const
{
	std::string perm;
	static const char *const bits[] = {"PTE not valid", "PTE not readable", "PTE not writable",
					   "PTE not executable"};
	for (unsigned b = 0; b < 4; ++b)
		if (permission_faults & (1u << b))
			perm += (perm.empty() ? "" : ", ") + std::string(bits[b]);
	return fmt::format("{}=0x{:08X}: client {}(0x{:x}), {} access, vmid {}, permission faults 0x{:x}{}{}{}{}", reg,
			   raw, client.empty() ? "" : client + " ", cid, write ? "write" : "read", vmid,
			   permission_faults, perm.empty() ? "" : " (" + perm + ")",
			   mapping_error ? ", mapping error" : "",
			   walker_error ? fmt::format(", walker error 0x{:x}", walker_error) : "",
			   more_faults ? ", more faults followed" : "");
}

std::optional<FaultStatus> find_fault_status(std::string_view line)
{
	static const std::string_view suffix = "_L2_PROTECTION_FAULT_STATUS:0x";
	const auto at = line.find(suffix);
	if (at == std::string_view::npos)
		return std::nullopt;
	// register name: the identifier that ends at `at`
	std::size_t start = at;
	while (start > 0 && (std::isalnum(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '_'))
		--start;
	const std::string_view reg = line.substr(start, at + suffix.size() - 3 - start);
	std::size_t hex_begin = at + suffix.size(), hex_end = hex_begin;
	while (hex_end < line.size() && std::isxdigit(static_cast<unsigned char>(line[hex_end])))
		++hex_end;
	if (hex_end == hex_begin || hex_end - hex_begin > 8)
		return std::nullopt;
	const auto v = core::parse_u64("0x" + std::string(line.substr(hex_begin, hex_end - hex_begin)));
	if (!v)
		return std::nullopt;
	return decode_fault_status(std::uint32_t(*v), reg);
}

const char *log_kind_name(LogKind k)
{
	switch (k) {
	case LogKind::page_fault:
		return "page-fault";
	case LogKind::fault_status:
		return "fault-status";
	case LogKind::fault_detail:
		return "fault-detail";
	case LogKind::ring_timeout:
		return "ring-timeout";
	case LogKind::gpu_reset:
		return "gpu-reset";
	case LogKind::kfd_event:
		return "kfd";
	}
	return "?";
}

std::optional<LogKind> classify_log_line(std::string_view l)
{
	if (contains(l, "_L2_PROTECTION_FAULT_STATUS:0x"))
		return LogKind::fault_status;
	const bool amd = contains(l, "amdgpu") || contains(l, "gmc_v") || contains(l, "amdkfd") || contains(l, "kfd");
	if (!amd)
		return std::nullopt;
	if ((contains(l, "page fault") && (contains(l, "hub") || contains(l, "src_id"))) ||
	    contains(l, "in page starting at address") || (contains(l, "gmc_v") && contains(l, "callbacks suppressed")))
		return LogKind::page_fault;
	for (std::string_view k : {"Faulty UTCL2 client ID", "MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:",
				   "MAPPING_ERROR:", "\t RW:", " RW: 0x"})
		if (contains(l, k))
			return LogKind::fault_detail;
	if (contains(l, "ring ") && contains(l, "timeout"))
		return LogKind::ring_timeout;
	for (std::string_view k :
	     {"GPU reset", "GPU recovery", "reset succeeded", "reset failed", "device wedged", "MES failed to respond",
	      "ASIC reset", "mode1 reset", "MODE1 reset", "job timedout", "GPU hang", "VRAM is lost"})
		if (contains(l, k))
			return LogKind::gpu_reset;
	for (std::string_view k : {"Memory access fault", "HW Exception", "qcm fence wait loop timeout",
				   "Failed to evict", "Failed to quiesce"})
		if (contains(l, k))
			return LogKind::kfd_event;
	return std::nullopt;
}

std::vector<LogEvent> extract_events(const std::vector<std::string> &lines)
{
	std::vector<LogEvent> out;
	for (const auto &l : lines) {
		auto kind = classify_log_line(l);
		if (!kind)
			continue;
		LogEvent e{*kind, l, std::nullopt};
		if (*kind == LogKind::fault_status)
			e.fault = find_fault_status(l);
		out.push_back(std::move(e));
	}
	return out;
}

KmsgWatch::KmsgWatch(const char *path)
{
	fd_.reset(::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	if (!fd_) {
		const int e = errno;
		note_ = fmt::format("kernel log not captured: cannot open {}: {}{}", path, std::strerror(e),
				    e == EPERM || e == EACCES
					    ? " (run as root, or set kernel.dmesg_restrict=0 / add CAP_SYSLOG)"
					    : "");
		return;
	}
	// SEEK_END on /dev/kmsg moves to the end of the ring buffer: only records
	// written from now on are read.
	if (::lseek(fd_.get(), 0, SEEK_END) < 0) {
		note_ = fmt::format("kernel log not captured: lseek({}, SEEK_END): {}", path, std::strerror(errno));
		fd_.reset();
	}
}

std::vector<KmsgRecord> KmsgWatch::read_new()
{
	std::vector<KmsgRecord> out;
	if (!fd_)
		return out;
	std::array<char, 8192> buf; // one record per read(); records are < 8 KiB
	for (int guard = 0; guard < 100000; ++guard) {
		const ssize_t n = ::read(fd_.get(), buf.data(), buf.size());
		if (n > 0) {
			if (auto r = parse_kmsg_record(std::string_view(buf.data(), std::size_t(n))))
				out.push_back(std::move(*r));
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) { // records were overwritten before we read them
			note_ = "some kernel log records were overwritten before rdnactl read them";
			continue;
		}
		break; // EAGAIN: nothing more; other errors: stop
	}
	return out;
}

} // namespace rdnafix::validate
